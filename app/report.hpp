// End-of-run report: LAMMPS-style timing table (min / avg / max over ranks), performance,
// peak memory and the import-volume summary. Collective; returns the lines on rank 0.
#pragma once

#include <string>
#include <vector>

#include "core/simulation.hpp"

namespace scanmd {

std::vector<std::string> end_of_run_report(const Simulation& sim, const Communicator& comm,
                                           double loop_seconds, long long steps_run);

// The `import:` line of the run (DESIGN.md §4; format fixed by issue 4).
std::string import_summary_line(const Simulation& sim, const Communicator& comm);

double peak_memory_mib();

// Per-rank import counts at every rebuild as CSV (step,rank,ghosts,tower,plate,
// bytes_per_step, analytic), written by rank 0 to `path`.tmp and renamed, so a crash never
// leaves a half-written file. check_writable() throws (naming the file) when it cannot be
// created; call it before the run.
void check_writable(const std::string& path);
void write_import_csv(const Simulation& sim, const std::string& path);

}  // namespace scanmd
