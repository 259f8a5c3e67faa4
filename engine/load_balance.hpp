// Rectilinear load balancing (decomposition.balance): the rank grid's cut planes move, axis by
// axis, so that every slab of boxes between two cuts carries the same share of a cost, as
// LAMMPS `balance shift` / `fix balance shift` do.
//
// The cost is per owned particle: 1 (particles), the local density around it (pairs: see
// pair_costs; then corrected by the pairs each rank counts, see measured_costs), or its rank's
// measured force + list time shared evenly (time). Per axis with more than one box, the ranks
// sum a histogram of the cost over kBalanceBins bins of the box length (integers: every rank
// gets the same sums), and cut k goes to the first bin edge where the running sum reaches
// k/n of the total (at least one bin per box). Cut planes are bin edges, L·e/kBalanceBins, so
// they are the same bits on every rank. Which rank owns a particle never changes its trajectory
// (DESIGN.md §5): a balanced run gives the same state hash as an unbalanced one.
//
// With the grid left to choose, a balanced run also picks its dimensions from the start's
// marginals (choose_balanced_grid): the least-import grid whose boxes can split the cost evenly
// — a slab's lattice planes cannot be split, so 8 boxes across 68 planes cannot be balanced.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/box.hpp"
#include "base/communicator.hpp"
#include "base/particles.hpp"
#include "base/vec3.hpp"
#include "decomposition/rank_grid.hpp"
#include "engine/config.hpp"

namespace scanmd {

inline constexpr int kBalanceBins = 4096;

// One balance step, for the log and the run record.
struct BalanceStep {
  long long step = 0;
  Balance cost = Balance::None;
  double before = 1.0;  // max/mean of the cost per rank before
  double after = 1.0;   // ... and after (time: before, the next step measures it)
  bool moved = false;   // false: already within the tolerance, cuts kept
  GridCuts cuts;        // the cut planes in force after the step
};

// The marginals of a cost along the three axes: kBalanceBins bins of each box length, summed
// over the ranks (integers: every rank gets the same sums).
struct CostMarginals {
  Vec3 length{};
  std::vector<long long> hist[3];
  long long total = 0;
};
// Collective over `comm`; null when x holds every particle (scanmd model's virtual ranks).
CostMarginals cost_marginals(const Communicator* comm, Vec3 length, std::span<const Vec3> x,
                             std::span<const long long> cost);

// The cut planes that split the marginals evenly along each axis of the grid with more than
// one box (and at most kMaxBalancedBoxes); other axes keep theirs.
GridCuts balanced_cuts(const RankGrid& grid, const CostMarginals& m);
// The same from the particles' costs (collective over `comm`; null: x holds every particle).
GridCuts balanced_cuts(const Communicator* comm, const RankGrid& grid, std::span<const Vec3> x,
                       std::span<const long long> cost);

// The max/mean of the cost over the boxes of a `dims` grid balanced by balanced_cuts, as the
// marginals predict it: the product over the axes of each axis' max/mean over its slabs of boxes
// (exact for a cost that varies along one axis only, as in a slab). Whole lattice planes stay
// whole: a cut never splits a histogram bin.
double predicted_imbalance(const CostMarginals& m, Int3 dims);

// The grid a balanced run uses: the first of `candidates` (best import volume first, see
// candidate_grids) whose predicted imbalance is within `tolerance`, else the one predicted
// best balanced (ties: the earlier).
struct BalancedGridChoice {
  Int3 dims{};
  double predicted = 1.0;  // for dims
  Int3 import_best{};      // candidates.front()
  double import_best_predicted = 1.0;
};
BalancedGridChoice choose_balanced_grid(const std::vector<Int3>& candidates, const CostMarginals& m,
                                        double tolerance);

// Costs corrected by a measured load per rank: every particle of a rank weighs its cost times
// measured_scale(Σ cost of that rank, its measured load), so that the next balanced_cuts see
// the rank's real load, boundary effects included (half shell: the cross-boundary pairs one
// side computes). Integers, deterministic; local (one rank's particles).
std::vector<long long> measured_costs(std::span<const long long> cost, long long measured);
// round(1024 · measured / modelled), at least 1 (1 when nothing is modelled).
long long measured_scale(long long modelled, long long measured);
// How many measured corrections a pairs balance step makes after its first, modelled cuts
// (it keeps the best cuts seen).
inline constexpr int kPairRefinements = 3;

// The pairs cost of each owned particle: the local density at it, so that the cost of a region
// is proportional to its pairs. The particles (all ranks) are deposited cloud-in-cell on a coarse
// global grid (cells of edge >= 1.5 R, at most 64 per axis, integer weights: exact sums) and the
// density is interpolated back with the same weights — smooth, so that the planes of a lattice
// start do not alias onto the grid. A function of positions only: the same whatever the
// decomposition and backend. Collective over `comm`; null when x holds every particle.
std::vector<long long> pair_costs(const Communicator* comm, const Box& box, double import_cutoff,
                                  std::span<const Vec3> x);

// max / mean over the ranks of one number per rank (1 when every rank has 0). Collective.
double imbalance(const Communicator& comm, long long load);

// "x: 0 3.5 7; z: 0 12.25 26.4 52.9" — the moved axes' cut planes (all planes, 0 and L too).
std::string describe_cuts(const GridCuts& cuts);

}  // namespace scanmd
