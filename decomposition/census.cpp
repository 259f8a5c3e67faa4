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
  const int n = static_cast<int>(p.n_owned);
  std::vector<int> counts(comm.size()), displs(comm.size());
  check_mpi(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.get()), "MPI_Gather");
  std::vector<std::uint64_t> all;
  if (comm.rank() == 0) {
    int total = 0;
    for (int r = 0; r < comm.size(); ++r) displs[r] = total, total += counts[r];
    all.resize(total);
  }
  check_mpi(MPI_Gatherv(p.id.data(), n, MPI_UINT64_T, all.data(), counts.data(), displs.data(),
                        MPI_UINT64_T, 0, comm.get()),
            "MPI_Gatherv");
  std::string message;
  if (comm.rank() == 0) {
    std::vector<std::pair<std::uint64_t, int>> owners;
    for (int r = 0; r < comm.size(); ++r)
      for (int k = 0; k < counts[r]; ++k) owners.emplace_back(all[displs[r] + k], r);
    std::sort(owners.begin(), owners.end());
    for (std::size_t k = 1; k < owners.size() && message.empty(); ++k)
      if (owners[k].first == owners[k - 1].first)
        message = fmt::format("particle id {} is duplicated (on ranks {} and {})", owners[k].first,
                              owners[k - 1].second, owners[k].second);
    if (message.empty() && expected.count - now.count == 1)
      message = fmt::format("particle id {} was lost",
                            static_cast<unsigned long long>(expected.id_sum - now.id_sum));
    if (message.empty())
      message = fmt::format("{} particles present, {} expected", now.count, expected.count);
  }
  int len = static_cast<int>(message.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, comm.get());
  message.resize(len);
  MPI_Bcast(message.data(), len, MPI_CHAR, 0, comm.get());
  throw std::runtime_error(fmt::format("particle census failed at step {}: {}", step, message));
}

}  // namespace scanmd
