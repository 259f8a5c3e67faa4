// engine/cuda/device_neighbor_list.hpp — the neighbour list of one rank on the device, the sibling
// of NeighborList (engine/neighbor_list.hpp): CSR rows over owned + ghost indices, built
// count → scan → fill with the same candidates and the same PairRule (engine/cuda/neighbor_runs.hpp
// runs the host's acceptance rule per (row, stencil run) element).
//
//   count   accepted candidates per element (row i, stencil run r), e = i·25 + r
//   place   SegmentedScan: segmented exclusive scan of the counts (segments = rows), the row
//           order of the host list; AtomicCounters: one atomicAdd per element on its row's
//           counter (see NeighborFill in engine/config.hpp)
//   rows    row lengths → exclusive scan → row offsets (n + 1, 64 bit)
//   fill    entries, and terms per particle; max terms bounds the force accumulators
//           (pair_term_limit_sq, engine/fixed_terms.hpp)
#pragma once

#include <cstdint>
#include <vector>

#include "decomposition/import_rule.hpp"
#include "engine/config.hpp"
#include "engine/cuda/device_cell_list.hpp"
#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/device_particles.hpp"

namespace scanmd::cuda_step {

class DeviceNeighborList {
 public:
  explicit DeviceNeighborList(NeighborFill fill) : fill_(fill) {}

  // Synchronises (the entry count and the largest term count come back).
  void build(const DeviceParticles& p, const DeviceCellList& cells, const PairRule& rule,
             double import_cutoff, Scratch& scratch, DeviceFlags* flags, cudaStream_t stream);

  // The special_bonds exclusions after a build: the entries (i, j) whose j is a bond partner of
  // i (by id: the `slots` planes of the bond_atom field) left out, the rest in their order (the
  // host's NeighborList::drop_pairs). The per-pair bound stays the build's. Synchronises.
  void drop_bonded(const DeviceParticles& p, const std::vector<const std::uint64_t*>& bond_atom,
                   Scratch& scratch, cudaStream_t stream);

  NeighborFill fill() const { return fill_; }
  const std::uint64_t* offsets() const { return row_offset_.data(); }  // n + 1
  const std::uint32_t* neighbors() const { return nbr_.data(); }
  std::uint64_t size() const { return size_; }
  double limit_sq() const { return limit_sq_; }  // per-pair force bound of the force kernel
  // The list (CSR) to the host; synchronises.
  void download(std::uint32_t n, std::vector<std::uint64_t>& offsets,
                std::vector<std::uint32_t>& neighbors, cudaStream_t stream) const;

 private:
  NeighborFill fill_;
  DeviceBuffer<std::uint32_t> run_count_, run_offset_, nbr_, terms_;
  DeviceBuffer<std::uint8_t> heads_;
  DeviceBuffer<std::uint64_t> row_len_, row_offset_;
  DeviceBuffer<std::uint64_t> kept_offset_;  // drop_bonded: the new rows, then swapped in
  DeviceBuffer<std::uint32_t> kept_nbr_;
  DeviceBuffer<const std::uint64_t*> bond_planes_;
  std::uint64_t size_ = 0;
  double limit_sq_ = 0;
};

}  // namespace scanmd::cuda_step
