// The cluster-pair kernel (PairKernel::Cluster, issue 33): the pass of engine/pair_rows.hpp over
// a cluster-pair list (engine/cluster_list.hpp) instead of the per-atom rows. Each lane computes
// exactly the scalar loop's operations for one pair (engine/pair_forces.cpp): d by the
// conditional ±L, r² = (dx² + dy²) + dz², the evaluator's F/r, fs = (F/r)·2^40, the |F| < limit
// test, F = trunc(fs·d); the energy steps also U and r·F to fixed point (round to nearest) as
// fixed::to_fixed does. The forces go to int64 arrays in slot order (integer sums: in any order,
// the same bits); the caller adds them to the particles.
//
// AVX-512, 4×4 clusters: one cluster pair is two vectors of eight lanes, (i-atoms 0, 1) × (j-atoms
// 0..3) and (i-atoms 2, 3) × (j-atoms 0..3); the j-cluster's positions are one 256-bit load per
// component, broadcast to both halves; the i-cluster's forces stay in registers over its
// entries, the j-cluster's are summed in registers and stored once per entry. The lane type is
// the evaluator's number type (simd::F64x8), so a float32 variant (simd::F32x16, one vector per
// cluster pair) can be instantiated from the same kernel later.
//
// AVX2, 4×4 clusters (pair_clusters_avx2.cpp, for CPUs without AVX-512): one cluster pair is
// four vectors of four lanes, one per i-atom (a vector with no listed pair within the cutoff
// is skipped);
// the truncation to int64 is exact in the vector below 2^51 (|F|² < 2^100) and lane by lane
// above; the minimum image is applied only where the two clusters' bounding boxes
// (cluster_positions) are more than L/2 apart on some axis.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/fixed_point.hpp"
#include "base/vec3.hpp"
#include "engine/cluster_list.hpp"
#include "physics/pair/pair_style.hpp"

namespace scanmd {

template <class E>
struct PairClusters {
  const ClusterList* list;
  const double *x, *y, *z;  // positions in slot order (wrapped; empty slots: 0)
  const double* bounds;     // each cluster's bounding box (cluster_positions)
  Vec3 length, half_length;
  typename E::Params params;  // the one species' pair
  double limit_sq;            // pair_term_limit_sq(max_terms)
};

struct ClusterTotals {
  long long pairs = 0;  // pairs within the cutoff
  fixed::Wide energy = 0, virial = 0;
  bool overflow = false;
};

// i-clusters [begin, end): forces added to fx, fy, fz (slot order), and with `energy` the
// energy and virial of each pair (whole: not for full shell's owned shares).
template <class E>
ClusterTotals pair_clusters_avx512(const PairClusters<E>& c, std::size_t begin, std::size_t end,
                                   std::int64_t* fx, std::int64_t* fy, std::int64_t* fz,
                                   bool energy);
template <class E>
ClusterTotals pair_clusters_avx2(const PairClusters<E>& c, std::size_t begin, std::size_t end,
                                 std::int64_t* fx, std::int64_t* fy, std::int64_t* fz, bool energy);

}  // namespace scanmd
