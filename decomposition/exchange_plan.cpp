#include "decomposition/exchange_plan.hpp"

namespace scanmd {

ExchangePlan ExchangePlan::make(const Communicator& comm, std::span<const std::size_t> send_offsets) {
  const int P = comm.size();
  std::vector<long long> send_counts(P), recv_counts(P);
  for (int r = 0; r < P; ++r)
    send_counts[r] = static_cast<long long>(send_offsets[r + 1] - send_offsets[r]);
  check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_LONG_LONG, recv_counts.data(), 1,
                         MPI_LONG_LONG, comm.get()),
            "MPI_Alltoall(counts)");
  ExchangePlan plan;
  std::size_t recv_offset = 0;
  for (int r = 0; r < P; ++r) {
    const Part s{r, send_offsets[r], static_cast<std::size_t>(send_counts[r])};
    const Part q{r, recv_offset, static_cast<std::size_t>(recv_counts[r])};
    recv_offset += q.count;
    if (r == comm.rank()) {
      plan.self_send = s;
      plan.self_recv = q;
      continue;
    }
    if (s.count > 0) plan.sends.push_back(s);
    if (q.count > 0) plan.recvs.push_back(q);
  }
  plan.send_total = send_offsets[P];
  plan.recv_total = recv_offset;
  return plan;
}

namespace detail {

void exchange_bytes(const Communicator& comm, std::span<const ExchangePlan::Part> sends,
                    std::span<const ExchangePlan::Part> recvs, const std::byte* send,
                    std::byte* recv, std::size_t item_bytes, int tag) {
  std::vector<MPI_Request> requests;
  requests.reserve(sends.size() + recvs.size());
  for (const auto& p : recvs) {
    requests.emplace_back();
    check_mpi(MPI_Irecv(recv + p.offset * item_bytes, static_cast<int>(p.count * item_bytes),
                        MPI_BYTE, p.rank, tag, comm.get(), &requests.back()),
              "MPI_Irecv");
  }
  for (const auto& p : sends) {
    requests.emplace_back();
    check_mpi(MPI_Isend(send + p.offset * item_bytes, static_cast<int>(p.count * item_bytes),
                        MPI_BYTE, p.rank, tag, comm.get(), &requests.back()),
              "MPI_Isend");
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
}

}  // namespace detail
}  // namespace scanmd
