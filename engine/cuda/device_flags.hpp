// engine/cuda/device_flags.hpp — the DeviceFlags of the CUDA time step (launch.hpp) in device
// memory and their pinned host mirror.
//
// Kernels never print: they raise flags (lowest offending index, atomicMin) and add sums into
// one DeviceFlags instance. fetch() copies it to the mirror and waits for the stream — every
// synchronisation point of the backend goes through it, and the backend turns what the mirror
// says into exceptions (device_errors.hpp) before anything observes a broken state.
#pragma once

#include <cstddef>

#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/launch.hpp"

namespace scanmd::cuda_step {

class DeviceFlagsMirror {
 public:
  // Error fields kNone (they are never cleared: the run stops at the first error), sums 0.
  DeviceFlagsMirror() {
    flags_.grow(1);
    mirror_.ensure(1);
    DeviceFlags init{};
    init.bad_position = init.bad_cell = init.pair_overflow = init.sum_overflow =
        init.kinetic_overflow = init.bond_bad = init.bonded_overflow = kNone;
    check(cudaMemcpy(flags_.data(), &init, sizeof init, cudaMemcpyHostToDevice),
          "cudaMemcpy flags");
    *mirror_ = init;
  }

  DeviceFlags* device() { return flags_.data(); }
  const DeviceFlags& host() const { return *mirror_; }

  // Zeroes `words` consecutive 64-bit fields starting at `field` (a member of device()).
  void reset(unsigned long long* field, std::size_t words, cudaStream_t stream) {
    check(cudaMemsetAsync(field, 0, words * sizeof(unsigned long long), stream),
          "cudaMemsetAsync flags");
  }
  // The device flags into the mirror; waits for the stream.
  void fetch(cudaStream_t stream) {
    copy_d2h(mirror_.data(), flags_.data(), 1, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }

 private:
  DeviceBuffer<DeviceFlags> flags_;
  PinnedBuffer<DeviceFlags> mirror_;
};

// A 128-bit sum of the flags (lo, hi words).
inline __int128 wide(const unsigned long long (&w)[2]) {
  const unsigned __int128 u = (static_cast<unsigned __int128>(w[1]) << 64) | w[0];
  return static_cast<__int128>(u);
}

}  // namespace scanmd::cuda_step
