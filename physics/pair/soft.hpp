// Soft cosine repulsion (LAMMPS pair_style soft cutoff; pair_coeff i j A [cutoff]), the push-off
// potential that separates overlapping particles before a run:
//
//   U(r)   = A [1 + cos(π r / r_c)],                     r < r_c
//   F(r)/r = A (π / r_c) sin(π r / r_c) / r
// As LAMMPS computes it, with sin and cos from det::sin_cos (physics/pair/det_math.hpp): the same
// bits on every backend. U is zero at r_c by construction (potential.shift changes nothing). A
// mixes geometrically, the cutoff by the rule. Two particles exactly on top of each other (r = 0)
// have no direction to push: an error, not LAMMPS's zero force. The evaluator contract is in
// pair_style.hpp.
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

struct Soft : NoStyleKeys {
  static constexpr std::string_view kName = "soft";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 1> kCoefficients{"a"};
  static constexpr std::array<double, 1> kDefaults{kRequired};
  static constexpr std::array<CoefficientDomain, 1> kDomains{CoefficientDomain::NonNegative};
  static constexpr std::array<Dimension, 1> kDimensions{Dimension::Energy};
  static constexpr std::array<double, 1> kExample{10.0};
  static constexpr std::string_view kDoc =
      "Soft cosine repulsion (LAMMPS `soft`, `pair_coeff i j a`), the push-off potential that "
      "separates overlapping particles: U = a [1 + cos(π r / r_c)], zero at r_c by "
      "construction; 2a below 2^22. `a` mixes geometrically. Two particles exactly on top of "
      "each other have no direction to push: an error.";
  static constexpr bool kMixing = true, kShift = false, kTail = false, kVector = true;
  enum : int { kA = 0 };

  struct Params {
    double a;
    double pi_over_cut;  // π / r_c
    double cutoff_sq;
  };

  static Params make(const Coefficients& c, double cutoff, bool) {
    constexpr double kPi = 3.14159265358979323846;
    return {c[kA], kPi / cutoff, cutoff * cutoff};
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    using det::sqrt_of;
    const R r = sqrt_of(r2);
    R s, c;
    det::sin_cos(r * R(p.pi_over_cut), s, c);
    return {R(p.a) * s * R(p.pi_over_cut) / r, R(p.a) * (R(1.0) + c)};
  }

#if !defined(__CUDACC__)
  static Coefficients mix(Mixing, const Coefficients& a, const Coefficients& b) {
    Coefficients m{};
    m[kA] = std::sqrt(a[kA] * b[kA]);
    return m;
  }
  static std::optional<CoefficientProblem> check(const Coefficients& c, double,
                                                 const std::string& types) {
    if (!(c[kA] < 2097152.0))  // U(0) = 2A must fit the fixed point's 2^22
      return CoefficientProblem{kA, fmt::format("a = {:.6g}{} is beyond the 64-bit fixed point of "
                                                "the energies (2a must stay below 2^22)",
                                                c[kA], types)};
    return std::nullopt;
  }
  // No core: a soft pair is meant to be pushed through (no time unit or speed check).
  using TimeUnit = StyleTimeUnit<1>;
  static TimeUnit time_unit(const Coefficients&, double) {
    return {INFINITY, {0}, ""};
  }
  static std::string time_unit_values(const Coefficients&, double) {
    return "";
  }
  static double core_size(const Coefficients&) {
    return INFINITY;
  }
  static std::string overflow_cause(double r, const Coefficients&, const std::string& terms) {
    return fmt::format(
        ": {} at r = {:.3g}: two particles on top of each other have no direction "
        "to be pushed apart",
        terms, r);
  }
#endif
};

}  // namespace scanmd
