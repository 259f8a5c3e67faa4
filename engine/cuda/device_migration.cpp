// engine/cuda/device_migration.cpp — see device_migration.hpp.
#include "engine/cuda/device_migration.hpp"

#include <span>

#include "decomposition/exchange_plan.hpp"
#include "decomposition/halo_exchange.hpp"

namespace scanmd::cuda_step {

std::uint32_t DeviceMigration::migrate(DeviceParticles& p, const GridCuts& cuts, Int3 coord,
                                       Scratch& scratch, cudaStream_t stream) {
  const std::uint32_t n = p.n_owned;
  const auto P = static_cast<std::uint32_t>(comm_.size());
  const auto me = static_cast<std::uint32_t>(comm_.rank());
  ensure(key_, n);
  ensure(perm_, n);
  ensure(offsets_, std::size_t{P} + 1);
  launch_destinations(p.x.data(), n, cuts, key_.data(), stream);
  scratch.ensure(kernels::cuda::counting_sort_scratch_bytes(n, P));
  // Synchronises the stream (key check).
  kernels::cuda::counting_sort(scratch.data(), scratch.size(),
                               std::span<const std::uint32_t>(key_.data(), n), P,
                               std::span<std::uint32_t>(offsets_.data(), std::size_t{P} + 1),
                               std::span<std::uint32_t>(perm_.data(), n), stream);
  download(h_offsets_, offsets_.data(), std::size_t{P} + 1, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (migration counts)");

  // perm: the leavers to ranks below this one, the stayers, the leavers to ranks above.
  const std::uint32_t stay_begin = h_offsets_[me];
  const std::uint32_t kept = h_offsets_[me + 1] - stay_begin;
  const std::uint32_t leavers = n - kept;
  send_offsets_.resize(std::size_t{P} + 1);
  for (std::uint32_t r = 0; r <= P; ++r) send_offsets_[r] = h_offsets_[r] - (r > me ? kept : 0);
  ensure(send_, leavers);
  launch_pack_migrants(perm_.data(), leavers, stay_begin, kept, p.owned_arrays(), send_.data(),
                       stream);
  const ExchangePlan plan = ExchangePlan::make(comm_, send_offsets_);
  ensure(recv_, plan.recv_total);
  exchange_.run(comm_, plan, send_.data(), recv_.data(), HaloExchange::kMigrateTag, cuda_aware_,
                stream);
  const std::uint32_t W = p.fields.state_words();
  if (W > 0) {  // leaver k's words at k·W: perm's run before the stayers, then the one after
    ensure(send_words_, std::size_t{leavers} * W);
    ensure(recv_words_, plan.recv_total * W);
    p.fields.pack_state(perm_.data(), stay_begin, send_words_.data(), stream);
    p.fields.pack_state(perm_.data() + stay_begin + kept, leavers - stay_begin,
                        send_words_.data() + std::size_t{stay_begin} * W, stream);
    words_exchange_.run(comm_, plan.scaled(W), send_words_.data(), recv_words_.data(),
                        HaloExchange::kMigrateFieldsTag, cuda_aware_, stream);
  }

  p.keep_owned(perm_.data() + stay_begin, kept, stream);
  p.append_owned(recv_.data(), static_cast<std::uint32_t>(plan.recv_total), stream);
  if (W > 0)
    p.fields.unpack_state(recv_words_.data(), static_cast<std::uint32_t>(plan.recv_total), kept,
                          stream);
  launch_owned_frame(p.home.data(), p.shift.data(), p.n_owned, coord, stream);
  return leavers;
}

}  // namespace scanmd::cuda_step
