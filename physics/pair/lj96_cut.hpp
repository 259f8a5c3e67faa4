// Lennard-Jones 9-6, cut (LAMMPS pair_style lj96/cut; pair_coeff i j ε σ [cutoff]), the softer
// core of coarse-grained and polymer models:
//
//   U(r)   = 4ε[(σ/r)^9 − (σ/r)^6] − U_shift,         r < r_c
//   F(r)/r = 12ε[3(σ/r)^9 − 2(σ/r)^6] / r²
// With LAMMPS's constants lj1 = 36εσ^9, lj2 = 24εσ^6, lj3 = 4εσ^9, lj4 = 4εσ^6:
//   r6inv = 1/r^6,  r3inv = √r6inv,  fpair = r6inv (lj1 r3inv − lj2) / r²,
//   U = r6inv (lj3 r3inv − lj4) − shift.
// +, −, ×, one division and one square root, all correctly rounded: the same bits on every
// backend. The evaluator contract is in pair_style.hpp.
#pragma once

#include <array>
#include <cmath>
#include <string_view>

#include "physics/pair/det_math.hpp"
#include "physics/pair/lj_cut.hpp"
#include "physics/pair/pair_style.hpp"

#if !defined(__CUDACC__)
#include <numbers>
#include <optional>
#include <string>

#include <fmt/format.h>
#endif

namespace scanmd {

struct LJ96Cut : NoStyleKeys {
  static constexpr std::string_view kName = "lj96/cut";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 2> kCoefficients{"epsilon", "sigma"};
  static constexpr std::array<double, 2> kDefaults{1.0, 1.0};
  static constexpr std::array<CoefficientDomain, 2> kDomains{CoefficientDomain::NonNegative,
                                                             CoefficientDomain::Positive};
  static constexpr std::array<Dimension, 2> kDimensions{Dimension::Energy, Dimension::Length};
  static constexpr std::array<double, 2> kExample{0.5, 0.88};
  static constexpr std::string_view kDoc =
      "Lennard-Jones 9-6, cut (LAMMPS `lj96/cut`): U = 4ε[(σ/r)⁹ − (σ/r)⁶] for r < r_c, "
      "`epsilon` = ε, `sigma` = σ; its minimum is U = −16ε/27 at r = (3/2)^(1/3)σ. `epsilon` "
      "must stay below 2^22 = 4194304 (one pair's term must "
      "fit the 64-bit fixed point); σ⁹ and the force constants 36εσ⁹, 24εσ⁶ must be normal "
      "doubles. Tail corrections, per pair of types: E += Σ_ij "
      "8πN_iN_jεσ⁶(σ³−2r_c³)/(6r_c⁶V), P += Σ_ij 8πN_iN_jεσ⁶(3σ³−4r_c³)/(6r_c⁶V²).";
  static constexpr bool kMixing = true, kShift = true, kTail = true, kVector = true;
  enum : int { kEpsilon = 0, kSigma = 1 };

  struct Params {
    double lj1, lj2, lj3, lj4;
    double cutoff_sq;
    double energy_shift;  // U(r_c) when the potential is shifted, else 0
  };

  static Params make(const Coefficients& c, double cutoff, bool shift) {
    const double epsilon = c[kEpsilon], sigma = c[kSigma];
    const double s3 = sigma * sigma * sigma, s6 = s3 * s3;
    Params p{};
    p.lj1 = 36.0 * epsilon * s6 * s3;
    p.lj2 = 24.0 * epsilon * s6;
    p.lj3 = 4.0 * epsilon * s6 * s3;
    p.lj4 = 4.0 * epsilon * s6;
    p.cutoff_sq = cutoff * cutoff;
    p.energy_shift = 0.0;
    if (shift) p.energy_shift = eval(p.cutoff_sq, p).energy;
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    using det::sqrt_of;
    const R r2inv = R(1.0) / r2;
    const R r6inv = r2inv * r2inv * r2inv;
    const R r3inv = sqrt_of(r6inv);
    const R forcelj = r6inv * (R(p.lj1) * r3inv - R(p.lj2));
    return {forcelj * r2inv, r6inv * (R(p.lj3) * r3inv - R(p.lj4)) - R(p.energy_shift)};
  }

#if !defined(__CUDACC__)
  // As lj/cut: ε_ij = √(ε_i ε_j), σ_ij by the rule (LAMMPS pair_modify mix).
  static Coefficients mix(Mixing rule, const Coefficients& a, const Coefficients& b) {
    return LJCut::mix(rule, a, b);
  }

  // ε below 2^22 as lj/cut; σ⁹ and the force constants normal finite doubles.
  static std::optional<CoefficientProblem> check(const Coefficients& c, double,
                                                 const std::string& types) {
    const double epsilon = c[kEpsilon], sigma = c[kSigma];
    if (!(epsilon < 4194304.0))  // 2^22
      return CoefficientProblem{
          kEpsilon, fmt::format("epsilon = {:.6g}{} is beyond the 64-bit fixed point of the "
                                "energies: one pair's term must stay below 2^22 = 4194304 (LJ "
                                "units want epsilon of order 1)",
                                epsilon, types)};
    if (!(epsilon > 0.0)) return std::nullopt;  // no interaction, nothing to overflow
    const Params p = make(c, 1.0, false);
    for (const double k : {p.lj1, p.lj2, p.lj3, p.lj4})
      if (!std::isnormal(k))
        return CoefficientProblem{
            kSigma, fmt::format("sigma = {} with epsilon = {}{}: the force constants 36 epsilon "
                                "sigma^9 = {:.3g} and 24 epsilon sigma^6 = {:.3g} must be normal "
                                "doubles (the potential would {}); LJ units want both of order 1",
                                sigma, epsilon, types, p.lj1, p.lj2,
                                std::isfinite(k) ? "vanish" : "be infinite")};
    return std::nullopt;
  }

  // τ = σ√(m/ε) and the core σ, as lj/cut.
  using TimeUnit = LJCut::TimeUnit;
  static TimeUnit time_unit(const Coefficients& c, double mass) {
    return LJCut::time_unit(c, mass);
  }
  static std::string time_unit_values(const Coefficients& c, double mass) {
    return LJCut::time_unit_values(c, mass);
  }
  static double core_size(const Coefficients& c) {
    return LJCut::core_size(c);
  }

  // For n_i, n_j particles of the two types (the truncated, unshifted potential):
  // e = 8π n_i n_j ε σ⁶ (σ³ − 2 r_c³) / (6 r_c⁶), p = 8π n_i n_j ε σ⁶ (3σ³ − 4 r_c³) / (6 r_c⁶).
  static TailTerms tail(const Coefficients& c, double cutoff, double n_i, double n_j) {
    const double sig3 = c[kSigma] * c[kSigma] * c[kSigma], sig6 = sig3 * sig3;
    const double rc3 = cutoff * cutoff * cutoff, rc6 = rc3 * rc3;
    const double prefactor = 8.0 * std::numbers::pi * n_i * n_j * c[kEpsilon] * sig6 / (6.0 * rc6);
    return {prefactor * (sig3 - 2.0 * rc3), prefactor * (3.0 * sig3 - 4.0 * rc3)};
  }

  static std::string overflow_cause(double r, const Coefficients& c, const std::string& terms) {
    return LJCut::overflow_cause(r, c, terms);
  }
#endif
};

}  // namespace scanmd
