// Lennard-Jones 12-6, cut (LAMMPS pair_style lj/cut; with potential.shift and a cutoff of
// 2^(1/6)σ it is the WCA potential):
//
//   U(r)   = 4ε[(σ/r)^12 − (σ/r)^6] − U_shift,        r < r_c
//   F(r)/r = 24ε[2(σ/r)^12 − (σ/r)^6] / r²           (the "fpair" of LAMMPS)
// With lj1 = 48εσ^12, lj2 = 24εσ^6, lj3 = 4εσ^12, lj4 = 4εσ^6 (LAMMPS's names):
//   r6inv = 1/r^6,  fpair = r6inv (lj1 r6inv − lj2) / r²,  U = r6inv (lj3 r6inv − lj4) − shift.
// Only +, −, × and one IEEE division: no sqrt, no transcendental function, so host and device
// agree to the bit when nvcc is told --fmad=false. The evaluator contract is in pair_style.hpp.
#pragma once

#include <array>
#include <cmath>
#include <string_view>

#include "physics/pair/pair_style.hpp"

#if !defined(__CUDACC__)
#include <numbers>
#include <optional>

#include <fmt/format.h>
#endif

namespace scanmd {

struct LJCut : NoStyleKeys {
  static constexpr std::string_view kName = "lj";
  static constexpr std::array<std::string_view, 1> kAliases{"lj/cut"};
  static constexpr std::array<std::string_view, 2> kCoefficients{"epsilon", "sigma"};
  static constexpr std::array<double, 2> kDefaults{1.0, 1.0};
  static constexpr std::array<CoefficientDomain, 2> kDomains{CoefficientDomain::NonNegative,
                                                             CoefficientDomain::Positive};
  static constexpr std::array<Dimension, 2> kDimensions{Dimension::Energy, Dimension::Length};
  static constexpr std::array<double, 2> kExample{0.5, 0.88};
  static constexpr std::string_view kDoc =
      "Lennard-Jones 12-6, cut (LAMMPS `lj/cut`): U = 4ε[(σ/r)¹² − (σ/r)⁶] for r < r_c, "
      "`epsilon` = ε the well depth, `sigma` = σ the size. WCA is `lj` with `cutoff = "
      "1.122462048309373` (2^(1/6)σ) and `shift = true`. `epsilon` must stay below 2^22 = "
      "4194304: a pair at its minimum has U = −ε, and one pair's term must fit the 64-bit fixed "
      "point; σ¹² and the force constants 48εσ¹², 24εσ⁶ must be normal doubles (σ within "
      "2.3e-26 .. 4.9e25). Tail corrections, per pair of types: E += Σ_ij "
      "8πN_iN_jεσ⁶(σ⁶−3r_c⁶)/(9r_c⁹V), P += Σ_ij 16πN_iN_jεσ⁶(2σ⁶−3r_c⁶)/(9r_c⁹V²).";
  static constexpr bool kMixing = true, kShift = true, kTail = true, kVector = true;
  enum : int { kEpsilon = 0, kSigma = 1 };

  struct Params {
    double lj1, lj2, lj3, lj4;
    double cutoff_sq;
    double energy_shift;  // U(r_c) when the potential is shifted, else 0
  };

  static Params make(const Coefficients& c, double cutoff, bool shift) {
    const double epsilon = c[kEpsilon], sigma = c[kSigma];
    Params p{};
    const double s6 = sigma * sigma * sigma * sigma * sigma * sigma;
    p.lj1 = 48.0 * epsilon * s6 * s6;
    p.lj2 = 24.0 * epsilon * s6;
    p.lj3 = 4.0 * epsilon * s6 * s6;
    p.lj4 = 4.0 * epsilon * s6;
    p.cutoff_sq = cutoff * cutoff;
    p.energy_shift = 0.0;
    if (shift) p.energy_shift = eval(p.cutoff_sq, p).energy;
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    const R r2inv = R(1.0) / r2;
    const R r6inv = r2inv * r2inv * r2inv;
    const R forcelj = r6inv * (R(p.lj1) * r6inv - R(p.lj2));
    return {forcelj * r2inv, r6inv * (R(p.lj3) * r6inv - R(p.lj4)) - R(p.energy_shift)};
  }

#if !defined(__CUDACC__)
  // ε_ij = √(ε_i ε_j); σ_ij geometric or arithmetic (LAMMPS pair_modify mix).
  static Coefficients mix(Mixing rule, const Coefficients& a, const Coefficients& b) {
    Coefficients m{};
    m[kEpsilon] = std::sqrt(a[kEpsilon] * b[kEpsilon]);
    m[kSigma] = rule == Mixing::Arithmetic ? 0.5 * (a[kSigma] + b[kSigma])
                                           : std::sqrt(a[kSigma] * b[kSigma]);
    return m;
  }

