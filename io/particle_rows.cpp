// Row blocks and the all-to-all redistribution of particle rows (see particle_rows.hpp).
#include "io/particle_rows.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/counting_sort.hpp"

namespace scanmd::io {

RowBlock row_block(std::int64_t n, int rank, int ranks) {
  return {n * rank / ranks, n * (rank + 1) / ranks};
}

std::vector<ParticleRow> redistribute(const Communicator& comm, std::span<const ParticleRow> rows,
                                      std::span<const std::uint32_t> dest, RowWords* words) {
  const int P = comm.size();
  if (dest.size() != rows.size()) throw std::invalid_argument("redistribute: dest size");

  // Count → scan → scatter: rows grouped by destination, stable.
  kernels::Workspace ws;
  std::vector<std::uint32_t> offsets(static_cast<std::size_t>(P) + 1), perm(rows.size());
  kernels::counting_sort(ws, dest, static_cast<std::uint32_t>(P), offsets, perm);
  std::vector<ParticleRow> send(rows.size());
  for (std::size_t k = 0; k < perm.size(); ++k) send[k] = rows[perm[k]];
  const std::vector<std::size_t> send_offsets(offsets.begin(), offsets.end());
  if (words != nullptr && words->stride > 0) {
    const std::size_t w = words->stride;
    if (words->words.size() != rows.size() * w)
      throw std::invalid_argument("redistribute: words do not match the rows");
    std::vector<std::uint64_t> send_words(words->words.size());
    for (std::size_t k = 0; k < perm.size(); ++k)
      std::copy_n(words->words.data() + perm[k] * w, w, send_words.data() + k * w);
    std::vector<std::size_t> word_offsets(send_offsets);
    for (std::size_t& o : word_offsets) o *= w;
    words->words = comm.all_to_allv<std::uint64_t>(send_words, word_offsets);
  }
  return comm.all_to_allv<ParticleRow>(send, send_offsets);
}

std::vector<ParticleRow> order_by_id(const Communicator& comm, std::span<const ParticleRow> rows,
                                     std::int64_t n, RowWords* words) {
  const int P = comm.size(), rank = comm.rank();
  // Block starts of every rank: the destination of row i is the last block starting <= i.
  std::vector<std::int64_t> starts(P);
  for (int r = 0; r < P; ++r) starts[r] = row_block(n, r, P).lo;
  std::vector<std::uint32_t> dest(rows.size());
  bool bad_id = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::int64_t row = static_cast<std::int64_t>(rows[i].id) - 1;
    if (rows[i].id == 0 || row >= n) {
      bad_id = true;
      dest[i] = 0;
      continue;
    }
    dest[i] = static_cast<std::uint32_t>(std::upper_bound(starts.begin(), starts.end(), row) -
                                         starts.begin() - 1);
  }
  std::vector<ParticleRow> got = redistribute(comm, rows, dest, words);
  const std::size_t w = words != nullptr ? words->stride : 0;

  const RowBlock block = row_block(n, rank, P);
  std::vector<ParticleRow> out(static_cast<std::size_t>(block.size()));
  std::vector<char> seen(out.size(), 0);
  std::vector<std::uint64_t> out_words(out.size() * w);
  for (std::size_t g = 0; g < got.size(); ++g) {
    const ParticleRow& p = got[g];
    const std::int64_t k = static_cast<std::int64_t>(p.id) - 1 - block.lo;
    if (k < 0 || k >= block.size() || seen[k]) {
      bad_id = true;
      continue;
    }
    seen[k] = 1;
    out[k] = p;
    if (w > 0)
      std::copy_n(words->words.data() + g * w, w,
                  out_words.data() + static_cast<std::size_t>(k) * w);
  }
  if (w > 0) words->words = std::move(out_words);
  if (std::find(seen.begin(), seen.end(), 0) != seen.end()) bad_id = true;
  if (comm.any(bad_id))
    throw std::runtime_error("particle ids are not exactly 1.." + std::to_string(n) +
                             " (each once): cannot write rows ordered by id");
  return out;
}

}  // namespace scanmd::io
