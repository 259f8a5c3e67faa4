// Rectilinear load balancing (decomposition.balance): the rank grid's cut planes move, axis by
// axis, so that every slab of boxes between two cuts carries the same share of a cost, as
// LAMMPS `balance shift` / `fix balance shift` do.
//
// The cost is per owned particle: 1 (particles), the local density around it (pairs: see
// pair_costs), or its rank's measured force + list time shared evenly (time). Per axis with more than one box, the
// ranks sum a histogram of the cost over kBalanceBins bins of the box length (integers: every
// rank gets the same sums), and cut k goes to the first bin edge where the running sum reaches
// k/n of the total (at least one bin per box). Cut planes are bin edges, L·e/kBalanceBins, so
// they are the same bits on every rank. Which rank owns a particle never changes its trajectory
// (DESIGN.md §5): a balanced run gives the same state hash as an unbalanced one.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/box.hpp"
#include "base/communicator.hpp"
#include "base/particles.hpp"
#include "base/vec3.hpp"
#include "core/config.hpp"
#include "decomposition/rank_grid.hpp"

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

// The cut planes that split the global marginal of `cost` (per particle at x) evenly along each
// axis of the grid with more than one box (and at most kMaxBalancedBoxes); other axes keep theirs. Collective over `comm`; null
// when x holds every particle (scanmd model's virtual ranks).
GridCuts balanced_cuts(const Communicator* comm, const RankGrid& grid, std::span<const Vec3> x,
                       std::span<const long long> cost);

// The pairs cost of each owned particle: the number of particles (all ranks) in its cell of a
// coarse global grid (cells of edge >= R/2, at most 64 per axis) — the local density, so that the
// cost of a region is proportional to its pairs. A function of positions only: the same
// whatever the decomposition and backend, so a balance step's outcome is what it predicts.
// Collective.
// Collective over `comm`; null when x holds every particle.
std::vector<long long> pair_costs(const Communicator* comm, const Box& box, double import_cutoff,
                                  std::span<const Vec3> x);

// max / mean over the ranks of one number per rank (1 when every rank has 0). Collective.
double imbalance(const Communicator& comm, long long load);

// "x: 0 3.5 7; z: 0 12.25 26.4 52.9" — the moved axes' cut planes (all planes, 0 and L too).
std::string describe_cuts(const GridCuts& cuts);

}  // namespace scanmd