  // A pair at its minimum has U = −ε, and one pair's energy term must stay below the fixed-point
  // limit 2^62 units of 2^-40, so ε at or above 2^22 cannot run; σ¹² and the force constants
  // must be normal finite doubles (σ = 1e-300 has σ¹² = 0: the potential would vanish).
  static std::optional<CoefficientProblem> check(const Coefficients& c, double,
                                                 const std::string& types) {
    const double epsilon = c[kEpsilon], sigma = c[kSigma];
    constexpr double kMaxEpsilon = 4194304.0;  // 2^22
    if (!(epsilon < kMaxEpsilon))
      return CoefficientProblem{
          kEpsilon, fmt::format("epsilon = {:.6g} is beyond the 64-bit fixed point of the "
                                "energies: a pair at its minimum has U = -epsilon, and one "
                                "pair's term must stay below 2^22 = 4194304 (LJ units want "
                                "epsilon of order 1)",
                                epsilon)};
    if (!(epsilon > 0.0)) return std::nullopt;  // no interaction, nothing to overflow
    const long double s12 = std::pow(static_cast<long double>(sigma), 12.0L);
    if (!std::isnormal(static_cast<double>(s12)))
      return CoefficientProblem{
          kSigma,
          fmt::format("sigma = {}{}: sigma^12 = {:.3Lg} {}, so the force constants 48 epsilon "
                      "sigma^12 and 24 epsilon sigma^6 would {}; sigma must lie between 2.3e-26 "
                      "and 4.9e+25 (LJ units want sigma of order 1)",
                      sigma, types, s12,
                      s12 < 1 ? "is below the smallest normal double" : "overflows a double",
                      s12 < 1 ? "vanish (no force at all)" : "be infinite")};
    const Params p = make(c, 1.0, false);
    for (const double k : {p.lj1, p.lj2, p.lj3, p.lj4})
      if (!std::isnormal(k))
        return CoefficientProblem{
            kEpsilon,
            fmt::format("epsilon = {} with sigma = {}{}: the force constant 48 "
                        "epsilon sigma^12 = {:.3g} is not a normal double (the "
                        "potential would {}); LJ units want epsilon of order 1",
                        epsilon, sigma, types, p.lj1, std::isfinite(k) ? "vanish" : "be infinite")};
    return std::nullopt;
  }

  // τ = σ√(m/ε), and how far each coefficient is from LJ units in the direction that shortens
  // τ (the deck check blames the furthest); infinite without an interaction.
  using TimeUnit = StyleTimeUnit<2>;
  static TimeUnit time_unit(const Coefficients& c, double mass) {
    const double epsilon = c[kEpsilon], sigma = c[kSigma];
    if (!(epsilon > 0.0)) return {INFINITY, {0, 0}, ""};
    return {
        sigma * std::sqrt(mass / epsilon),
        {0.5 * std::log10(epsilon), -std::log10(sigma)},
        fmt::format("the Lennard-Jones time unit tau = sigma sqrt(m/epsilon) = {:.3g}",
                    sigma * std::sqrt(mass / epsilon)),
    };
  }
  static std::string time_unit_values(const Coefficients& c, double mass) {
    return fmt::format("sigma = {}, m = {}, epsilon = {}", c[kSigma], mass, c[kEpsilon]);
  }

  // The repulsive core: σ of an interacting pair.
  static double core_size(const Coefficients& c) {
    return c[kEpsilon] > 0.0 ? c[kSigma] : INFINITY;
  }

  // For n_i, n_j particles of the two types, the truncated (unshifted) potential's correction:
  // e = 8π n_i n_j ε σ⁶ (σ⁶ − 3 r_c⁶) / (9 r_c⁹), p = 16π n_i n_j ε σ⁶ (2σ⁶ − 3 r_c⁶) / (9 r_c⁹).
  static TailTerms tail(const Coefficients& c, double cutoff, double n_i, double n_j) {
    const double sig2 = c[kSigma] * c[kSigma], sig6 = sig2 * sig2 * sig2;
    const double rc3 = cutoff * cutoff * cutoff, rc6 = rc3 * rc3, rc9 = rc3 * rc6;
    const double prefactor = 8.0 * std::numbers::pi * n_i * n_j * c[kEpsilon] * sig6 / (9.0 * rc9);
    return {prefactor * (sig6 - 3.0 * rc6), 2.0 * prefactor * (2.0 * sig6 - 3.0 * rc6)};
  }

  // Below 0.8σ the repulsion exceeds ~1000 ε/σ: the particles overlap; else ε is too large.
  static std::string overflow_cause(double r, const Coefficients& c, const std::string& terms) {
    const double epsilon = c[kEpsilon], sigma = c[kSigma];
    if (!(epsilon > 0.0) || !(sigma > 0.0))
      return ": " + terms + ": particles overlap or the time step is too large";
    if (r < 0.8 * sigma)
      return fmt::format(
          ": the particles overlap (r = {:.3g} σ, {}); the time step is too large, or the "
          "start puts them too close",
          r / sigma, terms);
    return fmt::format(
        ": at r = {:.3g} σ the particles do not overlap, yet {}: ε = {:.6g} (σ = {:.6g}) is too "
        "large for the 64-bit fixed point of forces and energies (LJ units want ε and σ of "
        "order 1)",
        r / sigma, terms, epsilon, sigma);
  }
#endif
};

}  // namespace scanmd
