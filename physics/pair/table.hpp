// Tabulated pair potential (LAMMPS pair_style table linear|spline N; pair_coeff i j file keyword
// [cutoff]): U(r) and F(r) read from a LAMMPS table file, interpolated onto an internal table of
// N points evenly spaced in r² from the table's inner radius to r_c
// (physics/pair/table_file.hpp), then, for a pair at r² in bin i = ⌊(r² − r_in²)/Δ⌋:
//
//   linear:  t = (r² − r²_i)/Δ,  F/r = f_i + t·df_i,  U = e_i + t·de_i
//   spline:  b = (r² − r²_i)/Δ, a = 1 − b,
//            F/r = a f_i + b f_{i+1} + ((a³ − a) f2_i + (b³ − b) f2_{i+1}) Δ²/6, U likewise
//
// as LAMMPS computes them: the same operations, so the same bits where the tables agree. Only
// +, −, × and the exact truncation and table loads (det::index_of, det::gather): host, vector
// kernels and device agree to the bit. The table lives outside the Params (a TabulatedStyle:
// `data` points into the doubles PairPotential holds for every pair, rebased into device memory
// by the CUDA backend). A pair closer than the inner radius has no value (LAMMPS stops: "Pair
// distance < table inner cutoff"): F/r is NaN, which the drivers' overflow test catches, and the
// run stops naming the pair with overflow_cause's words. No mixing, shift or tail (as LAMMPS).
// The evaluator contract is in pair_style.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "physics/pair/det_math.hpp"
#include "physics/pair/pair_style.hpp"

#if !defined(__CUDACC__)
#include <cmath>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "physics/pair/pair_config.hpp"
#endif

namespace scanmd {

struct Table {
  static constexpr std::string_view kName = "table";
  static constexpr std::array<std::string_view, 0> kAliases{};
  static constexpr std::array<std::string_view, 0> kCoefficients{};
  static constexpr std::array<double, 0> kDefaults{};
  static constexpr std::array<CoefficientDomain, 0> kDomains{};
  static constexpr std::array<Dimension, 0> kDimensions{};
  static constexpr std::array<double, 0> kExample{};
  static constexpr std::string_view kDoc =
      "Tabulated (LAMMPS `table`: `pair_style table table_style table_points`, `pair_coeff i j "
      "file keyword cutoff`): U and F read from a LAMMPS pair table file, `file` (a path "
      "relative to the deck's directory), in its section `keyword`. A section is the keyword "
      "line, `N n [R rlo rhi | RSQ rlo rhi] [FPRIME fplo fphi]`, a blank line, then n lines "
      "`index r e f` (f = −dU/dr; R, RSQ: r evenly spaced in r or r²; BITMAP is not offered). "
      "The file's points are spline-interpolated onto `table_points` points (2 to 2^20) evenly "
      "spaced in r² from the table's inner radius to the cutoff, as LAMMPS does, then "
      "interpolated at each pair's r² by `table_style`: `\"linear\"` (U and F/r linear in r²) "
      "or `\"spline\"` (cubic splines in r²). The cutoff must lie inside the table "
      "(`potential.cutoff` or the pair's `cutoff`); a pair closer than the inner radius stops "
      "the run naming it (LAMMPS: \"Pair distance < table inner cutoff\"). Errors in the file "
      "name the file and its line. No run.dt or start-speed check (the table has no scale of its "
      "own). `scripts/make_pair_table.py` writes table files; `inputs/table_cg.toml` is an "
      "example.";
  // pair_style table <table_style> <table_points>
  static constexpr std::array<std::string_view, 1> kGlobals{"table_points"};
  static constexpr std::array<double, 1> kGlobalDefaults{kRequired};
  static constexpr std::array<CoefficientDomain, 1> kGlobalDomains{CoefficientDomain::Positive};
  static constexpr std::array<Dimension, 1> kGlobalDimensions{Dimension::None};
  static constexpr std::array<double, 1> kGlobalExample{1000.0};
  // pair_coeff i j <file> <keyword>
  static constexpr std::array<std::string_view, 2> kStrings{"file", "keyword"};
  static constexpr std::array<std::string_view, 2> kStringTypes{"string, path", "string"};
  // (tests/physics/tables/lj.table: the deck tests read their decks from that directory)
  static constexpr std::array<std::string_view, 2> kStringExample{"lj.table", "LJ"};
  static constexpr std::array<std::string_view, 1> kStringGlobals{"table_style"};
  static constexpr std::array<std::string_view, 1> kStringGlobalDefaults{""};  // required
  static constexpr std::array<std::string_view, 1> kStringGlobalTypes{"`\"linear\"`, `\"spline\"`"};
  static constexpr std::array<std::string_view, 1> kStringGlobalExample{"spline"};
  static constexpr bool kMixing = false, kShift = false, kTail = false, kVector = true;
  enum : int { kPoints = 0 };
  // The block of one pair in PairPotential's data: this header, then the five arrays of
  // table::Internal (r², e, f/r, then de, df or e2, f2).
  enum : int {
    kHeaderPoints = 0,
    kHeaderSpline,
    kHeaderInnerSq,
    kHeaderInvDelta,
    kHeaderDeltaSq6,
    kHeaderSize
  };

