// Pair forces, energy and virial over a neighbour list, in 64-bit fixed point: the host driver of
// every pair style (physics/pair/styles.hpp), whose evaluator gives F/r and U of one pair.
//
// For each listed pair (i, j): d = minimum image of x_i − x_j (wrapped coordinates; in a box
// shorter than 2R, PairImages::Explicit: from the two images' shifts), and if
// r² < r_c² of the pair's types (PairTable): F = to_fixed(fpair · d) is added to i and subtracted
// from j. Truncation is
// symmetric, so whichever of the two is "i" on whichever rank, the bits agree. The pair's
// energy and virial (r·F = fpair r²) are converted once and split exactly between its two
// particles (fixed::lower_share): the one-rank-per-pair methods add both parts; full shell,
// which computes cross-rank pairs on both sides, adds only the parts of owned particles, so
// all methods sum the same integers.
//
// Overflow: one particle's force receives at most `max_terms` pair terms (from the list), so
// if every term is below 2^63 / (max_terms + 1) no accumulator can leave the int64 range and
// the adds need no checks. Each pair is tested once against that bound (|F|² ≥ limit² or NaN
// stops the run, naming both particles): detected, never wrapped.
#pragma once

#include <cstdint>
#include <vector>

#include "base/box.hpp"
#include "base/fixed_point.hpp"
#include "base/particles.hpp"
#include "engine/cluster_list.hpp"
#include "engine/force_totals.hpp"
#include "engine/interior_rows.hpp"
#include "engine/neighbor_list.hpp"
#include "engine/pair_kernel.hpp"
#include "physics/pair/pair_potential.hpp"

namespace scanmd {

// Threads of the force passes (OpenMP): the rows (or the bonded terms) are split into parts of
// decreasing size, taken by whichever thread is free (engine/row_parts.hpp); each thread adds its
// terms into its own force array, and the arrays are summed (integers: the same bits as one
// thread, whatever the split). The arrays are kept between steps; the pair, EAM and bonded
// computes use them in turn.
// The cluster kernel's (PairKernel::Cluster) cluster-pair list, derived from the neighbour list
// at its first pass after each change of the list, the positions in slot order, and each
// thread's forces in slot order.
struct ForceScratch {
  int threads = 1;
  std::vector<std::vector<Fix3>> per_thread;  // threads − 1 arrays (thread 0 uses the store's)
  ClusterList clusters;
  const void* clusters_of = nullptr;   // the NeighborList the clusters were built from
  double cluster_build_seconds = 0.0;  // all cluster-list builds of the run
  int cluster_builds = 0;
  std::vector<double> cx, cy, cz, bounds;  // slot-order positions, bounding boxes (8 per cluster)
  std::vector<std::vector<std::int64_t>> cf;  // per thread: x, y, z planes of slots() each
  // Where a row's displacements need no minimum-image test (engine/interior_rows.hpp): set by
  // the backend for its box, list reach and skin; empty (the default): every row takes it.
  InteriorBounds interior{};
};

// The cluster kernel's list from `list` unless built from it already (its generation): called
// at the rebuild when the kernel runs or is on trial, else by its first pass on a new list.
void build_clusters(const ParticleStore& p, const NeighborList& list, ForceScratch& scratch);

// Threads per rank for the host loops: OMP_NUM_THREADS when set, else 1 (as LAMMPS' OPENMP
// package), so that mpirun -np <cores> does not oversubscribe the cores by default; sets
// OpenMP's count to it (the scan primitives of kernels/ use OpenMP's count).
int force_threads();

// The cores this process may run on (its CPU affinity), 0 if unknown: mpirun binds each rank to
// one core by default, which leaves a rank's threads sharing it.
int cores_available();

// Zeroes all forces, then accumulates (`adding`: adds to the forces as they are, a later
// compute of the list). `owned_shares_only`: full-shell energy bookkeeping;
// `with_energy`: also energy and virial (else those totals are 0). `kernel` (resolved, not
// Auto): the vector kernel for the passes it covers (engine/pair_kernel.hpp); `scratch`: threads.
// Styles that read the pair's motion (kPairMotion: DPD) need `v`, the velocities the forces
// see of every particle (owned, then ghosts), and `step`, the counter of the pairs' random
// numbers. `pair_computes`: the pair computes adding to these forces (each term's bound is
// divided by it). Throws std::overflow_error naming the particle ids when a term does not fit.
ForceTotals compute_pair_forces(ParticleStore& p, const NeighborList& list,
                                const PairPotential& potential, const Box& box, PairImages images,
                                bool owned_shares_only, bool with_energy,
                                PairKernel kernel = PairKernel::Scalar,
                                ForceScratch* scratch = nullptr, bool adding = false,
                                const Vec3* v = nullptr, std::uint64_t step = 0,
                                int pair_computes = 1);

}  // namespace scanmd
