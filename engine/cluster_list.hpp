// Cluster-pair lists (issue 33; Páll & Hess, CPC 184 (2013) 2641): the rank's particles in the
// cell order of the last list build (engine/cell_list.hpp: cells of edge >= R/2, x fastest), cut
// into clusters of kClusterSize consecutive particles, and for each i-cluster the j-clusters it
// meets, each with a mask of kClusterSize × kClusterSize bits: bit a·4 + b says "the pair (atom
// a of the i-cluster, atom b of the j-cluster) is computed here".
//
// The masks are taken from the per-atom neighbour list (NeighborList), after its exclusions: a
// cluster pair is listed when one of its atom pairs is, and a bit is set exactly for the listed
// pairs, under the cluster of the row's particle. So the pair set — the decomposition's pair
// rule, the list's reach, the special_bonds exclusions — is the list's by construction, each
// pair once (the list's own contract), and a kernel over the cluster list computes the same pairs
// as the scalar loop over the rows. The cell order is the one the list's rules use (half and
// full shell list an owned pair under the particle first in it), so a cluster pair mostly sits
// under one of its two clusters; where both list pairs of it (ghost pairs, the general rules) it
// has two entries, which is only slower. A pair's orientation is the row's; any orientation
// would give the same bits (x_j − x_i is exactly −(x_i − x_j), the minimum image and the
// truncation to fixed point are odd functions).
//
// The kernels (engine/pair_clusters.hpp) load a j-cluster's positions contiguously (the
// positions are copied into slot order each step) and keep the j-cluster's forces in registers,
// stored once per cluster pair, where the per-atom rows gather x[j] and scatter f[j] per pair.
// One pass over the list builds it, with scratch of 3 bytes per particle; the list is about a
// third of the per-atom list's size (bytes_per_particle).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/vec3.hpp"

namespace scanmd {

inline constexpr std::uint32_t kClusterSize = 4;

class ClusterList {
 public:
  // Rebuilds from a per-atom list: CSR rows (offsets, neighbors) of `rows` <= n particles, and
  // `order`, the n particles in cell order; `generation` is remembered (built_from). A pair
  // listed twice under one cluster pair leaves the list not exact(): kernels must not use it
  // then (the per-atom list lists each pair once).
  void build(const std::uint32_t* offsets, const std::uint32_t* neighbors, std::size_t rows,
             const std::uint32_t* order, std::size_t n, std::uint64_t generation);

  std::size_t clusters() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  std::size_t slots() const { return particle_.size(); }
  // Slot s (cluster s / 4, atom s % 4) holds particle particle()[s]; the last cluster's empty
  // slots hold kNone.
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  const std::vector<std::uint32_t>& particle() const { return particle_; }
  // i-cluster c's entries: [offsets()[c], offsets()[c + 1]) of j_cluster() and mask().
  const std::vector<std::uint32_t>& offsets() const { return offsets_; }
  const std::vector<std::uint32_t>& j_cluster() const { return j_cluster_; }
  const std::vector<std::uint16_t>& mask() const { return mask_; }
  std::size_t entries() const { return j_cluster_.size(); }
  std::size_t pairs() const { return pairs_; }  // listed atom pairs (set bits)
  // Bytes of the list itself (offsets, entries, slot map) per particle.
  double bytes_per_particle() const;

  // The generation of the per-atom list this was built from (NeighborList::generation()).
  std::uint64_t built_from() const { return built_from_; }
  bool built() const { return built_; }
  bool exact() const { return exact_; }

 private:
  std::vector<std::uint32_t> particle_, slot_of_;  // slot_of_: build scratch
  std::vector<std::uint32_t> offsets_, j_cluster_;
  std::vector<std::uint16_t> mask_;
  // Build scratch, freed after each build.
  std::vector<std::uint32_t> stamp_, entry_of_;
  std::size_t pairs_ = 0, particles_ = 0;
  void release_scratch();
  std::uint64_t built_from_ = 0;
  bool built_ = false, exact_ = false;
};

// The positions x (by particle) in slot order for clusters [begin, end): cx, cy, cz per slot
// (empty slots: 0), and per cluster its bounding box over its particles, 8 doubles at
// bounds + 8·c: the lowest x, y, z, then 0, the highest x, y, z, then 0. (A kernel that finds
// no coordinate of one cluster's box more than L/2 from the other's needs no minimum image for
// the pair: IEEE subtraction is monotonic, so no |x_i − x_j| of the two exceeds it either.)
void cluster_positions(const ClusterList& cl, const Vec3* x, std::size_t begin, std::size_t end,
                       double* cx, double* cy, double* cz, double* bounds);

}  // namespace scanmd
