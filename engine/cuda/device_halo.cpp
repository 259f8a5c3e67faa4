// engine/cuda/device_halo.cpp — see device_halo.hpp.
#include "engine/cuda/device_halo.hpp"

#include <span>
#include <stdexcept>

namespace scanmd::cuda_step {

void DeviceHalo::reserve(std::uint32_t m) {
  m_ = m;
  ensure(export_index_, m);
  ensure(send_x_, m);
  ensure(send_f_, m);
}

void DeviceHalo::set_plan(const HaloExchange& halo, const DeviceParticles& p, cudaStream_t stream) {
  const ExchangePlan& plan = halo.plan();
  const std::vector<std::uint32_t>& export_index = halo.export_index();
  if (export_index.size() != plan.send_total || p.n != p.n_owned + plan.recv_total)
    throw std::logic_error("backend cuda: halo plan and particle store disagree");
  if (plan.self_send.count != plan.self_recv.count)
    throw std::logic_error("backend cuda: self part of the halo plan is not symmetric");
  sends_ = plan.sends;
  recvs_ = plan.recvs;
  self_ = {static_cast<std::uint32_t>(plan.self_send.offset),
           static_cast<std::uint32_t>(plan.self_recv.offset),
           static_cast<std::uint32_t>(plan.self_send.count)};
  reserve(static_cast<std::uint32_t>(export_index.size()));
  upload(export_index_.data(), export_index, m_, stream);
}

ImportCounts DeviceHalo::make_plan(DeviceParticles& p, const ExportGeometry& geometry, Int3 coord,
                                   Scratch& scratch, DeviceFlags* flags, cudaStream_t stream) {
  const std::uint32_t n = p.n_owned;
  const auto P = static_cast<std::uint32_t>(comm_.size());
  // 1. Export entries: count → exclusive scan → fill, in particle order.
  ensure(counts_, n);
  ensure(entry_offsets_, std::size_t{n} + 1);
  scratch.ensure(kernels::cuda::scan_scratch_bytes<std::uint32_t>(n));
  const ExportArgs args{p.x.data(), n, geometry, coord};
  launch_count_exports(args, counts_.data(), stream);
  kernels::cuda::exclusive_scan<std::uint32_t>(
      scratch.data(), scratch.size(), std::span<const std::uint32_t>(counts_.data(), n),
      std::span<std::uint32_t>(entry_offsets_.data(), n), entry_offsets_.data() + n, stream);
  const std::uint32_t m = read_one(entry_offsets_.data() + n, stream);
  ensure(dest_, m);
  ensure(particle_, m);
  ensure(entry_shift_, m);
  ensure(entry_kind_, m);
  launch_fill_exports(args, entry_offsets_.data(), dest_.data(), particle_.data(),
                      entry_shift_.data(), entry_kind_.data(), stream);

  // 2. Entries by destination rank: stable counting sort (synchronises), offsets to the host.
  ensure(perm_, m);
  ensure(dest_offsets_, std::size_t{P} + 1);
  scratch.ensure(kernels::cuda::counting_sort_scratch_bytes(m, P));
  kernels::cuda::counting_sort(scratch.data(), scratch.size(),
                               std::span<const std::uint32_t>(dest_.data(), m), P,
                               std::span<std::uint32_t>(dest_offsets_.data(), std::size_t{P} + 1),
                               std::span<std::uint32_t>(perm_.data(), m), stream);
  download(h_dest_offsets_, dest_offsets_.data(), std::size_t{P} + 1, stream);
  reserve(m);
  ensure(send_ghosts_, m);
  launch_pack_ghosts({perm_.data(), particle_.data(), entry_shift_.data(), entry_kind_.data(), m,
                      p.id.data(), p.type.data(), p.x.data(), coord, geometry.cuts.dims(),
                      export_index_.data(), send_ghosts_.data()},
                     stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (export counts)");

  // 3. Counts to the partners, records exchanged, ghosts appended in receive order.
  send_offsets_.assign(h_dest_offsets_.begin(), h_dest_offsets_.begin() + P + 1);
  const ExchangePlan plan = ExchangePlan::make(comm_, send_offsets_);
  if (plan.self_send.count != plan.self_recv.count)
    throw std::logic_error("backend cuda: self part of the halo plan is not symmetric");
  ensure(recv_ghosts_, plan.recv_total);
  ghost_exchange_.run(comm_, plan, send_ghosts_.data(), recv_ghosts_.data(),
                      HaloExchange::kGhostTag, cuda_aware_, stream);
  const auto g = static_cast<std::uint32_t>(plan.recv_total);
  p.resize_ghosts(g, stream);
  const std::uint32_t o = p.n_owned;
  launch_unpack_ghosts(
      recv_ghosts_.data(), g,
      {p.id.data() + o, p.type.data() + o, p.x.data() + o, p.home.data() + o, p.shift.data() + o},
      flags, stream);

  sends_ = plan.sends;
  recvs_ = plan.recvs;
  self_ = {static_cast<std::uint32_t>(plan.self_send.offset),
           static_cast<std::uint32_t>(plan.self_recv.offset),
           static_cast<std::uint32_t>(plan.self_send.count)};
  ImportCounts counts;
  counts.ghosts = g;
  const long long fwd = static_cast<long long>(plan.remote_send_count()) * forward_bytes_;
  const long long rev =
      reverse_ ? static_cast<long long>(plan.remote_recv_count()) * reverse_bytes_ : 0;
  counts.bytes_per_step = fwd + rev;
  return counts;
}

void DeviceHalo::forward_local(DeviceParticles& p, DeviceFlags* fused, cudaStream_t stream) {
  launch_pack_positions(p.x.data(), export_index_.data(), m_, self_, send_x_.data(),
                        p.x.data() + p.n_owned, p.f.data() + p.n_owned, p.n - p.n_owned, fused,
                        stream);
}

void DeviceHalo::forward_remote(DeviceParticles& p, DeviceFlags* fused, cudaStream_t stream) {
  forward_local(p, fused, stream);
  // Received straight into the ghost slots: they are laid out in receive order.
  forward_exchange_.remote(comm_, sends_, recvs_, send_x_.data(), p.x.data() + p.n_owned,
                           HaloExchange::kForwardTag, cuda_aware_, stream);
}

void DeviceHalo::reverse_local(DeviceParticles& p, DeviceFlags* flags, cudaStream_t stream) {
  launch_sum_ghost_forces(p.f.data(), p.f.data() + p.n_owned, send_f_.data(), export_index_.data(),
                          m_, self_, flags, stream);
}

void DeviceHalo::reverse_remote(DeviceParticles& p, DeviceFlags* flags, cudaStream_t stream) {
  // The plan backwards: ghost forces (receive order) to the ranks that sent the ghosts, into
  // the send-buffer layout of their export entries.
  reverse_exchange_.remote(comm_, recvs_, sends_, p.f.data() + p.n_owned, send_f_.data(),
                           HaloExchange::kReverseTag, cuda_aware_, stream);
  reverse_local(p, flags, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (reverse)");
}

}  // namespace scanmd::cuda_step
