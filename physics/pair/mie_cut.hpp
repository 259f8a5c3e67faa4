// Mie γr-γa (LAMMPS pair_style mie/cut cutoff; pair_coeff i j ε σ γr γa [cutoff]), the
// generalised Lennard-Jones of SAFT-γ coarse-grained models:
//
//   U(r)   = C ε [(σ/r)^γr − (σ/r)^γa] − U_shift,   C = γr/(γr − γa) (γr/γa)^(γa/(γr − γa))
//   F(r)/r = C ε [γr σ^γr r^−γr − γa σ^γa r^−γa] / r²
// As LAMMPS computes it: r⁻² first, rgamR = (r⁻²)^(γr/2), rgamA = (r⁻²)^(γa/2), F/r =
// (mie1 rgamR − mie2 rgamA) r⁻², U = mie3 rgamR − mie4 rgamA − offset, the constants made once on
// the host (libm there is fine: every backend gets these numbers). The powers in the pair loop are
// det::pow (physics/pair/det_math.hpp), so every backend gets the same bits. ε mixes
// geometrically, σ, γr, γa and the cutoff by the rule (LAMMPS init_one); tail corrections as
// LAMMPS's. The evaluator contract is in pair_style.hpp.
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

struct MieCut : NoStyleKeys {
  static constexpr std::string_view kName = "mie/cut";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 4> kCoefficients{"epsilon", "sigma", "gamma_r",
                                                                 "gamma_a"};
  static constexpr std::array<double, 4> kDefaults{kRequired, kRequired, kRequired, kRequired};
  static constexpr std::array<CoefficientDomain, 4> kDomains{
      CoefficientDomain::NonNegative, CoefficientDomain::Positive, CoefficientDomain::Positive,
      CoefficientDomain::Positive};
  static constexpr std::array<Dimension, 4> kDimensions{Dimension::Energy, Dimension::Length,
                                                        Dimension::None, Dimension::None};
  static constexpr std::array<double, 4> kExample{1.0, 1.0, 14.0, 6.5};
  static constexpr std::string_view kDoc =
      "Mie γr–γa (LAMMPS `mie/cut`, `pair_coeff i j epsilon sigma gamma_r gamma_a`), the "
      "generalised Lennard-Jones of SAFT-γ coarse-grained models: U = C ε [(σ/r)^γr − "
      "(σ/r)^γa], C = γr/(γr−γa) (γr/γa)^(γa/(γr−γa)); `gamma_r` > `gamma_a` > 3, `epsilon` "
      "below 2^22. Mixing takes ε geometrically, σ and both exponents by the rule.";
  static constexpr bool kMixing = true, kShift = true, kTail = true, kVector = true;
  enum : int { kEpsilon = 0, kSigma = 1, kGammaR = 2, kGammaA = 3 };

  struct Params {
    double half_gamma_r, half_gamma_a;
    double mie1, mie2, mie3, mie4;
    double cutoff_sq;
    double offset;  // U(r_c) when shifted, else 0
  };

  // C = γr/(γr − γa) (γr/γa)^(γa/(γr − γa)).
  static double prefactor(double gr, double ga) {
    return gr / (gr - ga) * std::pow(gr / ga, ga / (gr - ga));
  }

  static Params make(const Coefficients& c, double cutoff, bool shift) {
    const double eps = c[kEpsilon], sig = c[kSigma], gr = c[kGammaR], ga = c[kGammaA];
    const double C = prefactor(gr, ga);
    Params p{};
    p.half_gamma_r = gr / 2.0;
    p.half_gamma_a = ga / 2.0;
    p.mie1 = C * gr * eps * std::pow(sig, gr);
    p.mie2 = C * ga * eps * std::pow(sig, ga);
    p.mie3 = C * eps * std::pow(sig, gr);
    p.mie4 = C * eps * std::pow(sig, ga);
    p.cutoff_sq = cutoff * cutoff;
    if (shift) {
      const double ratio = sig / cutoff;
      p.offset = C * eps * (std::pow(ratio, gr) - std::pow(ratio, ga));
    }
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    const R r2inv = R(1.0) / r2;
    const R rgam_a = det::pow(r2inv, R(p.half_gamma_a));
    const R rgam_r = det::pow(r2inv, R(p.half_gamma_r));
    return {(R(p.mie1) * rgam_r - R(p.mie2) * rgam_a) * r2inv,
            (R(p.mie3) * rgam_r - R(p.mie4) * rgam_a) - R(p.offset)};
  }

#if !defined(__CUDACC__)
  // ε: √(ε_i ε_j) in both rules (LAMMPS mix_energy); σ, γr, γa: the rule's mean.
  static Coefficients mix(Mixing rule, const Coefficients& a, const Coefficients& b) {
    auto mean = [&](int k) {
      return rule == Mixing::Arithmetic ? 0.5 * (a[k] + b[k]) : std::sqrt(a[k] * b[k]);
    };
    Coefficients m{};
    m[kEpsilon] = std::sqrt(a[kEpsilon] * b[kEpsilon]);
    m[kSigma] = mean(kSigma);
    m[kGammaR] = mean(kGammaR);
    m[kGammaA] = mean(kGammaA);
    return m;
  }