  struct Params {
    const double* data;  // r²[n], e[n], f/r[n], de|e2[n], df|f2[n]
    double cutoff_sq;
    double innersq, invdelta, deltasq6;
    double last_bin;  // n − 2, the last bin
    double below;     // NaN: F/r inside the inner radius
    std::uint32_t n;
    std::uint32_t spline;
  };

  // Params from the pair's block (header + arrays) in the shared data.
  static Params make(const Coefficients&, double cutoff, bool, const double* block) {
    const double* h = block;
    Params p{};
    p.data = block + kHeaderSize;
    p.cutoff_sq = cutoff * cutoff;
    p.innersq = h[kHeaderInnerSq];
    p.invdelta = h[kHeaderInvDelta];
    p.deltasq6 = h[kHeaderDeltaSq6];
    p.n = static_cast<std::uint32_t>(h[kHeaderPoints]);
    p.last_bin = static_cast<double>(p.n) - 2.0;
    p.below = __builtin_nan("");
    p.spline = h[kHeaderSpline] != 0.0 ? 1u : 0u;
    return p;
  }

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const Params& p) {
    using det::gather;
    using det::index_of;
    using det::select_gt;
    // The bin as LAMMPS's static_cast<int>((r² − r_in²)/Δ), kept within [0, n − 2]: r_in² <= r²
    // < r_c² holds it there but for rounding at r_c (and lanes a vector kernel masks off, or a
    // pair inside the inner radius, whose F/r is NaN below).
    const R x = (r2 - R(p.innersq)) * R(p.invdelta);
    const R last = R(p.last_bin);
    const R bin = select_gt(x, R(0.0), select_gt(x, last, last, x), R(0.0));
    const auto i = index_of(bin);
    const std::size_t n = p.n;
    const double* rsq = p.data;
    const double* e = rsq + n;
    const double* f = e + n;
    const double* d1 = f + n;
    const double* d2 = d1 + n;
    const R t = (r2 - gather(rsq, i)) * R(p.invdelta);
    R fpair, energy;
    if (p.spline != 0) {
      const R b = t;
      const R a = R(1.0) - b;
      const R ca = a * a * a - a, cb = b * b * b - b;
      fpair = a * gather(f, i) + b * gather(f + 1, i) +
              (ca * gather(d2, i) + cb * gather(d2 + 1, i)) * R(p.deltasq6);
      energy = a * gather(e, i) + b * gather(e + 1, i) +
               (ca * gather(d1, i) + cb * gather(d1 + 1, i)) * R(p.deltasq6);
    } else {
      fpair = gather(f, i) + t * gather(d2, i);
      energy = gather(e, i) + t * gather(d1, i);
    }
    return {select_gt(R(p.innersq), r2, R(p.below), fpair), energy};
  }

#if !defined(__CUDACC__)
  static constexpr int kMaxPoints = 1 << 20;  // 40 MiB of table per pair of types

  static std::optional<CoefficientProblem> check(const Coefficients& c, double cutoff,
                                                 const std::string&) {
    const double n = c[kPoints];
    if (!(n >= 2.0 && n <= kMaxPoints && n == std::floor(n)))
      return CoefficientProblem{
          kPoints, fmt::format("must be a whole number of points, 2 to 2^20 = {} (got {}): "
                               "the internal table's size (LAMMPS pair_style table style N)",
                               kMaxPoints, n)};
    if (!(cutoff > 0.0)) return CoefficientProblem{kCutoffIndex, "cutoff must be > 0"};
    return std::nullopt;
  }

  // The pair's block (header + table::Internal's arrays) from its file section, or the key
  // that cannot be used. Relative file paths are relative to base_dir.
  static std::variant<std::vector<double>, StyleKeyProblem> tabulate(const Coefficients& c,
                                                                     const StringValues& s,
                                                                     double cutoff,
                                                                     const std::string& base_dir);

  // The doubles one pair's block holds, for the memory estimate: five arrays of table_points
  // (physics/pair/table_file.hpp) and the header (`style_keys`: the deck's [potential] values).
  static double data_bytes(const CoefficientValues& style_keys) {
    const auto it = style_keys.find("table_points");
    const double points = it != style_keys.end() ? it->second : 0.0;
    return (5.0 * points + 16.0) * sizeof(double);
  }

  // No time unit nor core size of its own: the table holds no scale (the checks of run.dt and
  // of the start's speeds do not apply).
  using TimeUnit = StyleTimeUnit<0>;
  static TimeUnit time_unit(const Coefficients&, double) {
    return {INFINITY, {}, ""};
  }
  static std::string time_unit_values(const Coefficients&, double) {
    return "";
  }
  static double core_size(const Coefficients&) {
    return INFINITY;
  }

  static std::string overflow_cause(double r, const Params& p, const std::string& terms) {
    const double inner = std::sqrt(p.innersq);
    if (r * r < p.innersq)
      return fmt::format(
          ": the pair is closer than the table's inner radius {:.6g}, where the table has no "
          "value (LAMMPS: \"Pair distance < table inner cutoff\"); the time step is too large, "
          "the start puts particles too close, or the table should start closer",
          inner);
    return fmt::format(
        ": {}: the table's values are too large for the 64-bit fixed point of "
        "forces and energies",
        terms);
  }
#endif
};

}  // namespace scanmd
