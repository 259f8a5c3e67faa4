#include "decomposition/exchange_plan.hpp"

namespace scanmd {

ExchangePlan ExchangePlan::make(const Communicator& comm,
                                std::span<const std::size_t> send_offsets) {
  const int P = comm.size();
  std::vector<std::size_t> send_counts(P);
  for (int r = 0; r < P; ++r) send_counts[r] = send_offsets[r + 1] - send_offsets[r];
  const std::vector<std::size_t> recv_counts = comm.all_to_all<std::size_t>(send_counts);
  ExchangePlan plan;
  std::size_t recv_offset = 0;
  for (int r = 0; r < P; ++r) {
    const Part s{r, send_offsets[r], send_counts[r]};
    const Part q{r, recv_offset, recv_counts[r]};
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

}  // namespace scanmd
