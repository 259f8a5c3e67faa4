// engine/cuda/device_exchange.hpp — one ExchangePlan (decomposition/exchange_plan.hpp) executed
// between device buffers: the records of a rebuild (migrants, ghosts) go from a send buffer
// laid out by destination rank to a receive buffer laid out by source rank, as execute() does
// on host arrays.
//
//   self part     device to device (a rank's own periodic images never leave the device)
//   remote parts  straight from device memory when MPI is CUDA-aware (device_selection.hpp),
//                 else through pinned host buffers: only the message parts cross, each once
// The halo's every-step forward and reverse exchanges use the remote part alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <type_traits>

#include "base/communicator.hpp"
#include "decomposition/exchange_plan.hpp"
#include "engine/cuda/device_memory.hpp"

namespace scanmd::cuda_step {

template <class T>
class DeviceExchange {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // A whole plan: send holds plan.send_total records (device) packed on `stream`, recv has room
  // for plan.recv_total (device). Collective; on return recv is complete in `stream`'s order.
  void run(const Communicator& comm, const ExchangePlan& plan, const T* send, T* recv, int tag,
           bool cuda_aware, cudaStream_t stream) {
    if (plan.self_send.count > 0)
      copy_d2d(recv + plan.self_recv.offset, send + plan.self_send.offset, plan.self_send.count,
               stream);
    remote(comm, plan.sends, plan.recvs, send, recv, tag, cuda_aware, stream);
  }

  // The parts to and from other ranks only (the halo's forward and reverse exchanges, whose self
  // parts are kernels of their own): `sends` index `send`, `recvs` index `recv`.
  void remote(const Communicator& comm, std::span<const MessagePart> sends,
              std::span<const MessagePart> recvs, const T* send, T* recv, int tag, bool cuda_aware,
              cudaStream_t stream) {
    if (sends.empty() && recvs.empty()) return;
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (exchange pack)");
    if (cuda_aware) {
      comm.exchange(sends, recvs, reinterpret_cast<const std::byte*>(send),
                    reinterpret_cast<std::byte*>(recv), sizeof(T), tag);
      return;
    }
    h_send_.ensure(extent(sends));
    h_recv_.ensure(extent(recvs));
    for (const MessagePart& part : sends)
      copy_d2h(h_send_.data() + part.offset, send + part.offset, part.count, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (exchange download)");
    comm.exchange(sends, recvs, reinterpret_cast<const std::byte*>(h_send_.data()),
                  reinterpret_cast<std::byte*>(h_recv_.data()), sizeof(T), tag);
    for (const MessagePart& part : recvs)
      copy_h2d(recv + part.offset, h_recv_.data() + part.offset, part.count, stream);
    // The pinned buffer is reused by the next call: its copies must be done by then.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (exchange upload)");
  }

 private:
  static std::size_t extent(std::span<const MessagePart> parts) {
    std::size_t end = 0;
    for (const MessagePart& p : parts) end = std::max(end, p.offset + p.count);
    return end;
  }

  PinnedBuffer<T> h_send_, h_recv_;
};

}  // namespace scanmd::cuda_step
