// Yukawa, screened Coulomb (LAMMPS pair_style yukawa kappa cutoff; pair_coeff i j A [cutoff]):
//
//   U(r)   = A e^(−κr) / r − U_shift,                 r < r_c
//   F(r)/r = A e^(−κr) (κ + 1/r) / r²
// κ is the style's (potential.kappa), A per pair; unlike pairs mix A geometrically in both rules
// (LAMMPS mix_energy with unit lengths) and the cutoff by the rule. The square root is IEEE and
// the exponential det::exp (physics/pair/det_math.hpp): the same bits on every backend. The
// evaluator contract is in pair_style.hpp.
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

struct Yukawa : NoStringKeys {
  static constexpr std::string_view kName = "yukawa";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 1> kCoefficients{"a"};
  static constexpr std::array<double, 1> kDefaults{kRequired};
  static constexpr std::array<CoefficientDomain, 1> kDomains{CoefficientDomain::Any};
  static constexpr std::array<Dimension, 1> kDimensions{Dimension::EnergyLength};
  static constexpr std::array<double, 1> kExample{1.0};
  static constexpr std::string_view kDoc =
      "Yukawa, screened Coulomb (LAMMPS `yukawa`: `pair_style yukawa kappa rc`, `pair_coeff i j "
      "a`): U = a e^(−κr)/r, `a` the strength (|a| below 2^22), `kappa` = κ the inverse "
      "screening length. `a` mixes geometrically.";
  static constexpr std::array<std::string_view, 1> kGlobals{"kappa"};
  static constexpr std::array<double, 1> kGlobalDefaults{kRequired};
  static constexpr std::array<CoefficientDomain, 1> kGlobalDomains{CoefficientDomain::NonNegative};
  static constexpr std::array<Dimension, 1> kGlobalDimensions{Dimension::InverseLength};
  static constexpr std::array<double, 1> kGlobalExample{2.0};
  static constexpr bool kMixing = true, kShift = true, kTail = false, kVector = true;
  enum : int { kA = 0, kKappa = 1 };

  struct Params {
    double a, kappa;
    double cutoff_sq;
    double offset;  // U(r_c) when shifted, else 0
  };

  static Params make(const Coefficients& c, double cutoff, bool shift) {
    Params p{c[kA], c[kKappa], cutoff * cutoff, 0.0};
    if (shift) p.offset = eval(p.cutoff_sq, p).energy;
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    using det::sqrt_of;
    const R r2inv = R(1.0) / r2;
    const R r = sqrt_of(r2);
    const R rinv = R(1.0) / r;
    const R screening = det::exp(R(-p.kappa) * r);
    return {R(p.a) * screening * (R(p.kappa) + rinv) * r2inv,
            R(p.a) * screening * rinv - R(p.offset)};
  }

#if !defined(__CUDACC__)
  static Coefficients mix(Mixing, const Coefficients& a, const Coefficients& b) {
    Coefficients m{};
    m[kA] = std::sqrt(a[kA] * b[kA]);
    return m;
  }

  // One pair's energy at the closest distance a step is likely to see (0.1/κ, or 0.05 without
  // screening) must stay inside the fixed point (2^22 energy units).
  static std::optional<CoefficientProblem> check(const Coefficients& c, double,
                                                 const std::string& types) {
    if (!(std::fabs(c[kA]) < 4194304.0))
      return CoefficientProblem{kA, fmt::format("a = {:.6g}{} is beyond the 64-bit fixed point of "
                                                "the energies (|a| must stay below 2^22)",
                                                c[kA], types)};
    return std::nullopt;
  }

  // τ = (1/κ) √(m / (|A| κ)): crossing the screening length at the speed the energy |A|κ gives;
  // without screening (κ = 0) no time unit is checked.
  using TimeUnit = StyleTimeUnit<1>;
  static TimeUnit time_unit(const Coefficients& c, double mass) {
    const double energy = std::fabs(c[kA]) * c[kKappa];
    if (!(energy > 0.0)) return {INFINITY, {0}, ""};
    const double tau = std::sqrt(mass / energy) / c[kKappa];
    return {tau,
            {0.5 * std::log10(std::fabs(c[kA]))},
            fmt::format("the Yukawa time unit tau = sqrt(m/(|a| kappa))/kappa = {:.3g}", tau)};
  }
  static std::string time_unit_values(const Coefficients& c, double mass) {
    return fmt::format("a = {}, kappa = {}, m = {}", c[kA], c[kKappa], mass);
  }

  // A repulsive Yukawa pair (a > 0) diverges at r = 0 within the screening length 1/κ (1 when
  // unscreened); an attractive one has no core to cross.
  static double core_size(const Coefficients& c) {
    if (!(c[kA] > 0.0)) return INFINITY;
    return c[kKappa] > 0.0 ? 1.0 / c[kKappa] : 1.0;
  }

  static std::string overflow_cause(double r, const Coefficients& c, const std::string& terms) {
    return fmt::format(
        ": the particles overlap (r = {:.3g}, a = {:.6g}, {}); the time step is "
        "too large, or the start puts them too close",
        r, c[kA], terms);
  }
#endif
};

}  // namespace scanmd
