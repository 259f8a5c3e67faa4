// Who sends how many items to whom — built on rebuild steps, executed every step.
//
// A plan is made from the sender's per-destination counts (a prefix-summed offsets array
// from the counting sort of export entries by destination rank) and one MPI_Alltoall of
// those counts. Executing it moves items of any trivially copyable type with nonblocking
// point-to-point messages to the partners only; the part a rank sends to itself (periodic
// images of its own particles) is a plain copy. `execute_reverse` runs the same plan
// backwards (ghost forces back to their owners).
#pragma once

#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "base/communicator.hpp"

namespace scanmd {

struct ExchangePlan {
  using Part = MessagePart;
  std::vector<Part> sends;  // to other ranks, offsets into the send buffer
  std::vector<Part> recvs;  // from other ranks, offsets into the receive buffer
  Part self_send{-1, 0, 0};
  Part self_recv{-1, 0, 0};
  std::size_t send_total = 0;
  std::size_t recv_total = 0;

  // send_offsets: size() + 1 entries, items for rank r at [send_offsets[r], send_offsets[r+1]).
  // Receive buffer order: by source rank, ascending (self included in its place).
  static ExchangePlan make(const Communicator& comm, std::span<const std::size_t> send_offsets);

  // The same plan for items `w` times larger (each item sent as w words of a second buffer:
  // the per-particle fields of migrants). No communication.
  ExchangePlan scaled(std::size_t w) const {
    ExchangePlan out = *this;
    for (Part* part : {&out.self_send, &out.self_recv}) {
      part->offset *= w;
      part->count *= w;
    }
    for (auto* parts : {&out.sends, &out.recvs})
      for (Part& part : *parts) {
        part.offset *= w;
        part.count *= w;
      }
    out.send_total *= w;
    out.recv_total *= w;
    return out;
  }

  std::size_t remote_send_count() const { return send_total - self_send.count; }
  std::size_t remote_recv_count() const { return recv_total - self_recv.count; }
};

template <class T>
void execute(const Communicator& comm, const ExchangePlan& plan, std::span<const T> send,
             std::span<T> recv, int tag) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (plan.self_send.count > 0)
    std::memcpy(recv.data() + plan.self_recv.offset, send.data() + plan.self_send.offset,
                plan.self_send.count * sizeof(T));
  comm.exchange(plan.sends, plan.recvs, reinterpret_cast<const std::byte*>(send.data()),
                reinterpret_cast<std::byte*>(recv.data()), sizeof(T), tag);
}

// Sends recv-side items back along the plan: `back` is laid out like the receive buffer,
// `out` like the send buffer.
template <class T>
void execute_reverse(const Communicator& comm, const ExchangePlan& plan, std::span<const T> back,
                     std::span<T> out, int tag) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (plan.self_send.count > 0)
    std::memcpy(out.data() + plan.self_send.offset, back.data() + plan.self_recv.offset,
                plan.self_send.count * sizeof(T));
  comm.exchange(plan.recvs, plan.sends, reinterpret_cast<const std::byte*>(back.data()),
                reinterpret_cast<std::byte*>(out.data()), sizeof(T), tag);
}

}  // namespace scanmd
