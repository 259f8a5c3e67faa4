// What a pair style is: the contract between an evaluator (the physics of one potential, e.g.
// physics/pair/lj_cut.hpp) and the drivers that run it (the host scalar loop and vector kernels,
// engine/pair_forces and engine/pair_rows_*, and the CUDA kernel, engine/cuda/forces.cu). The drivers
// own the neighbour loop, the pair displacement, the cutoff test, the decomposition's pair rule,
// the fixed-point conversion, the overflow bound and report, and the energy split between ranks;
// so every evaluator is bitwise reproducible across ranks, methods, threads and backends for
// free. (HOOMD-blue's EvaluatorPair split; LAMMPS's pair_style names and coefficients.)
//
// An evaluator E is a struct with
//   kName                     the deck's potential.style ("lj")
//   kAliases                  other names of the same style ("lj/cut"), may be empty
//   kCoefficients             the per-pair deck keys besides `cutoff`, in Coefficients order
//   kDefaults                 the values a one-species deck may leave out (NaN: required)
//   kDomains                  what values each coefficient may take (CoefficientDomain)
//   kDimensions               each coefficient's physical dimension (base/dimension.hpp: its
//                             unit in the deck reference)
//   kExample                  values of one pair that run (in LJ units, none at its default):
//                             the deck reference shows them, the deck tests set them
//   kGlobals, kGlobalDefaults, kGlobalDomains, kGlobalDimensions, kGlobalExample (or derive
//                             from NoStyleKeys)
//                             style-level keys of [potential] that every pair shares (Yukawa's
//                             kappa, as LAMMPS's pair_style arguments); in Coefficients after the
//                             per-pair ones, at kCoefficients.size() + g
//   kStrings, kStringGlobals, kStringGlobalDefaults, kStringTypes, kStringExample,
//   kStringGlobalTypes, kStringGlobalExample (or derive from NoStringKeys)
//                             string-valued deck keys: per pair (the table style's file and
//                             keyword) and style-level (its table_style; default "": required);
//                             read by the style's tabulate(), never by eval. For the deck
//                             reference and the deck tests: each one's type column ("string,
//                             path") and a value that runs (a file the tests have)
//   kDoc                      the style in the deck reference (Markdown): U(r), LAMMPS's name,
//                             what each coefficient is and the limits check() enforces; whether
//                             it mixes, shifts and has a tail is printed from the flags below
//   kMixing                   whether unlike pairs may be mixed from like ones (potential.mixing)
//   kShift, kTail             whether potential.shift / potential.tail mean something for it
//   kVector                   whether the AVX-512 / AVX2 kernels run it (eval<R> generic in R)
//                             (run.precision = "mixed" runs Mixed<E>, physics/pair/mixed.hpp: E's
//                             eval<F> with F float or a vector of floats, for the styles listed in
//                             styles.hpp's MixedPairStyles)
//   Params                    the constants of one type pair, made once on the host; its member
//                             cutoff_sq (r_c²) is read by the drivers
//   make(c, cutoff, shift)    Params from the coefficients
//                             Tabulated styles (TabulatedStyle below: Params has `const double*
//                             data`) instead: tabulate(c, strings, cutoff, types) → the pair's
//                             doubles or a StyleKeyProblem (host only), and make(c, cutoff, shift,
//                             data) with data pointing at them inside one array that PairPotential
//                             owns for every pair; the CUDA backend uploads that array once and
//                             rebases each Params' pointer into the device copy
//   eval<R>(r2, params)       PairTerms<R>{F(r)/r, U(r)} for r² < r_c², with R = double (host,
//                             CUDA) or a vector of doubles (engine/simd_*.hpp): only +, −, ×, / and
//                             the shared deterministic functions, so every backend gets the bits
//   kPairMotion               (optional, false when absent) the style also reads the pair's
//                             relative motion and a random number (DPD): its Params carry
//                             `std::uint64_t seed`, make() takes a fourth argument, the run's
//                             MotionConstants (dt, k_B), and the drivers call
//                             eval(r2, params, PairMotion{d·(v_i − v_j), θ_ij}) with θ_ij =
//                             pair_noise(seed, step, id_i, id_j) (physics/pair/pair_noise.hpp):
//                             the same number from either side of the pair, on any rank or
//                             backend. v is the velocity the force computes see (the half step
//                             of velocity Verlet, ghosts' by the field halo). Such styles run on
//                             the scalar host loop (kVector = false) and the CUDA kernel.
// and host-only (not compiled by nvcc):
//   mix(rule, a, b)           the coefficients of an unlike pair from two like pairs
//   check(c, cutoff)          why coefficients cannot run (CoefficientProblem), or nothing
//   time_unit(c, mass)        the style's time unit for the run.dt check (τ of LJ)
//   core_size(c)              the repulsive core particles must not cross in one step (σ of
//                             LJ), infinite for soft or non-interacting pairs (the start's
//                             speed check)
//   tail(c, cutoff, n_i, n_j) the long-range correction of n_i, n_j particles (kTail)
//   overflow_cause(r, c, t)   words for a pair whose term left the fixed point
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "base/dimension.hpp"
#include "kernels/hd.hpp"

