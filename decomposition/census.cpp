#include "decomposition/census.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace scanmd {

Census Census::local(const ParticleStore& p) {
  // Sums modulo 2^128 in unsigned arithmetic: ids are any uint64, so id² and the sums may wrap
  // (the same on every rank and backend; signed overflow would be undefined).
  unsigned __int128 sum = 0, sq = 0;
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const unsigned __int128 id = p.id[i];
    sum += id;
    sq += id * id;
  }
  return {static_cast<long long>(p.n_owned), static_cast<Wide>(sum), static_cast<Wide>(sq)};
}

Census Census::sum(const Communicator& comm, Census local) {
  Wide w[3] = {static_cast<Wide>(local.count), local.id_sum, local.id_sq_sum};
  comm.sum(std::span<Wide>(w, 3));
  return {static_cast<long long>(w[0]), w[1], w[2]};
}

void check_census(const Communicator& comm, const ParticleStore& p, const Census& expected,
                  long long step) {
  check_census(comm, Census::take(comm, p), expected, step,
               [&] { return std::vector<std::uint64_t>(p.id.begin(), p.id.begin() + p.n_owned); });
}

void check_census(const Communicator& comm, const Census& now, const Census& expected,
                  long long step, const std::function<std::vector<std::uint64_t>()>& owned_ids) {
  if (now == expected) return;

  // Slow path: gather every (id, rank) on rank 0 and find the culprit.
  struct Owner {
    std::uint64_t id;
    int rank;
    bool operator<(const Owner& o) const { return id != o.id ? id < o.id : rank < o.rank; }
  };
  const std::vector<std::uint64_t> ids = owned_ids();
  std::vector<Owner> mine(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) mine[i] = {ids[i], comm.rank()};
  std::vector<Owner> owners = comm.gatherv<Owner>(mine, 0);
  std::string message;
  if (comm.rank() == 0) {
    std::sort(owners.begin(), owners.end());
    for (std::size_t k = 1; k < owners.size() && message.empty(); ++k)
      if (owners[k].id == owners[k - 1].id)
        message = fmt::format("particle id {} is duplicated (on ranks {} and {})", owners[k].id,
                              owners[k - 1].rank, owners[k].rank);
    if (message.empty() && expected.count - now.count == 1)
      message = fmt::format("particle id {} was lost",
                            static_cast<unsigned long long>(expected.id_sum - now.id_sum));
    if (message.empty())
      message = fmt::format("{} particles present, {} expected", now.count, expected.count);
  }
  message = comm.broadcast(std::move(message), 0);
  // Every rank holds the message: a collective error, reported once.
  throw CollectiveError(fmt::format("step {}: particle census failed: {}", step, message));
}

}  // namespace scanmd
