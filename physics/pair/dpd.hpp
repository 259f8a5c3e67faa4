// Dissipative particle dynamics (LAMMPS pair_style dpd T rc seed; pair_coeff i j a gamma [rc]),
// Groot & Warren, J. Chem. Phys. 107, 4423 (1997): with w(r) = 1 − r/r_c and r̂ = d/r,
//
//   F_ij = [a w − γ w² (r̂·v_ij) + σ w θ_ij / √dt] r̂,   σ² = 2 γ k_B T,   r < r_c
//   U(r) = a r_c w² / 2                                  (the conservative part's, as LAMMPS)
// v_ij = v_i − v_j at the velocities the force computes see (velocity Verlet's half step, as
// LAMMPS), θ_ij the pair's random number of the step (physics/pair/pair_noise.hpp: uniform, zero
// mean, unit variance; keyed by (seed, step, min id, max id)). The virial is the whole force's
// (r·F, as LAMMPS). Pairs closer than 1e-10 exert nothing (LAMMPS skips them: no direction).
// DPDTstat (LAMMPS pair_style dpd/tstat; pair_coeff i j gamma [rc]) is the same without the
// conservative part: a thermostat on top of another pair style. The evaluator contract is in
// pair_style.hpp (kPairMotion).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "physics/pair/det_math.hpp"
#include "physics/pair/pair_style.hpp"

#if !defined(__CUDACC__)
#include <optional>
#include <string>

#include <fmt/format.h>
#endif

namespace scanmd {

// The part common to both styles: Params, make (γ at kGamma, T and seed at kT, kSeed) and eval.
template <int kA, int kGamma, int kT, int kSeed>
struct DPDTerms : NoStringKeys {
  static constexpr bool kMixing = false, kShift = false, kTail = false, kVector = false;
  static constexpr bool kPairMotion = true;
  // Both styles' style-level keys: the thermostat's temperature and the random numbers' seed.
  static constexpr std::array<std::string_view, 2> kGlobals{"temperature", "seed"};
  static constexpr std::array<double, 2> kGlobalDefaults{kRequired, kRequired};
  static constexpr std::array<CoefficientDomain, 2> kGlobalDomains{CoefficientDomain::NonNegative,
                                                                   CoefficientDomain::NonNegative};
  static constexpr std::array<Dimension, 2> kGlobalDimensions{Dimension::Temperature,
                                                              Dimension::None};
  static constexpr std::array<double, 2> kGlobalExample{1.0, 8761.0};

  struct Params {
    double a;  // 0 for dpd/tstat
    double gamma;
    double noise;  // σ / √dt
    double cutoff, inv_cutoff;
    double cutoff_sq;
    std::uint64_t seed;
  };

