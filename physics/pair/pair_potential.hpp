// The pair potential of a run, resolved once from the deck's [potential] section: the style, the
// coefficients of every pair of types (listed, mixed from the like pairs, or the one species'),
// each checked by its evaluator, and the force constants in a table of the style's Params.
//
// Table: entry ti·T + tj (0-based types, symmetric), as LAMMPS's init_one builds it: a listed
// pair takes its coefficients and r_c (r_c defaults to potential.cutoff); an unlisted unlike pair
// i-j mixes the like pairs i-i and j-j by the style's mix() (the cutoff by the same length rule:
// √(r_i r_j) or (r_i + r_j)/2); with mixing = "none", or a style that does not mix, every pair
// must be listed. With no [[potential.pair]] at all (one species only), the pair is
// [potential]'s coefficients.
//
// Tail corrections (potential.tail, styles with kTail): E += Σ N_i N_j e_ij / V and
// P += Σ N_i N_j p_ij / V² over ordered pairs of types (i, j).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "physics/pair/pair_config.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd {

// A configuration the species or the potential cannot be built from. `key` is the deck key to
// blame ("potential.pair", "potential.pair[2]" (0-based entry), "potential.sigma",
// "system.mass", "system.type_fractions").
class SpeciesError : public std::invalid_argument {
 public:
  SpeciesError(std::string key, const std::string& what)
      : std::invalid_argument(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// One style's force constants, every pair of types. A tabulated style's Params point into
// `data` (shared, so that copies of the table keep their pointers valid).
template <class E>
struct StyleTable {
  std::vector<typename E::Params> params;  // [ti · types + tj]
  std::uint32_t types = 1;
  std::shared_ptr<const std::vector<double>> data;  // TabulatedStyle only
  PairTable<E> view() const { return {params.data(), types}; }
};

using PairTables = over_pair_styles_t<std::variant, StyleTable>;

struct TailCorrection {
  double energy = 0.0;    // Σ N_i N_j e_ij: E_tail = energy / V
  double pressure = 0.0;  // Σ N_i N_j p_ij: P_tail = pressure / V²
};

class PairPotential {
 public:
  // Throws SpeciesError for an unknown style, a coefficient of another style, a missing, doubly
  // given or out-of-range pair, or coefficients the style's check() refuses.
  static PairPotential make(const PotentialSection& section, int types);

  std::string_view style() const { return style_; }
  // Whether the pair terms are the style's float variant (run.precision = "mixed").
  bool mixed() const { return mixed_; }
  int types() const { return types_; }
  const Coefficients& coefficients(int ti, int tj) const { return coeffs_[index(ti, tj)]; }
  double cutoff(int ti, int tj) const { return cutoffs_[index(ti, tj)]; }
  double max_cutoff() const { return max_cutoff_; }
  // The deck key that gave pair (ti, tj) (0-based) its coefficient `name`: "potential.<name>"
  // with one species, its [[potential.pair]] entry, or "potential.pair" for a mixed pair.
  std::string key_of(int ti, int tj, std::string_view name) const;
  // The coefficient names of the style (kCoefficients).
  const std::vector<std::string_view>& coefficient_names() const { return names_; }

  const PairTables& tables() const { return tables_; }
  // f(StyleTable<E>) for the run's style E.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), tables_);
  }

  // The tail correction for `count[t]` particles of each type (zero for a style without one;
  // the run adds it when potential.tail is set).
  TailCorrection tail(const std::vector<long long>& count) const;
  // The words of a pair whose force or energy left the 64-bit fixed point: ids, r, |F|, U, and
  // the cause the style reads off the pair.
  std::string overflow_message(std::uint64_t id_i, std::uint64_t id_j, double r2, std::uint32_t ti,
                               std::uint32_t tj) const;
  // The smallest repulsive core over the pairs of types (infinite when none has one).
  double min_core_size() const;
  // run.dt against the style's time unit of every interacting pair (m the lighter mass);
  // throws SpeciesError naming the key furthest from the style's units: run.dt, system.mass, or
  // a coefficient.
  // ftm2v: system.units' force-to-acceleration constant; the time unit of a pair is that of the
  // mass m / ftm2v (τ = σ √(m / (ε ftm2v)) for LJ; 1 in lj).
  void check_time_step(double dt, const std::vector<double>& mass, double ftm2v = 1.0) const;

 private:
  std::size_t index(int ti, int tj) const { return static_cast<std::size_t>(ti * types_ + tj); }

  std::string style_;
  int types_ = 1;
  std::vector<std::string_view> names_;
  std::vector<Coefficients> coeffs_;  // [ti · T + tj]
  std::vector<double> cutoffs_;
  std::vector<int> listed_;  // [[potential.pair]] entry of each pair, −1: mixed or one species
  std::vector<bool> own_cutoff_;  // the pair's entry gives its cutoff
  bool one_species_ = true;
  bool mixed_ = false;
  double max_cutoff_ = 0.0;
  PairTables tables_;
};

// The canonical name of a style (an alias such as "lj/cut" → "lj"), or empty when unknown.
std::string_view canonical_pair_style(std::string_view name);
// "lj", "lj/cut", ... for messages.
std::string pair_style_names();
// The styles run.precision = "mixed" runs ("lj", "lj/cut", "morse"), for messages.
std::string mixed_pair_style_names();
// The coefficient names of a style (kCoefficients; empty when unknown), and whether `name` is a
// coefficient of any style.
std::vector<std::string_view> pair_style_coefficients(std::string_view style);
bool is_pair_coefficient(std::string_view name);
// The style-level keys of a style (kGlobals: given once in [potential], shared by every pair).
std::vector<std::string_view> pair_style_globals(std::string_view style);
// String-valued keys: a style's per-pair ones (kStrings) and style-level ones (kStringGlobals),
// whether `name` is either of any style, and a style-level one's default ("" when required).
std::vector<std::string_view> pair_style_strings(std::string_view style);
std::vector<std::string_view> pair_style_string_globals(std::string_view style);
bool is_pair_string_key(std::string_view name);
std::string_view pair_string_default(std::string_view style, std::string_view name);
// The style's default for a coefficient a one-species deck leaves out (NaN: none).
double pair_coefficient_default(std::string_view style, std::string_view name);
// Whether potential.shift, potential.tail and potential.mixing mean something for the style.
bool pair_style_shifts(std::string_view style);
bool pair_style_has_tail(std::string_view style);
bool pair_style_mixes(std::string_view style);
// Whether the style reads the pairs' relative velocity and random numbers (kPairMotion: DPD).
bool pair_style_reads_motion(std::string_view style);
// The bytes of a run's pair constants on the host (the memory estimate): the Params of every
// pair of `types` types, and a tabulated style's data (one block per unordered pair of types,
// E::data_bytes). 0 for an unknown style.
double pair_constants_bytes(const PotentialSection& potential, int types);

}  // namespace scanmd
