// `scanmd run DECK [--restart FILE]`: wiring of deck → Simulation → thermo, output files and
// the end-of-run report.
#pragma once

#include <string>
#include <vector>

namespace scanmd {

struct RunOptions {
  std::string deck;
  std::vector<std::string> overrides;  // "section.key=value"
  std::string backend;                 // empty: as the deck says
  std::string restart;                 // checkpoint to continue from; empty: none
  bool verbose = false;
};

// Collective over MPI_COMM_WORLD. Returns the process exit code.
int run_command(const RunOptions& options);

}  // namespace scanmd
