// Rank-aware logging on top of spdlog.
//
// Rank 0 logs at info (or the level asked for); every other rank only warnings and errors,
// prefixed with "[rank N]", so a multi-rank run prints one copy of the normal output and
// every rank's problems.
#pragma once

#include <string>

namespace scanmd::io {

void setup_logging(int rank, int size, bool verbose = false);

}  // namespace scanmd::io
