#include "decomposition/census.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace scanmd {

Census Census::take(const Communicator& comm, const ParticleStore& p) {
  Wide local[3] = {static_cast<Wide>(p.n_owned), 0, 0};
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const Wide id = static_cast<Wide>(p.id[i]);
    local[1] += id;
    local[2] += id * id;
  }
  comm.sum(std::span<Wide>(local, 3));
  return {static_cast<long long>(local[0]), local[1], local[2]};
}

void check_census(const Communicator& comm, const ParticleStore& p, const Census& expected,
                  long long step) {
  const Census now = Census::take(comm, p);
  if (now == expected) return;

  // Slow path: gather every (id, rank) on rank 0 and find the culprit.
  struct Owner {
    std::uint64_t id;
    int rank;
    bool operator<(const Owner& o) const { return id != o.id ? id < o.id : rank < o.rank; }
  };
  std::vector<Owner> mine(p.n_owned);
  for (std::size_t i = 0; i < p.n_owned; ++i) mine[i] = {p.id[i], comm.rank()};
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