namespace scanmd {

// The most per-pair coefficients plus style-level keys a style has (besides the cutoff).
inline constexpr std::size_t kMaxCoefficients = 6;

// One type pair's coefficients, in the order of the style's kCoefficients.
using Coefficients = std::array<double, kMaxCoefficients>;

inline constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();

// The values a coefficient may take (checked before the style's own check()).
enum class CoefficientDomain { Any, NonNegative, Positive };

// F(r)/r (LAMMPS's "fpair": the force on i is fpair·(x_i − x_j)) and U(r).
template <class R>
struct PairTerms {
  R fpair;
  R energy;
};

// What a style with kPairMotion reads of a pair besides r²: dvd = d·(v_i − v_j) (d = x_i − x_j,
// the canonical displacement, so dvd is the same bits from either side) and θ_ij, the pair's
// random number of the step (zero mean, unit variance).
template <class R>
struct PairMotion {
  R dvd;
  R theta;
};

// The run constants a style with kPairMotion is made with: the time step (its random force
// goes as 1/√dt) and k_B in energy per temperature (base/units.hpp).
struct MotionConstants {
  double dt = 0.0;
  double boltz = 1.0;
};

// Whether E reads the pair's motion (kPairMotion, absent in most styles).
template <class E>
concept MotionStyle = requires {
  requires E::kPairMotion;
};

// The constants of every pair of types: entry ti · types + tj (0-based types, symmetric).
// Host code holds it over a std::vector, device code over device memory.
template <class E>
struct PairTable {
  const typename E::Params* params;
  std::uint32_t types;
  SCANMD_HD const typename E::Params& of(std::uint32_t ti, std::uint32_t tj) const {
    return params[ti * types + tj];
  }
};

// How an unlisted unlike pair gets its coefficients (LAMMPS pair_modify mix): ε_ij = √(ε_i ε_j)
// for energies in both rules; lengths √(a_i a_j) (geometric) or (a_i + a_j)/2 (arithmetic).
// None: every pair must be listed.
enum class Mixing { Geometric, Arithmetic, None };

// A coefficient that cannot run: which one (index into kCoefficients; kCutoffIndex for the
// cutoff) and why, in words that follow "potential.<key>: ".
struct CoefficientProblem {
  int coefficient;
  std::string why;
};
inline constexpr int kCutoffIndex = -1;

// The string-valued keys of a style that has none (all but tabulated styles).
struct NoStringKeys {
  static constexpr std::array<std::string_view, 0> kStrings{};
  static constexpr std::array<std::string_view, 0> kStringGlobals{};
  static constexpr std::array<std::string_view, 0> kStringGlobalDefaults{};
  static constexpr std::array<std::string_view, 0> kStringTypes{};
  static constexpr std::array<std::string_view, 0> kStringExample{};
  static constexpr std::array<std::string_view, 0> kStringGlobalTypes{};
  static constexpr std::array<std::string_view, 0> kStringGlobalExample{};
};

// The style-level keys of a style that has none (most): evaluators derive from it.
struct NoStyleKeys : NoStringKeys {
  static constexpr std::array<std::string_view, 0> kGlobals{};
  static constexpr std::array<double, 0> kGlobalDefaults{};
  static constexpr std::array<CoefficientDomain, 0> kGlobalDomains{};
  static constexpr std::array<Dimension, 0> kGlobalDimensions{};
  static constexpr std::array<double, 0> kGlobalExample{};
};

// A style whose Params point into tabulated data (`const double* data`): the table style, and
// any later one with tabulated functions (EAM). Host code holds the data in PairPotential, device
// code in one device array with the pointers rebased (engine/cuda/device_force_computes.cpp).
template <class E>
concept TabulatedStyle = requires(typename E::Params p) {
  { p.data } -> std::convertible_to<const double*>;
};

// A key of a tabulated style that cannot be used, by its name (a string key such as "file", a
// numeric one, or "cutoff"), and why in words that follow "potential.<key>: ". A problem inside
// the file a key names is that key's, its words naming the file and line.
struct StyleKeyProblem {
  std::string key;
  std::string why;
};

// A style's time unit τ for the run.dt check (time_unit): τ, how far each of its N per-pair
// coefficients lies from the style's natural units in the direction that shortens τ (the check
// blames the furthest key), and the words that say what τ is.
template <std::size_t N>
struct StyleTimeUnit {
  double tau;
  std::array<double, N> blame;
  std::string words;
};

// The long-range correction of one ordered pair of types (e_ij, p_ij of LAMMPS pair_modify tail)
// with N_i, N_j particles: E += Σ energy / V, P += Σ pressure / V².
struct TailTerms {
  double energy = 0.0, pressure = 0.0;
};

}  // namespace scanmd
