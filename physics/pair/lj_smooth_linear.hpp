// Lennard-Jones, shifted force (LAMMPS pair_style lj/smooth/linear cutoff; pair_coeff i j ε σ
// [cutoff]): both the energy and the force go to zero at r_c,
//
//   U(r)   = U_LJ(r) − U_LJ(r_c) − (r − r_c) U'_LJ(r_c),      r < r_c
//   F(r)/r = [F_LJ(r) − F_LJ(r_c)] / r
// As LAMMPS computes it: rinv = √(1/r²), F/r = (rinv r⁻⁶ (lj1 r⁻⁶ − lj2) − dljcut) rinv, and
// U = r⁻⁶ (lj3 r⁻⁶ − lj4) − ljcut + (r − r_c) dljcut with r = √r². ε, σ and the cutoff mix as
// for lj. The evaluator contract is in pair_style.hpp.
#pragma once

#include <array>
#include <cmath>
#include <string_view>

#include "physics/pair/det_math.hpp"
#include "physics/pair/lj_cut.hpp"
#include "physics/pair/pair_style.hpp"

#if !defined(__CUDACC__)
#include <optional>
#include <string>
#endif

namespace scanmd {

struct LJSmoothLinear : NoStyleKeys {
  static constexpr std::string_view kName = "lj/smooth/linear";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 2> kCoefficients{"epsilon", "sigma"};
  static constexpr std::array<double, 2> kDefaults{1.0, 1.0};
  static constexpr std::array<CoefficientDomain, 2> kDomains{CoefficientDomain::NonNegative,
                                                             CoefficientDomain::Positive};
  static constexpr std::array<Dimension, 2> kDimensions{Dimension::Energy, Dimension::Length};
  static constexpr std::array<double, 2> kExample{0.5, 0.88};
  static constexpr std::string_view kDoc =
      "Lennard-Jones, shifted force (LAMMPS `lj/smooth/linear`): U(r) = U_LJ(r) − U_LJ(r_c) − "
      "(r − r_c) U′_LJ(r_c) for r < r_c, so that U and F both go to zero at r_c; `epsilon` and "
      "`sigma`, their limits and their mixing as `lj`.";
  // Shifted by construction (potential.shift changes nothing); no tail (nothing beyond r_c).
  static constexpr bool kMixing = true, kShift = false, kTail = false, kVector = true;

  struct Params {
    double lj1, lj2, lj3, lj4;
    double cut, ljcut, dljcut;  // r_c, U_LJ(r_c), −U'_LJ(r_c)
    double cutoff_sq;
  };

  // The constants at r_c once, on the host (libm's pow is fine here: every backend gets these
  // numbers, not its own).
  static Params make(const Coefficients& c, double cutoff, bool) {
    const LJCut::Params lj = LJCut::make(c, cutoff, false);
    Params p{lj.lj1, lj.lj2, lj.lj3, lj.lj4, cutoff, 0.0, 0.0, cutoff * cutoff};
    const double cut6inv = std::pow(cutoff, -6.0), cutinv = 1.0 / cutoff;
    p.ljcut = cut6inv * (p.lj3 * cut6inv - p.lj4);
    p.dljcut = cutinv * cut6inv * (p.lj1 * cut6inv - p.lj2);
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    using det::sqrt_of;
    const R r2inv = R(1.0) / r2;
    const R r6inv = r2inv * r2inv * r2inv;
    const R rinv = sqrt_of(r2inv);
    const R forcelj = rinv * (r6inv * (R(p.lj1) * r6inv - R(p.lj2))) - R(p.dljcut);
    const R r = sqrt_of(r2);
    return {forcelj * rinv,
            r6inv * (R(p.lj3) * r6inv - R(p.lj4)) - R(p.ljcut) + (r - R(p.cut)) * R(p.dljcut)};
  }

#if !defined(__CUDACC__)
  static Coefficients mix(Mixing rule, const Coefficients& a, const Coefficients& b) {
    return LJCut::mix(rule, a, b);
  }
  static std::optional<CoefficientProblem> check(const Coefficients& c, double cutoff,
                                                 const std::string& types) {
    return LJCut::check(c, cutoff, types);
  }
  using TimeUnit = StyleTimeUnit<2>;
  static TimeUnit time_unit(const Coefficients& c, double mass) {
    return LJCut::time_unit(c, mass);
  }
  static std::string time_unit_values(const Coefficients& c, double mass) {
    return LJCut::time_unit_values(c, mass);
  }
  static double core_size(const Coefficients& c) {
    return LJCut::core_size(c);
  }
  static std::string overflow_cause(double r, const Coefficients& c, const std::string& terms) {
    return LJCut::overflow_cause(r, c, terms);
  }
#endif
};

}  // namespace scanmd
