// Species: the per-type masses and the per-pair Lennard-Jones table of a run, resolved once from
// the configuration (mixing rules applied, every pair present), and the types of lattice sites.
//
// Pair table: entry ti·T + tj (0-based types, symmetric), as LAMMPS PairLJCut::init_one builds
// it: a listed pair takes its ε, σ, r_c (r_c defaults to potential.cutoff); an unlisted unlike
// pair i-j mixes the like pairs i-i and j-j (ε = √(ε_i ε_j); σ and r_c geometric √(a_i a_j) or
// arithmetic (a_i + a_j)/2); with mixing = "none" every pair must be listed. With no
// [[potential.pair]] at all (one species only), the pair is potential.{epsilon, sigma, cutoff}.
//
// Lattice types (system.type_fractions f_1..f_T over N sites): the counts are exact, n_t = ⌊f_t N⌋
// plus one for the largest remainders; the particle with id k gets the type of block π(k − 1)
// falls in, π a pseudo-random permutation of 0..N−1 keyed by the seed (a 4-round Feistel network
// with cycle walking). A function of (seed, id, N) only, so no decomposition can change it.
//
// Tail corrections (potential.tail, LAMMPS pair_modify tail yes): for each pair of types with
// N_i, N_j particles, e_ij = 8π N_i N_j ε σ⁶ (σ⁶ − 3 r_c⁶) / (9 r_c⁹) and
// p_ij = 16π N_i N_j ε σ⁶ (2σ⁶ − 3 r_c⁶) / (9 r_c⁹), summed over ordered pairs (i, j);
// E += Σe / V and P += Σp / V² (the truncated, unshifted potential's correction).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/lj.hpp"

namespace scanmd {

// A configuration the species cannot be built from. `key` is the deck key to blame
// ("potential.pair", "potential.pair[2]" (0-based entry), "system.mass", "system.type_fractions").
class SpeciesError : public std::invalid_argument {
 public:
  SpeciesError(std::string key, const std::string& what)
      : std::invalid_argument(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

struct PairCoefficients {
  double epsilon, sigma, cutoff;
};

struct TailCorrection {
  double energy = 0.0;    // Σ e_ij: E_tail = energy / V
  double pressure = 0.0;  // Σ p_ij: P_tail = pressure / V²
};

struct Species {
  int types = 1;
  std::vector<double> mass;              // [t]
  std::vector<PairCoefficients> coeffs;  // [ti · types + tj]
  std::vector<LJParams> lj;              // the same pairs as force constants (shift applied)
  double max_cutoff = 0.0;

  const PairCoefficients& pair(int ti, int tj) const { return coeffs[ti * types + tj]; }
  PairTable table() const { return {lj.data(), static_cast<std::uint32_t>(types)}; }
  // The tail correction for `count[t]` particles of each type.
  TailCorrection tail(const std::vector<long long>& count) const;
};

// Throws SpeciesError for a missing, doubly given or out-of-range pair, or a mass list whose length
// is neither 1 nor T. T = config.system.type_count().
Species make_species(const SimulationConfig& config);

// n_t for fractions f (sum 1 within 1e-9) over n sites: ⌊f_t n⌋, the remainder to the largest
// fractional parts (lower type first on ties).
std::vector<std::uint64_t> type_counts(const std::vector<double>& fractions, std::uint64_t n);

// The lattice type (0-based) of particle `id` (1..n) given counts from type_counts().
class LatticeTypes {
 public:
  LatticeTypes(const std::vector<double>& fractions, std::uint64_t n, std::uint64_t seed);
  std::uint32_t operator()(std::uint64_t id) const;

 private:
  std::uint64_t permute(std::uint64_t k) const;
  std::vector<std::uint64_t> upper_;  // cumulative counts
  std::uint64_t n_, seed_;
  int half_bits_;
};

}  // namespace scanmd
