// core/cuda/device_exchange.hpp — one ExchangePlan (decomposition/exchange_plan.hpp) executed
// between device buffers: the records of a rebuild (migrants, ghosts) go from a send buffer
// laid out by destination rank to a receive buffer laid out by source rank, as execute() does
// on host arrays.
//
//   self part     device to device (a rank's own periodic images never leave the device)
//   remote parts  straight from device memory when MPI is CUDA-aware (device_selection.hpp),
//                 else through pinned host buffers: only the message parts cross, each once
#pragma once

#include <type_traits>

#include "base/communicator.hpp"
#include "core/cuda/device_memory.hpp"
#include "decomposition/exchange_plan.hpp"

namespace scanmd::cuda_step {

template <class T>
class DeviceExchange {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // send: plan.send_total records (device), packed on `stream`; recv: room for
  // plan.recv_total (device). Collective; returns with recv complete on `stream`'s order
  // (host-staged parts are copied in before it returns, asynchronously).
  void run(const Communicator& comm, const ExchangePlan& plan, const T* send, T* recv, int tag,
           bool cuda_aware, cudaStream_t stream) {
    if (plan.self_send.count > 0)
      copy_d2d(recv + plan.self_recv.offset, send + plan.self_send.offset, plan.self_send.count,
               stream);
    if (plan.sends.empty() && plan.recvs.empty()) return;
    if (cuda_aware) {
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (exchange pack)");
      comm.exchange(plan.sends, plan.recvs, reinterpret_cast<const std::byte*>(send),
                    reinterpret_cast<std::byte*>(recv), sizeof(T), tag);
      return;
    }
    h_send_.ensure(plan.send_total);
    h_recv_.ensure(plan.recv_total);
    for (const MessagePart& part : plan.sends)
      copy_d2h(h_send_.data() + part.offset, send + part.offset, part.count, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (exchange pack)");
    comm.exchange(plan.sends, plan.recvs, reinterpret_cast<const std::byte*>(h_send_.data()),
                  reinterpret_cast<std::byte*>(h_recv_.data()), sizeof(T), tag);
    for (const MessagePart& part : plan.recvs)
      copy_h2d(recv + part.offset, h_recv_.data() + part.offset, part.count, stream);
    // The pinned buffer is reused by the next run: its copies must be done by then.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (exchange unpack)");
  }

 private:
  PinnedBuffer<T> h_send_, h_recv_;
};

}  // namespace scanmd::cuda_step
