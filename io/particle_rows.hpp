// Particles as file rows, and moving them between ranks for parallel I/O.
//
// Files store particles ordered by id (ids are 1..N, row = id − 1). For a collective write
// every rank takes one contiguous block of rows, rank r the rows [⌊rN/P⌋, ⌊(r+1)N/P⌋)
// (RowBlock), whatever particles it owns in the simulation. order_by_id() moves the records
// there: destination of each record → counting sort by destination (count → exclusive scan →
// scatter, kernels/counting_sort.hpp) → Communicator::all_to_allv of the records → placed at row − block.lo. A restart runs the other direction with redistribute()
// and destinations chosen by the caller (the rank whose box holds the position).
//
// ParticleRow is a plain struct so io/ does not depend on engine/: the app fills it from the
// particle store (forces already converted from fixed point).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/communicator.hpp"

namespace scanmd::io {

struct ParticleRow {
  std::uint64_t id = 0;  // 1-based
  double x[3] = {0, 0, 0};
  double v[3] = {0, 0, 0};
  double f[3] = {0, 0, 0};
  std::int32_t image[3] = {0, 0, 0};
  std::int32_t type = 0;  // 0-based (LAMMPS type − 1)
};

struct RowBlock {
  std::int64_t lo = 0, hi = 0;  // rows [lo, hi)
  std::int64_t size() const { return hi - lo; }
};

// Rank `rank`'s block of `n` rows over `ranks` ranks (balanced, contiguous, in rank order).
RowBlock row_block(std::int64_t n, int rank, int ranks);

// Words that travel with the rows: the optional per-particle fields' values
// (base/particle_fields.hpp), `stride` per row (the same on every rank), in row order.
struct RowWords {
  std::size_t stride = 0;
  std::vector<std::uint64_t> words;
};

// Sends rows[i] to rank dest[i] (collective); returns what this rank received, grouped by
// source rank, each group in the sender's order. `words` (if given, stride > 0) go with their
// rows and are replaced by the received ones, in the order of the returned rows.
std::vector<ParticleRow> redistribute(const Communicator& comm, std::span<const ParticleRow> rows,
                                      std::span<const std::uint32_t> dest,
                                      RowWords* words = nullptr);

// Every rank passes the particles it owns; returns this rank's row block of all n particles,
// sorted by id, and `words` (if given) the same way. Throws if the ids are not exactly 1..n,
// each once (collective: all ranks throw together).
std::vector<ParticleRow> order_by_id(const Communicator& comm, std::span<const ParticleRow> rows,
                                     std::int64_t n, RowWords* words = nullptr);

}  // namespace scanmd::io
