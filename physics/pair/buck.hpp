// Buckingham (LAMMPS pair_style buck cutoff; pair_coeff i j A rho C [cutoff]):
//
//   U(r)   = A e^(−r/ρ) − C/r⁶ − U_shift,              r < r_c
//   F(r)/r = (A/ρ) e^(−r/ρ) / r − 6C/r⁸
// As LAMMPS computes it: r⁻⁶ from 1/r², rexp = exp(−r/ρ), F/r = (buck1 r rexp − buck2 r⁻⁶)/r²
// with buck1 = A/ρ, buck2 = 6C. No mixing rule (as LAMMPS: every pair listed). Tail corrections
// as LAMMPS pair_modify tail. The evaluator contract is in pair_style.hpp.
#pragma once

#include <array>
#include <cmath>
#include <string_view>

#include "physics/pair/det_math.hpp"
#include "physics/pair/pair_style.hpp"

#if !defined(__CUDACC__)
#include <numbers>
#include <optional>
#include <string>

#include <fmt/format.h>
#endif

namespace scanmd {

struct Buck : NoStyleKeys {
  static constexpr std::string_view kName = "buck";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 3> kCoefficients{"a", "rho", "c"};
  static constexpr std::array<double, 3> kDefaults{kRequired, kRequired, kRequired};
  static constexpr std::array<CoefficientDomain, 3> kDomains{
      CoefficientDomain::NonNegative, CoefficientDomain::Positive, CoefficientDomain::NonNegative};
  static constexpr std::array<Dimension, 3> kDimensions{Dimension::Energy, Dimension::Length,
                                                        Dimension::EnergyLength6};
  static constexpr std::array<double, 3> kExample{1000.0, 0.2, 1.0};
  static constexpr std::string_view kDoc =
      "Buckingham (LAMMPS `buck`, `pair_coeff i j a rho c`): U = a e^(−r/ρ) − c/r⁶; `a` below "
      "10¹² (beyond, the repulsion leaves the fixed point well before the pair overlaps).";
  static constexpr bool kMixing = false, kShift = true, kTail = true, kVector = true;
  enum : int { kA = 0, kRho = 1, kC = 2 };

  struct Params {
    double a, rhoinv, c, buck1, buck2;
    double cutoff_sq;
    double offset;  // U(r_c) when shifted, else 0
  };

  static Params make(const Coefficients& c, double cutoff, bool shift) {
    Params p{c[kA], 1.0 / c[kRho], c[kC], c[kA] / c[kRho], 6.0 * c[kC], cutoff * cutoff, 0.0};
    if (shift) p.offset = eval(p.cutoff_sq, p).energy;
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    using det::sqrt_of;
    const R r2inv = R(1.0) / r2;
    const R r6inv = r2inv * r2inv * r2inv;
    const R r = sqrt_of(r2);
    const R rexp = det::exp(R(-1.0) * r * R(p.rhoinv));
    return {(R(p.buck1) * r * rexp - R(p.buck2) * r6inv) * r2inv,
            R(p.a) * rexp - R(p.c) * r6inv - R(p.offset)};
  }

#if !defined(__CUDACC__)
  static std::optional<CoefficientProblem> check(const Coefficients& c, double,
                                                 const std::string& types) {
    if (!(c[kA] < 1e12))
      return CoefficientProblem{kA, fmt::format("a = {:.6g}{}: the repulsion a e^(-r/rho) leaves "
                                                "the fixed point well before the pair overlaps",
                                                c[kA], types)};
    return std::nullopt;
  }

  // The truncated (unshifted) potential's correction for n_i, n_j particles (LAMMPS buck):
  // e = 2π n_i n_j [A e^(−r_c/ρ) ρ (r_c² + 2ρ r_c + 2ρ²) − C/(3 r_c³)],
  // p = −(2π/3) n_i n_j [−A e^(−r_c/ρ) (r_c³ + 3ρ r_c² + 6ρ² r_c + 6ρ³) + 2C/r_c³].
  static TailTerms tail(const Coefficients& c, double rc, double n_i, double n_j) {
    const double rho1 = c[kRho], rho2 = rho1 * rho1, rho3 = rho2 * rho1;
    const double rc2 = rc * rc, rc3 = rc2 * rc;
    const double e = std::exp(-rc / rho1);
    return {2.0 * std::numbers::pi * n_i * n_j *
                (c[kA] * e * rho1 * (rc2 + 2.0 * rho1 * rc + 2.0 * rho2) - c[kC] / (3.0 * rc3)),
            (-1 / 3.0) * 2.0 * std::numbers::pi * n_i * n_j *
                (-c[kA] * e * (rc3 + 3.0 * rho1 * rc2 + 6.0 * rho2 * rc + 6.0 * rho3) +
                 2.0 * c[kC] / rc3)};
  }

  // τ = ρ √(m/A): crossing the repulsion's decay length at the speed its energy gives.
  using TimeUnit = StyleTimeUnit<3>;
  static TimeUnit time_unit(const Coefficients& c, double mass) {
    if (!(c[kA] > 0.0)) return {INFINITY, {0, 0, 0}, ""};
    const double tau = c[kRho] * std::sqrt(mass / c[kA]);
    return {tau,
            {0.5 * std::log10(c[kA]), -std::log10(c[kRho]), 0.0},
            fmt::format("the Buckingham time unit tau = rho sqrt(m/a) = {:.3g}", tau)};
  }
  static std::string time_unit_values(const Coefficients& c, double mass) {
    return fmt::format("a = {}, rho = {}, m = {}", c[kA], c[kRho], mass);
  }

  // The repulsion's decay length ρ sets the core an interacting pair must not cross in a step.
  static double core_size(const Coefficients& c) {
    return c[kA] > 0.0 ? c[kRho] : INFINITY;
  }

  static std::string overflow_cause(double r, const Coefficients& c, const std::string& terms) {
    return fmt::format(
        ": the particles overlap (r = {:.3g} = {:.3g} rho, {}); the time step is "
        "too large, or the start puts them too close (a Buckingham pair collapses "
        "below the maximum of its energy)",
        r, r / c[kRho], terms);
  }
#endif
};

}  // namespace scanmd
