// core/cuda/device_halo.cpp — see device_halo.hpp.
#include "core/cuda/device_halo.hpp"

#include <span>
#include <stdexcept>

namespace scanmd::cuda_step {

void DeviceHalo::reserve(std::uint32_t m) {
  m_ = m;
  ensure(export_index_, m);
  ensure(send_x_, m);
  ensure(send_f_, m);
}

void DeviceHalo::set_plan(const HaloExchange& halo, const DeviceParticles& p,
                          cudaStream_t stream) {
  const ExchangePlan& plan = halo.plan();
  const std::vector<std::uint32_t>& export_index = halo.export_index();
  if (export_index.size() != plan.send_total || p.n != p.n_owned + plan.recv_total)
    throw std::logic_error("backend cuda: halo plan and particle store disagree");
  if (plan.self_send.count != plan.self_recv.count)
    throw std::logic_error("backend cuda: self part of the halo plan is not symmetric");
  sends_ = plan.sends;
  recvs_ = plan.recvs;
  recv_total_ = plan.recv_total;
  self_ = {static_cast<std::uint32_t>(plan.self_send.offset),
           static_cast<std::uint32_t>(plan.self_recv.offset),
           static_cast<std::uint32_t>(plan.self_send.count)};
  reserve(static_cast<std::uint32_t>(export_index.size()));
  upload(export_index_.data(), export_index, m_, stream);
}

std::uint32_t DeviceHalo::make_self_images(DeviceParticles& p, const ExportGeometry& geometry,
                                           Scratch& scratch, DeviceFlags* flags,
                                           cudaStream_t stream) {
  const std::uint32_t n_owned = p.n_owned;
  ensure(images_, n_owned);
  ensure(image_offsets_, std::size_t{n_owned} + 1);
  scratch.ensure(kernels::cuda::scan_scratch_bytes<std::uint32_t>(n_owned));
  auto args = [&] {
    return GhostArgs{p.id.data(), p.type.data(), p.x.data(), p.home.data(), p.shift.data(),
                     n_owned,     geometry,   flags};
  };
  launch_count_images(args(), images_.data(), stream);
  kernels::cuda::exclusive_scan<std::uint32_t>(
      scratch.data(), scratch.size(), std::span<const std::uint32_t>(images_.data(), n_owned),
      std::span<std::uint32_t>(image_offsets_.data(), n_owned), image_offsets_.data() + n_owned,
      stream);
  const std::uint32_t m = read_one(image_offsets_.data() + n_owned, stream);
  // Owned data stay where they are; the ghost slots behind them are rewritten.
  p.resize_ghosts(m, stream);
  reserve(m);
  launch_fill_ghosts(args(), image_offsets_.data(), export_index_.data(), stream);
  sends_.clear();
  recvs_.clear();
  recv_total_ = m;
  self_ = {0, 0, m};
  return m;
}

void DeviceHalo::forward_local(DeviceParticles& p, cudaStream_t stream) {
  launch_pack_positions(p.x.data(), export_index_.data(), m_, self_, send_x_.data(),
                        p.x.data() + p.n_owned, stream);
}

void DeviceHalo::forward_remote(DeviceParticles& p, cudaStream_t stream) {
  forward_local(p, stream);
  Vec3* ghosts = p.x.data() + p.n_owned;
  if (cuda_aware_) {
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (forward pack)");
    comm_.exchange(sends_, recvs_, reinterpret_cast<const std::byte*>(send_x_.data()),
                   reinterpret_cast<std::byte*>(ghosts), sizeof(Vec3), HaloExchange::kForwardTag);
    return;
  }
  h_send_x_.ensure(m_);
  h_recv_x_.ensure(recv_total_);
  copy_d2h(h_send_x_.data(), send_x_.data(), m_, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (forward pack)");
  comm_.exchange(sends_, recvs_, reinterpret_cast<const std::byte*>(h_send_x_.data()),
                 reinterpret_cast<std::byte*>(h_recv_x_.data()), sizeof(Vec3),
                 HaloExchange::kForwardTag);
  for (const MessagePart& part : recvs_)
    copy_h2d(ghosts + part.offset, h_recv_x_.data() + part.offset, part.count, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (forward unpack)");
}

void DeviceHalo::reverse_local(DeviceParticles& p, DeviceFlags* flags, cudaStream_t stream) {
  launch_sum_ghost_forces(p.f.data(), p.f.data() + p.n_owned, send_f_.data(),
                          export_index_.data(), m_, self_, flags, stream);
}

void DeviceHalo::reverse_remote(DeviceParticles& p, DeviceFlags* flags, cudaStream_t stream) {
  const Fix3* ghost_f = p.f.data() + p.n_owned;
  if (cuda_aware_) {
    comm_.exchange(recvs_, sends_, reinterpret_cast<const std::byte*>(ghost_f),
                   reinterpret_cast<std::byte*>(send_f_.data()), sizeof(Fix3),
                   HaloExchange::kReverseTag);
  } else {
    h_back_f_.ensure(recv_total_);
    h_send_f_.ensure(m_);
    copy_d2h(h_back_f_.data(), ghost_f, recv_total_, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (reverse)");
    comm_.exchange(recvs_, sends_, reinterpret_cast<const std::byte*>(h_back_f_.data()),
                   reinterpret_cast<std::byte*>(h_send_f_.data()), sizeof(Fix3),
                   HaloExchange::kReverseTag);
    for (const MessagePart& part : sends_)
      copy_h2d(send_f_.data() + part.offset, h_send_f_.data() + part.offset, part.count, stream);
  }
  reverse_local(p, flags, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (reverse)");
}

}  // namespace scanmd::cuda_step