  static Params make(const Coefficients& c, double cutoff, bool, MotionConstants m = {}) {
    const double a = kA >= 0 ? c[kA >= 0 ? kA : 0] : 0.0;
    const double sigma = std::sqrt(2.0 * m.boltz * c[kT] * c[kGamma]);
    const double noise = m.dt > 0.0 ? sigma / std::sqrt(m.dt) : 0.0;
    return {a,
            c[kGamma],
            noise,
            cutoff,
            1.0 / cutoff,
            cutoff * cutoff,
            static_cast<std::uint64_t>(c[kSeed])};
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    return eval(r2, p, PairMotion<R>{R(0.0), R(0.0)});
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p, PairMotion<R> m) {
    using det::sqrt_of;
    const R r = sqrt_of(r2);
    if (!(r >= R(1e-10))) return {R(0.0), R(0.0)};  // LAMMPS's EPSILON: no direction
    const R rinv = R(1.0) / r;
    const R w = R(1.0) - r * R(p.inv_cutoff);
    R f = R(p.a) * w;
    f = f - R(p.gamma) * w * w * m.dvd * rinv;
    f = f + R(p.noise) * w * m.theta;
    return {f * rinv, R(0.5) * R(p.a) * R(p.cutoff) * w * w};
  }

#if !defined(__CUDACC__)
  static Coefficients mix(Mixing, const Coefficients&, const Coefficients&) {
    return {};  // kMixing = false: never called
  }
  // The seed is a counter key: an integer of 53 bits at most (a double holds it exactly).
  static std::optional<CoefficientProblem> check(const Coefficients& c, double,
                                                 const std::string& types) {
    const double s = c[kSeed];
    if (!(s >= 0.0 && s < 9007199254740992.0 && std::floor(s) == s))
      return CoefficientProblem{kSeed, fmt::format("seed = {:.17g}{} must be an integer from 0 "
                                                   "to 2^53 − 1",
                                                   s, types)};
    if (kA >= 0 && !(std::fabs(c[kA >= 0 ? kA : 0]) < 2097152.0))
      return CoefficientProblem{kA >= 0 ? kA : 0,
                                fmt::format("a = {:.6g}{} is beyond the 64-bit fixed point of the "
                                            "energies (|a| r_c / 2 must stay below 2^22)",
                                            c[kA >= 0 ? kA : 0], types)};
    return std::nullopt;
  }
  // Soft: no core, no LJ-like time unit (the run.dt check has nothing to say).
  using TimeUnit = StyleTimeUnit<kA >= 0 ? 2 : 1>;
  static TimeUnit time_unit(const Coefficients&, double) {
    return {INFINITY, {}, ""};
  }
  static std::string time_unit_values(const Coefficients&, double) {
    return "";
  }
  static double core_size(const Coefficients&) {
    return INFINITY;
  }
  static std::string overflow_cause(double r, const Coefficients&, const std::string& terms) {
    return fmt::format(
        ": {} at r = {:.3g}: the relative velocity of the pair is too large for "
        "its friction (a time step too large?)",
        terms, r);
  }
#endif
};

struct DPD : DPDTerms<0, 1, 2, 3> {
  static constexpr std::string_view kName = "dpd";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 2> kCoefficients{"a", "gamma"};
  static constexpr std::array<double, 2> kDefaults{kRequired, kRequired};
  static constexpr std::array<CoefficientDomain, 2> kDomains{CoefficientDomain::Any,
                                                             CoefficientDomain::NonNegative};
  static constexpr std::array<Dimension, 2> kDimensions{Dimension::Force, Dimension::Friction};
  static constexpr std::array<double, 2> kExample{25.0, 4.5};
  static constexpr std::string_view kDoc =
      "Dissipative particle dynamics (LAMMPS `dpd`: `pair_style dpd T rc seed`, `pair_coeff i j "
      "a gamma`), Groot–Warren: with w = 1 − r/r_c, F = [a w − γ w² (r̂·v_ij) + σ w θ_ij/√dt] r̂, "
      "σ² = 2 γ k_B T, U = a r_c w²/2. θ_ij is the pair's random number of the step, a function "
      "of (`seed`, step, the two ids) only, so runs are bitwise identical across rank counts, "
      "decompositions, backends and restarts (see docs/dpd.md); v_ij is taken at velocity "
      "Verlet's half step, as LAMMPS does. `temperature` = T, `seed` an integer below 2^53; "
      "|a| below 2^22. Every pair of types is listed (no mixing).";
};

struct DPDTstat : DPDTerms<-1, 0, 1, 2> {
  static constexpr std::string_view kName = "dpd/tstat";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 1> kCoefficients{"gamma"};
  static constexpr std::array<double, 1> kDefaults{kRequired};
  static constexpr std::array<CoefficientDomain, 1> kDomains{CoefficientDomain::NonNegative};
  static constexpr std::array<Dimension, 1> kDimensions{Dimension::Friction};
  static constexpr std::array<double, 1> kExample{4.5};
  static constexpr std::string_view kDoc =
      "The dissipative and random forces of `dpd` alone (LAMMPS `dpd/tstat`, `pair_coeff i j "
      "gamma`): a pairwise, momentum-conserving thermostat at `temperature`. Usually not a "
      "potential.style of its own but `thermostat.style = \"dpd/tstat\"` on top of any pair "
      "style (see docs/dpd.md).";
};

}  // namespace scanmd