  // γr > γa > 3 (a bounded well and a finite tail), ε below the fixed point's 2^22.
  static std::optional<CoefficientProblem> check(const Coefficients& c, double,
                                                 const std::string& types) {
    if (!(c[kGammaR] > c[kGammaA]))
      return CoefficientProblem{
          kGammaR, fmt::format("gamma_r = {} must exceed gamma_a = {}{} (the repulsion must win "
                               "at short range)",
                               c[kGammaR], c[kGammaA], types)};
    if (!(c[kGammaA] > 3.0))
      return CoefficientProblem{
          kGammaA, fmt::format("gamma_a = {}{} must exceed 3 (a cut Mie potential needs a "
                               "finite tail)",
                               c[kGammaA], types)};
    if (!(c[kEpsilon] < 4194304.0))
      return CoefficientProblem{
          kEpsilon, fmt::format("epsilon = {:.6g}{} is beyond the 64-bit fixed point of the "
                                "energies (below 2^22)",
                                c[kEpsilon], types)};
    return std::nullopt;
  }

  // LAMMPS mie/cut's correction for n_i, n_j particles:
  // e = 2π C n_i n_j ε [σ^γr / ((γr − 3) r_c^(γr−3)) − σ^γa / ((γa − 3) r_c^(γa−3))],
  // p = (2π/3) C n_i n_j ε [γr/(γr − 3) σ^γr / r_c^(γr−3) − γa/(γa − 3) σ^γa / r_c^(γa−3)].
  static TailTerms tail(const Coefficients& c, double rc, double n_i, double n_j) {
    const double gr = c[kGammaR], ga = c[kGammaA], eps = c[kEpsilon], sig = c[kSigma];
    const double C = prefactor(gr, ga);
    const double sga = std::pow(sig, ga), sgr = std::pow(sig, gr);
    const double rca = std::pow(rc, ga - 3.0), rcr = std::pow(rc, gr - 3.0);
    return {C * 2.0 * std::numbers::pi * n_i * n_j * eps *
                (sgr / ((gr - 3.0) * rcr) - sga / ((ga - 3.0) * rca)),
            C * 2.0 * std::numbers::pi * n_i * n_j * eps / 3.0 *
                ((gr / (gr - 3.0)) * sgr / rcr - (ga / (ga - 3.0)) * sga / rca)};
  }

  // τ = σ √(m/ε), as for lj.
  using TimeUnit = StyleTimeUnit<4>;
  static TimeUnit time_unit(const Coefficients& c, double mass) {
    if (!(c[kEpsilon] > 0.0)) return {INFINITY, {0, 0, 0, 0}, ""};
    const double tau = c[kSigma] * std::sqrt(mass / c[kEpsilon]);
    return {tau,
            {0.5 * std::log10(c[kEpsilon]), -std::log10(c[kSigma]), 0, 0},
            fmt::format("the Mie time unit tau = sigma sqrt(m/epsilon) = {:.3g}", tau)};
  }
  static std::string time_unit_values(const Coefficients& c, double mass) {
    return fmt::format("sigma = {}, m = {}, epsilon = {}", c[kSigma], mass, c[kEpsilon]);
  }
  static double core_size(const Coefficients& c) {
    return c[kEpsilon] > 0.0 ? c[kSigma] : INFINITY;
  }
  static std::string overflow_cause(double r, const Coefficients& c, const std::string& terms) {
    if (r < 0.8 * c[kSigma])
      return fmt::format(
          ": the particles overlap (r = {:.3g} σ, {}); the time step is too "
          "large, or the start puts them too close",
          r / c[kSigma], terms);
    return fmt::format(": {}: epsilon = {:.6g} is too large for the 64-bit fixed point", terms,
                       c[kEpsilon]);
  }
#endif
};

}  // namespace scanmd
