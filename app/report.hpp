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

}  // namespace scanmd
