// Morse (LAMMPS pair_style morse: pair_coeff i j D0 alpha r0 [cutoff]):
//
//   U(r)   = D0 [e^(−2α(r − r0)) − 2 e^(−α(r − r0))] − U_shift,      r < r_c
//   F(r)/r = 2 D0 α [e^(−2α(r − r0)) − e^(−α(r − r0))] / r
// As LAMMPS computes it: r = √r², dexp = exp(−α (r − r0)), fpair = morse1 (dexp² − dexp) / r
// with morse1 = 2 D0 α, U = D0 (dexp² − 2 dexp) − offset. The square root is IEEE (correctly
// rounded everywhere) and the exponential det::exp (physics/pair/det_math.hpp), so the host,
// its vector kernels and the device agree to the bit. No mixing rule (as LAMMPS: every pair of
// types is listed). The evaluator contract is in pair_style.hpp.
#pragma once

#include <array>
#include <cmath>
#include <string_view>

#include "physics/pair/det_math.hpp"
#include "physics/pair/pair_style.hpp"

#if !defined(__CUDACC__)
#include <optional>
#include <string>

#include <fmt/format.h>
#endif

namespace scanmd {

struct Morse : NoStyleKeys {
  static constexpr std::string_view kName = "morse";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 3> kCoefficients{"d0", "alpha", "r0"};
  static constexpr std::array<double, 3> kDefaults{kRequired, kRequired, kRequired};
  static constexpr std::array<CoefficientDomain, 3> kDomains{
      CoefficientDomain::NonNegative, CoefficientDomain::Positive, CoefficientDomain::NonNegative};
  static constexpr std::array<Dimension, 3> kDimensions{Dimension::Energy, Dimension::InverseLength,
                                                        Dimension::Length};
  static constexpr std::array<double, 3> kExample{1.0, 5.0, 1.0};
  static constexpr std::string_view kDoc =
      "Morse (LAMMPS `morse`, `pair_coeff i j d0 alpha r0`): U = d0 [e^(−2α(r−r0)) − "
      "2e^(−α(r−r0))], `d0` the well depth, `alpha` = α its stiffness, `r0` the distance of its "
      "minimum. `d0` below 2^22 (the fixed point), `alpha`·`r0` below 350 (the repulsion at "
      "r = 0 stays a double).";
  static constexpr bool kMixing = false, kShift = true, kTail = false, kVector = true;
  enum : int { kD0 = 0, kAlpha = 1, kR0 = 2 };

  struct Params {
    double d0, alpha, r0, morse1;
    double cutoff_sq;
    double offset;  // U(r_c) when shifted, else 0
  };

  static Params make(const Coefficients& c, double cutoff, bool shift) {
    Params p{c[kD0], c[kAlpha], c[kR0], 2.0 * c[kD0] * c[kAlpha], cutoff * cutoff, 0.0};
    if (shift) p.offset = eval(p.cutoff_sq, p).energy;
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    using det::sqrt_of;
    const R r = sqrt_of(r2);
    const R dexp = det::exp(R(-p.alpha) * (r - R(p.r0)));
    return {R(p.morse1) * (dexp * dexp - dexp) / r,
            R(p.d0) * (dexp * dexp - R(2.0) * dexp) - R(p.offset)};
  }

#if !defined(__CUDACC__)
  // The deepest energy is −D0: one pair's term must stay below 2^22 energy units (fixed point).
  static std::optional<CoefficientProblem> check(const Coefficients& c, double cutoff,
                                                 const std::string& types) {
    constexpr double kMaxEnergy = 4194304.0;  // 2^22
    if (!(c[kD0] < kMaxEnergy))
      return CoefficientProblem{
          kD0, fmt::format("d0 = {:.6g}{} is beyond the 64-bit fixed point of the energies: a "
                           "pair at its minimum has U = -d0, and one pair's term must stay "
                           "below 2^22 = 4194304",
                           c[kD0], types)};
    // At r = 0 the repulsion is D0 e^(2 α r0): beyond e^700 it is not a double.
    if (!(c[kAlpha] * c[kR0] < 350.0))
      return CoefficientProblem{
          kAlpha, fmt::format("alpha * r0 = {:.6g}{}: the repulsion D0 exp(2 alpha (r0 - r)) "
                              "leaves the doubles near r = 0; alpha * r0 must stay below 350",
                              c[kAlpha] * c[kR0], types)};
    if (!(cutoff > 0.0)) return CoefficientProblem{kCutoffIndex, "cutoff must be > 0"};
    return std::nullopt;
  }

  // τ = √(m/D0)/α: the time a particle of mass m takes to cross the well's width 1/α at the
  // speed √(D0/m); infinite without an interaction.
  using TimeUnit = StyleTimeUnit<3>;
  static TimeUnit time_unit(const Coefficients& c, double mass) {
    if (!(c[kD0] > 0.0)) return {INFINITY, {0, 0, 0}, ""};
    const double tau = std::sqrt(mass / c[kD0]) / c[kAlpha];
    return {tau,
            {0.5 * std::log10(c[kD0]), std::log10(c[kAlpha]), 0.0},
            fmt::format("the Morse time unit tau = sqrt(m/d0)/alpha = {:.3g}", tau)};
  }
  static std::string time_unit_values(const Coefficients& c, double mass) {
    return fmt::format("d0 = {}, alpha = {}, m = {}", c[kD0], c[kAlpha], mass);
  }

  // The repulsive core: below the well at r0 (an interacting pair).
  static double core_size(const Coefficients& c) {
    return c[kD0] > 0.0 ? c[kR0] : INFINITY;
  }

  static std::string overflow_cause(double r, const Coefficients& c, const std::string& terms) {
    if (r < 0.8 * c[kR0])
      return fmt::format(
          ": the particles overlap (r = {:.3g} r0, {}); the time step is too large, or the "
          "start puts them too close",
          r / c[kR0], terms);
    return fmt::format(
        ": {}: d0 = {:.6g} is too large for the 64-bit fixed point of forces and "
        "energies",
        terms, c[kD0]);
  }
#endif
};

}  // namespace scanmd
