// The neighbour-list acceptance rule, once for both backends (SCANMD_HD): is candidate j of row
// i listed? NeighborList::build (host) and visit_run (engine/cuda/neighbor_runs.hpp, the CUDA
// build) both ask it, so both lists hold the same pairs.
//
// Candidates come from the cell stencil around i; k and k_i are the positions of j and i in
// the cell order (the antisymmetric tie-break of PairRule). A pair is listed when the binning
// positions are within the search sphere (below) and the decomposition's PairRule gives it to
// this rank with i first:
//   half / full shell (kGeneral = false, inlined): i is owned (PairRule::can_head), every ghost
//       pair is ours, an owned pair once, under the lower cell-order position;
//   the other methods (kGeneral = true): PairRule::lists_pair on both sides, side_j() read only
//       for candidates within R (it loads j's id and position).
//
// The search sphere: the distance test runs in single precision, sixteen candidates per AVX-512
// vector (half the work of double), on binning positions taken relative to the cell grid's
// origin in double and then rounded to float once. Its radius is R widened by more than the
// test's rounding can err (SearchSphere::make), so every pair closer than R is listed, and a
// few just beyond R (within R + 2^-20·(the grid's extent + 2R), far inside the skin) may be too.
// Which pairs interact is decided by the force kernels at r_c, in double, so the list's reach
// changes no force: the same trajectories, bit for bit. Every version of the test (scalar,
// AVX2, AVX-512, CUDA) does the same float operations in the same order, so all build the same list.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/vec3.hpp"
#include "decomposition/import_rule.hpp"
#include "kernels/hd.hpp"

namespace scanmd {

// A binning position relative to the search sphere's origin, in float.
struct SearchPoint {
  float x, y, z;
};

struct SearchSphere {
  Vec3 origin;       // the cell grid's origin
  float r_sq = 0.f;  // the squared radius, in float

  SCANMD_HD SearchPoint point(Vec3 q) const {
    return {static_cast<float>(q.x - origin.x), static_cast<float>(q.y - origin.y),
            static_cast<float>(q.z - origin.z)};
  }

  // For search radius R over a grid of extent `extent` (the longest edge) from `origin`. A
  // coordinate rounded to float errs by at most 2^-24 of its distance from the origin, so a
  // difference by 2^-23·(extent + R) (particles lie within the grid, ghosts within R of the
  // box), a distance by sqrt(3) times that, and its square, summed in float, by 3·2^-24 more
  // (relative): R + 2^-20·(extent + 2R) covers all of it with a margin above 4, and its square is
  // rounded up to float.
  static SearchSphere make(Vec3 origin, double extent, double R) {
    const double r = R + std::ldexp(extent + 2.0 * R, -20);
    float r_sq = static_cast<float>(r * r);
    if (static_cast<double>(r_sq) < r * r) r_sq = std::nextafter(r_sq, HUGE_VALF);
    return {origin, r_sq};
  }
};

// The squared distance of the search test, (dx² + dy²) + dz² in float (no FMA).
SCANMD_HD inline float search_distance_sq(SearchPoint a, SearchPoint b) {
  const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  return dx * dx + dy * dy + dz * dz;
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <bool kGeneral, class SideJ>
SCANMD_HD inline bool lists_candidate(const PairRule& rule, float r_sq, SearchPoint qi,
                                      SearchPoint qj, std::uint32_t j, std::uint32_t k,
                                      std::uint32_t k_i, std::uint32_t n_owned,
                                      const PairSide& side_i, SideJ&& side_j) {
  const bool near = search_distance_sq(qi, qj) < r_sq;
  if constexpr (!kGeneral) {
    (void)rule, (void)side_i, (void)side_j;
    return near & ((j >= n_owned) | (k > k_i));  // branch-free: the host compacts with it
  } else {
    return near && k != k_i && rule.lists_pair(side_i, side_j());
  }
}

}  // namespace scanmd
