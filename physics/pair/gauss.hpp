// Gaussian (LAMMPS pair_style gauss cutoff; pair_coeff i j A B [cutoff]): a soft, bounded
// attraction (A > 0) or repulsion (A < 0), the Gaussian-core model:
//
//   U(r)   = −A e^(−B r²) − U_shift,                    r < r_c
//   F(r)/r = −2AB e^(−B r²)
// As LAMMPS computes it: F/r = (−2 A B r² e^(−B r²)) / r². The exponential is det::exp
// (physics/pair/det_math.hpp). No mixing rule here: every pair of types is listed. The evaluator
// contract is in pair_style.hpp.
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

struct Gauss : NoStyleKeys {
  static constexpr std::string_view kName = "gauss";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 2> kCoefficients{"a", "b"};
  static constexpr std::array<double, 2> kDefaults{kRequired, kRequired};
  static constexpr std::array<CoefficientDomain, 2> kDomains{CoefficientDomain::Any,
                                                             CoefficientDomain::Positive};
  static constexpr std::array<Dimension, 2> kDimensions{Dimension::Energy, Dimension::InverseArea};
  static constexpr std::array<double, 2> kExample{-1.0, 1.0};
  static constexpr std::string_view kDoc =
      "Gaussian (LAMMPS `gauss`, `pair_coeff i j a b`): U = −a e^(−b r²), a bounded attraction "
      "for a > 0, the Gaussian-core repulsion for a < 0; |a| below 2^22.";
  static constexpr bool kMixing = false, kShift = true, kTail = false, kVector = true;
  enum : int { kA = 0, kB = 1 };

  struct Params {
    double a, b;
    double cutoff_sq;
    double offset;  // A e^(−B r_c²) when shifted (so U(r_c) = 0), else 0
  };

  static Params make(const Coefficients& c, double cutoff, bool shift) {
    Params p{c[kA], c[kB], cutoff * cutoff, 0.0};
    if (shift) p.offset = -eval(p.cutoff_sq, p).energy;
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    const R r2inv = R(1.0) / r2;
    const R e = det::exp(R(-p.b) * r2);
    return {R(-2.0) * R(p.a) * R(p.b) * r2 * e * r2inv, R(-1.0) * (R(p.a) * e - R(p.offset))};
  }

#if !defined(__CUDACC__)
  // The energy is bounded by |A|: it must fit the fixed point's 2^22 energy units.
  static std::optional<CoefficientProblem> check(const Coefficients& c, double,
                                                 const std::string& types) {
    if (!(std::fabs(c[kA]) < 4194304.0))
      return CoefficientProblem{kA, fmt::format("a = {:.6g}{} is beyond the 64-bit fixed point of "
                                                "the energies (|a| must stay below 2^22)",
                                                c[kA], types)};
    return std::nullopt;
  }

  // τ = √(m/(|A| B)): crossing the width 1/√B at the speed the depth |A| gives.
  using TimeUnit = StyleTimeUnit<2>;
  static TimeUnit time_unit(const Coefficients& c, double mass) {
    const double energy = std::fabs(c[kA]);
    if (!(energy > 0.0)) return {INFINITY, {0, 0}, ""};
    const double tau = std::sqrt(mass / (energy * c[kB]));
    return {tau,
            {0.5 * std::log10(energy), 0.5 * std::log10(c[kB])},
            fmt::format("the Gaussian time unit tau = sqrt(m/(|a| b)) = {:.3g}", tau)};
  }
  static std::string time_unit_values(const Coefficients& c, double mass) {
    return fmt::format("a = {}, b = {}, m = {}", c[kA], c[kB], mass);
  }

  // Bounded at r = 0: particles may pass through each other (the Gaussian core is penetrable).
  static double core_size(const Coefficients&) {
    return INFINITY;
  }

  static std::string overflow_cause(double, const Coefficients& c, const std::string& terms) {
    return fmt::format(
        ": {}: a = {:.6g}, b = {:.6g} are too large for the 64-bit fixed point of "
        "forces and energies",
        terms, c[kA], c[kB]);
  }
#endif
};

}  // namespace scanmd
