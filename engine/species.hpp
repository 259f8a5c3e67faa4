// Species: the per-type masses and the pair potential of a run (physics/pair/pair_potential.hpp),
// resolved once from the configuration, and the types of lattice sites.
//
// Lattice types (system.type_fractions f_1..f_T over N sites): the counts are exact, n_t = ⌊f_t N⌋
// plus one for the largest remainders; the particle with id k gets the type of block π(k − 1)
// falls in, π a pseudo-random permutation of 0..N−1 keyed by the seed (a 4-round Feistel network
// with cycle walking). A function of (seed, id, N) only, so no decomposition can change it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/config.hpp"
#include "physics/bonded/bonded_params.hpp"
#include "physics/manybody/eam_file.hpp"
#include "physics/pair/pair_potential.hpp"

namespace scanmd {

struct Species {
  int types = 1;
  std::vector<double> mass;  // [t]
  PairPotential pair;        // the style, every pair's coefficients and force constants
  // The many-body styles (eam, eam/alloy, eam/fs): their tables; `pair` is then unused (empty).
  std::shared_ptr<const eam::Tables> eam;
  // thermostat.style = "dpd/tstat": its forces as a second pair potential (style dpd/tstat,
  // every pair of types the thermostat's γ and r_c).
  std::optional<PairPotential> tstat;
  // Bonds and angles (a bond or angle style): their coefficients by type.
  std::shared_ptr<const BondedParams> bonded;

  double max_cutoff() const { return eam ? eam->cut : pair.max_cutoff(); }
  // The tail correction for `count[t]` particles of each type.
  TailCorrection tail(const std::vector<long long>& count) const { return pair.tail(count); }
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
