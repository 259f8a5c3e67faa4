// The neighbour-list acceptance rule, once for both backends (SCANMD_HD): is candidate j of row
// i listed? NeighborList::build (host) and visit_run (engine/cuda/neighbor_runs.hpp, the CUDA
// build) both ask it, so both lists hold the same pairs.
//
// Candidates come from the cell stencil around i; k and k_i are the positions of j and i in
// the cell order (the antisymmetric tie-break of PairRule). A pair is listed when the binning
// positions are closer than R and the decomposition's PairRule gives it to this rank with i
// first:
//   half / full shell (kGeneral = false, inlined): i is owned (PairRule::can_head), every ghost
//       pair is ours, an owned pair once, under the lower cell-order position;
//   the other methods (kGeneral = true): PairRule::lists_pair on both sides, side_j() read only
//       for candidates within R (it loads j's id and position).
#pragma once

#include <cstdint>

#include "base/vec3.hpp"
#include "decomposition/import_rule.hpp"
#include "kernels/hd.hpp"

namespace scanmd {

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <bool kGeneral, class SideJ>
SCANMD_HD inline bool lists_candidate(const PairRule& rule, double r_sq, Vec3 qi, Vec3 qj,
                                      std::uint32_t j, std::uint32_t k, std::uint32_t k_i,
                                      std::uint32_t n_owned, const PairSide& side_i,
                                      SideJ&& side_j) {
  const double dx = qi.x - qj.x, dy = qi.y - qj.y, dz = qi.z - qj.z;
  const bool near = dx * dx + dy * dy + dz * dz < r_sq;
  if constexpr (!kGeneral) {
    (void)rule, (void)side_i, (void)side_j;
    return near & ((j >= n_owned) | (k > k_i));  // branch-free: the host compacts with it
  } else {
    return near && k != k_i && rule.lists_pair(side_i, side_j());
  }
}

}  // namespace scanmd
