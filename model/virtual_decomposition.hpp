// The virtual decomposition: P ranks modelled inside one process, without MPI.
//
// Given a configuration (wrapped positions), a method and a rank count, it runs the plan
// code of a real run for every virtual rank — ownership by RankGrid::box_of, export
// selection by ExportSelector, ghosts laid out as HaloExchange lays them out, cell list and
// neighbour list with the method's PairRule — and reports what each rank would import and
// how many pair interactions it would compute. Because it is the same code, the import
// counts equal those a real run measures at its first rebuild, exactly; it is what lets
// `scanmd model` report import volumes for P up to 10^5, far past the machine.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/box.hpp"
#include "decomposition/method.hpp"
#include "decomposition/rank_grid.hpp"
#include "engine/config.hpp"

namespace scanmd {

struct ModelStats {
  long long min = 0, max = 0;
  double mean = 0;
};

struct ModelResult {
  Method method;
  Balance balance = Balance::None;
  int ranks = 0;
  Int3 grid{};
  Int3 import_best_grid{};  // the least-import grid (= grid unless balancing chose another)
  GridCuts cuts;            // the cut planes (balanced: as a real run's setup balance step)
  Vec3 box_edge{};          // b
  double r_over_b = 0;      // R / (bx·by·bz)^(1/3)
  ModelStats imports;       // ghost images per rank
  double tower_mean = 0, plate_mean = 0;
  ModelStats pairs;  // pair interactions within the cutoff computed per rank
  long long pairs_total = 0;
  double analytic = 0;  // ρ·V of the method's formula, the mean over the (balanced) boxes
  double seconds = 0;   // time the model took
  std::vector<long long> imports_per_rank;
  std::vector<long long> pairs_per_rank;
  // Bytes each rank sends per step (a run's bytes_per_step: forward records to other ranks,
  // and the reverse ones where the method has a reverse exchange), and their spread.
  std::vector<long long> bytes_per_rank;
  ModelStats bytes;
};

struct ModelOptions {
  Int3 requested_grid{0, 0, 0};
  bool count_pairs = true;  // neighbour lists per virtual rank (load balance)
  // Grid and cut planes balanced as a real run's setup would (engine/load_balance.hpp, the same
  // grid choice, cuts and pair corrections) by particles or pairs; none: equal boxes of the
  // least-import grid. (Time cannot be modelled.)
  Balance balance = Balance::None;
  double tolerance = 1.05;  // decomposition.balance_tolerance
  // Several species (issue 31): the type (0-based) of every particle and the squared cutoff of
  // every pair of types, [ti · type_count + tj], so that pairs are counted within each pair's
  // own cutoff as a run counts them; empty: one cutoff, `cutoff` of model_decomposition().
  std::vector<std::uint32_t> types;
  std::vector<double> pair_cutoff_sq;
  int type_count = 1;
  // The bytes of one ghost record per step, forward and reverse (engine/force_compute.hpp,
  // halo_record_bytes: 24 and 24 for a pair style; EAM adds F' forward and the density back).
  long long forward_bytes = 24, reverse_bytes = 24;
  // Neutral territory with angles: R_b of its bonded shell (SimulationConfig::bonded_shell; 0:
  // none), imported besides the tower and plate.
  double bonded_shell = 0.0;
};

// positions: all particles, wrapped into [0, L). `cutoff`: the largest pair cutoff (R = cutoff +
// skin, as a run's import cutoff).
ModelResult model_decomposition(std::span<const Vec3> positions, const Box& box, Method method,
                                double cutoff, double skin, int ranks,
                                const ModelOptions& options = {});

}  // namespace scanmd
