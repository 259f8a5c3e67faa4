// kernels/workspace.hpp — caller-owned, reusable scratch memory for the host primitives.
//
// Collectives never allocate on their own (CUB's rule): every host primitive takes a Workspace&
// first and asks it for typed scratch by *slot*.  A slot keeps its buffer between calls and only
// reallocates when a request needs more bytes than it holds, so a time-step loop that reuses one
// Workspace allocates during the first steps and never again.  Buffers are 64-byte aligned.
//
// Slots 0..kUserSlot-1 belong to the kernels/ primitives (they call each other, e.g. counting_sort
// runs exclusive_scan, so each primitive uses a distinct slot).  Callers may use kUserSlot and up.
// The span returned by get() stays valid until the next get() on the same slot.
//
// The CUDA primitives follow CUB's two-phase form instead: `*_scratch_bytes(n)` says how many
// bytes of device scratch a call needs, the caller passes a `void* d_scratch` at least that big
// (kernels/cuda/api.hpp, DeviceBuffer).
//
// Not thread-safe: one Workspace per thread of control (primitives use OpenMP internally).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <vector>

namespace scanmd::kernels {

class Workspace {
 public:
  // Slots used inside kernels/ (one per primitive that needs scratch).
  enum Slot : std::size_t {
    kScanPartials = 0,   // per-thread chunk totals of the parallel scan
    kSortHistogram = 1,  // per-thread key histograms of the parallel counting sort
    kCompactCounts = 2,  // reserved
    kUserSlot = 8,       // first slot free for callers
  };

  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace(Workspace&&) noexcept = default;
  Workspace& operator=(Workspace&&) noexcept = default;

  // n elements of T in `slot`; contents are unspecified (left over from earlier use).
  template <class T>
  std::span<T> get(std::size_t slot, std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "Workspace hands out raw storage: T must be trivially copyable");
    static_assert(alignof(T) <= kAlign);
    if (slot >= blocks_.size()) blocks_.resize(slot + 1);
    Block& b = blocks_[slot];
    const std::size_t bytes = n * sizeof(T);
    if (bytes > b.bytes) {
      // Grow geometrically so slowly growing requests do not reallocate every call.
      const std::size_t grown = std::max(bytes, b.bytes + b.bytes / 2);
      b.data.reset(static_cast<std::byte*>(::operator new (grown, std::align_val_t{kAlign})));
      b.bytes = grown;
      ++allocations_;
    }
    return {reinterpret_cast<T*>(b.data.get()), n};
  }

  // Bytes currently held, and how many allocations happened so far (for tests and logs).
  std::size_t capacity_bytes() const {
    std::size_t total = 0;
    for (const Block& b : blocks_) total += b.bytes;
    return total;
  }
  std::size_t allocations() const { return allocations_; }

  // Frees everything (the next get() allocates again).
  void release() { blocks_.clear(); }

 private:
  static constexpr std::size_t kAlign = 64;
  struct AlignedDelete {
    void operator()(std::byte* p) const { ::operator delete (p, std::align_val_t{kAlign}); }
  };
  struct Block {
    std::unique_ptr<std::byte[], AlignedDelete> data;
    std::size_t bytes = 0;
  };
  std::vector<Block> blocks_;
  std::size_t allocations_ = 0;
};

}  // namespace scanmd::kernels
