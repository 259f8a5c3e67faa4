// End-of-run report: LAMMPS-style timing table (min / avg / max over ranks), performance,
// peak memory and the import-volume summary. Collective; returns the lines on rank 0.
#pragma once

#include <string>
#include <vector>

#include "engine/simulation.hpp"

namespace scanmd {

// One row of the timing table: a phase's seconds (min / avg / max over ranks) and its share
// of the loop time (avg / avg loop time).
struct TimingRow {
  std::string section;
  double min = 0, avg = 0, max = 0, percent = 0;
};

// pair, neigh, comm (  fwd,   rev,   migr,   plan), output, other. `output_seconds`: this
// rank's time writing files (the app's writers), added to the output row. Collective.
std::vector<TimingRow> timing_table(const Simulation& sim, const Communicator& comm,
                                    double loop_seconds, double output_seconds = 0.0);

std::vector<std::string> end_of_run_report(const Simulation& sim, const Communicator& comm,
                                           double loop_seconds, long long steps_run,
                                           const std::vector<TimingRow>& timing);

// "balance at step 0 (pairs): max/mean 2.000 -> 1.004; cut planes z: 0 26.4 52.9" (or "within
// the tolerance, cut planes kept").
std::string balance_line(const BalanceStep& b);

// With decomposition.balance and a grid left to choose: the grid chosen and why ("grid 2x2x1 for
// balance: predicted pairs max/mean 1.001 once balanced; the least-import grid 1x1x4 would give
// 1.165", or "grid 1x1x2: the least-import grid, ..."); empty otherwise.
std::string grid_choice_line(const Simulation& sim);

// "load per rank: particles 1150 / 1152.0 / 1154 (max/mean 1.002), pairs ... (min / avg / max)":
// the work each rank had at the last force call. Collective.
std::string load_line(const Simulation& sim, const Communicator& comm);

// The `import:` line of the run (DESIGN.md §4; format fixed by issue 4).
std::string import_summary_line(const Simulation& sim, const Communicator& comm);

// CUDA backend: what its rebuilds after setup copied from the device to the host, per rank
// (ImportCounts::device_to_host_bytes: counts, flags and message buffers on the device path;
// the owned particles too through the host): mean and max per rebuild, and per owned
// particle. Empty for the host backend or without such rebuilds. Collective.
std::string device_transfer_line(const Simulation& sim, const Communicator& comm);

double peak_memory_mib();

// Per-rank import counts at every rebuild as CSV (step,rank,ghosts,tower,plate,
// bytes_per_step, analytic, pairs), written by rank 0 to `path`.tmp and renamed, so a crash
// never leaves a half-written file. RunOutput checks the path and backs up an existing file
// before the first step.
void write_import_csv(const Simulation& sim, const std::string& path);

}  // namespace scanmd
