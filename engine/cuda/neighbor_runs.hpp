// engine/cuda/neighbor_runs.hpp — one (row, stencil run) element of the CUDA neighbour-list
// build, as a SCANMD_HD function: the kernels of neighbors.cu call it on the device, and
// tests/gpu/test_device_logic.cpp runs it on the host against NeighborList (no GPU needed).
//
// Element e = i·25 + r is row i's stencil run r: the cells (cx−2 … cx+2, cy + r%5 − 2,
// cz + r/5 − 2), one contiguous range of the cell order (cells are sorted x-fastest). The
// candidates are the host's (NeighborList::collect): within the search sphere about i's binning
// position (engine/pair_candidate.hpp: the same float test, the same SearchSphere), and
// the PairRule gives the pair to this rank with i first — the half / full shell rule inlined,
// the others asked through PairRule::lists_pair with the cell-order positions as tie-break.
// Plain C++ (no CUDA types).
#pragma once

#include <cstdint>

#include "base/vec3.hpp"
#include "decomposition/import_rule.hpp"
#include "engine/pair_candidate.hpp"
#include "kernels/hd.hpp"

namespace scanmd::cuda_step {

inline constexpr int kStencilReach = 2;                          // cells of edge >= R/2
inline constexpr int kStencilSide = 2 * kStencilReach + 1;       // 5
inline constexpr int kRunsPerRow = kStencilSide * kStencilSide;  // 25 (dy, dz) runs per row

// What the neighbour kernels read (device pointers on the device, host pointers in tests).
struct NeighborArgs {
  const Vec3* x;               // wrapped positions (index order; the midpoint rule needs them)
  const std::uint64_t* id;     // index order
  const Int3* home;            // index order
  const Int3* cell;            // index order
  const std::uint32_t* rank;   // index → position in the cell order
  const Vec3* q_sorted;        // cell order
  const Int3* home_sorted;     // cell order
  const std::uint32_t* order;  // cell order → index
  const std::uint32_t* cell_offsets;
  Int3 dims;
  std::uint32_t n, n_owned;
  PairRule rule;
  bool general_rule;    // false: the half / full shell rule, inlined
  SearchSphere search;  // the host's for the same grid and R (NeighborList)
};

// Visits the accepted candidates of row i's run r in cell order: emit(c, j) for the c-th one.
// Returns their number.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <bool kGeneral, class Emit>
SCANMD_HD inline std::uint32_t visit_run(const NeighborArgs& a, std::uint32_t i, int r,
                                         Emit&& emit) {
  const bool i_owned = i < a.n_owned;
  const Int3 home_i = a.home[i];
  if (!a.rule.can_head(i_owned, home_i)) return 0;
  const Int3 ci = a.cell[i];
  const int cy = ci.y + r % kStencilSide - kStencilReach;
  const int cz = ci.z + r / kStencilSide - kStencilReach;
  if (cy < 0 || cy >= a.dims.y || cz < 0 || cz >= a.dims.z) return 0;
  const int x0 = ci.x - kStencilReach < 0 ? 0 : ci.x - kStencilReach;
  const int x1 = ci.x + kStencilReach > a.dims.x - 1 ? a.dims.x - 1 : ci.x + kStencilReach;
  const int row_base = a.dims.x * (cy + a.dims.y * cz);
  const std::uint32_t begin = a.cell_offsets[x0 + row_base];
  const std::uint32_t end = a.cell_offsets[x1 + row_base + 1];
  const std::uint32_t k_i = a.rank[i];
  const SearchPoint qi = a.search.point(a.q_sorted[k_i]);
  const PairSide side_i = kGeneral ? PairSide{i_owned, home_i, k_i, a.id[i], a.x[i]} : PairSide{};
  std::uint32_t count = 0;
  for (std::uint32_t k = begin; k < end; ++k) {
    const std::uint32_t j = a.order[k];
    const bool keep = lists_candidate<kGeneral>(
        a.rule, a.search.r_sq, qi, a.search.point(a.q_sorted[k]), j, k, k_i, a.n_owned, side_i,
        [&] {
          return PairSide{j < a.n_owned, a.home_sorted[k], k, a.id[j], a.x[j]};
        });
    if (keep) {
      emit(count, j);
      ++count;
    }
  }
  return count;
}

}  // namespace scanmd::cuda_step
