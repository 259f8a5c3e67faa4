// The memory a run will need per rank, estimated before anything is allocated, and the memory
// the machine gives it: `scanmd run` refuses a deck whose estimate exceeds what its node has
// (system.cells = [2000, 2000, 2000] is 3.2·10¹⁰ particles: a refusal in well under a second,
// not minutes of lattice building or the kernel's OOM killer).
//
// Estimate of one rank (its box b from the decomposition, the import cutoff R, the density ρ):
//   owned       ρ·|b| (at most N); with a region, ρ is the lattice's, so a rank inside the
//               liquid is counted full
//   ghosts      ρ·V_import(method, b, R), the analytic import volume of DESIGN.md §4
//   list        owned · ρ·(4/3)πR³ entries (half of them, or all for full shell), 4 bytes
//               each (capacity beyond them is never touched), 8 B of row offsets per owned
//   particles   the particle store (owned 144 B, ghosts 84 B, + an eighth), cell key and
//               order (10 B per owned + ghost), halo plan (8 B per owned)
//   cells       the padded box in cells of edge R/2, 8 B each (offsets, histogram), at most
//               the 2^30 a rank may hold (more is the cell-count check's error)
//   pair        the pair style's constants: its Params per pair of types, and a tabulated
//               style's data (the table style: 5 × table_points doubles per pair of types)
// and, on top, the largest of what is held only for a while:
//   list build  46 B per owned + ghost particle, freed after each build
//   end of run  the state hash's records (56 B per owned particle; rank 0 receives rounds of
//               at most 65 536), the output blocks of a trajectory or checkpoint (160 B per row
//               of this rank's block), a data file gathered on rank 0 (80 B per particle)
//   start       a data file's particles, held by every rank until setup (72 B each)
//   libraries   25 MiB per process (MPI, HDF5, the executable)
// and a tenth more for allocator rounding and scratch. The sizes are the README's table
// ("Memory per particle", valgrind massif); the estimate stays above the measured peak resident
// memory, by 10-30% (32 000 to 500 000 particles, 1 and 2 ranks; test app.memory_estimate).
//
// Available to a node: MemAvailable of /proc/meminfo, lowered to the room left under any cgroup
// memory limit of this process (v2: memory.max − memory.current + its reclaimable file cache,
// along the cgroup path; v1: memory.limit_in_bytes − memory.usage_in_bytes); a rank's share is
// that divided by the ranks on its node. SCANMD_AVAILABLE_MEMORY=<bytes> replaces the reading
// (tests; a budget imposed by hand).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "base/communicator.hpp"
#include "decomposition/rank_grid.hpp"
#include "engine/config.hpp"

namespace scanmd {

// A run that needs more memory than its node has: the same message on every rank. The caller
// names the deck key (system.cells, or system.data_file).
class MemoryError : public std::runtime_error {
 public:
  MemoryError(const std::string& what, bool cells_dominate, bool imports_dominate = false)
      : std::runtime_error(what),
        cells_dominate_(cells_dominate),
        imports_dominate_(imports_dominate) {}
  // Most of the memory would go to cells: the box is large for its particles (the density is
  // low), rather than there being too many particles.
  bool cells_dominate() const { return cells_dominate_; }
  // The ghost images of the import region, more than ten times the particles owned, take most
  // of it: the import cutoff R (the pair cutoff or the skin) is far too long (issue 31:
  // potential.cutoff = 1e300 was blamed on system.cells).
  bool imports_dominate() const { return imports_dominate_; }

 private:
  bool cells_dominate_;
  bool imports_dominate_;
};

struct MemoryEstimate {
  double owned = 0, ghosts = 0, list_entries = 0, cells = 0;
  double bytes = 0;       // in all
  double cell_bytes = 0;  // of which the cells
  double pair_bytes = 0;  // of which the pair style's constants (a table's data)
};

// The estimate of `rank` for `particles` particles in total (see above). `start_particles`: the
// particles of a data file every rank holds until setup (0 for the lattice).
MemoryEstimate estimate_rank_memory(const SimulationConfig& config, const RankGrid& grid, int rank,
                                    double particles, double start_particles);

struct AvailableMemory {
  double bytes = 0;    // for the whole node (or cgroup)
  std::string source;  // how it was read, for messages
  bool known = false;  // false: nothing could be read, no check is made
  // For this process alone (ulimit -v: the address space limit less what is mapped but not
  // resident); -1 when unlimited.
  double process_bytes = -1;
  std::string process_source;
};
// Throws std::invalid_argument when SCANMD_AVAILABLE_MEMORY is set to anything but a plain
// non-negative number of bytes.
AvailableMemory available_memory();

// Collective: every rank estimates its own need and compares it with its share of its node's
// memory; throws MemoryError (the same on every rank, naming the lowest rank that does not fit
// and both numbers) when some rank's need exceeds its share.
void check_memory(const Communicator& comm, const SimulationConfig& config, const RankGrid& grid,
                  double particles, double start_particles);

// The particle count of the lattice start without visiting its sites (the memory check comes
// before anything that takes time): all sites, times the region's share of the box.
double lattice_particles_estimate(const SimulationConfig& config);

// "1.5 GiB", "21.3 TiB": bytes in binary units, for messages.
std::string format_bytes(double bytes);

}  // namespace scanmd
