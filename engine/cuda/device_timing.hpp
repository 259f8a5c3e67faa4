// engine/cuda/device_timing.hpp — device time of the CUDA backend's phases.
//
// Kernels are timed with CUDA events around each device phase (pair, the device-only forward
// and reverse), collected after the next stream synchronisation into the Timers the Simulation
// owns (EventTimer). Phases that wait for the host (rebuild, exchanges with other ranks) start
// with a stream synchronisation outside their timer and are timed on the wall clock, so no
// phase is charged for the device work queued before it. A rebuild's binning and list build
// are also timed apart (BuildTimer), for benchmarks.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "base/timers.hpp"
#include "kernels/cuda/api.hpp"

namespace scanmd::cuda_step {

class EventTimer {
 public:
  EventTimer() = default;
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    for (const Pending& p : pending_) {
      cudaEventDestroy(p.start);
      cudaEventDestroy(p.stop);
    }
    for (cudaEvent_t e : free_) cudaEventDestroy(e);
  }

  void begin(Phase phase, cudaStream_t stream) {
    Pending p{phase, take(), nullptr};
    kernels::cuda::check(cudaEventRecord(p.start, stream), "cudaEventRecord");
    pending_.push_back(p);
  }
  void end(cudaStream_t stream) {
    Pending& p = pending_.back();
    p.stop = take();
    kernels::cuda::check(cudaEventRecord(p.stop, stream), "cudaEventRecord");
  }
  // Only after the stream was synchronised: every recorded event has completed.
  void harvest(Timers& timers) {
    for (const Pending& p : pending_) {
      float ms = 0;
      kernels::cuda::check(cudaEventElapsedTime(&ms, p.start, p.stop), "cudaEventElapsedTime");
      timers.add(p.phase, 1e-3 * ms);
      free_.push_back(p.start);
      free_.push_back(p.stop);
    }
    pending_.clear();
  }

 private:
  struct Pending {
    Phase phase;
    cudaEvent_t start, stop;
  };
  cudaEvent_t take() {
    if (!free_.empty()) {
      cudaEvent_t e = free_.back();
      free_.pop_back();
      return e;
    }
    cudaEvent_t e = nullptr;
    kernels::cuda::check(cudaEventCreate(&e), "cudaEventCreate");
    return e;
  }
  std::vector<cudaEvent_t> free_;
  std::vector<Pending> pending_;
};

// Device time of one rebuild's binning and list build.
struct BuildTimes {
  double cells_ms = 0;      // binning + counting sort + cell-ordered copies
  double neighbors_ms = 0;  // count → place → rows → scan → fill → max terms
  std::uint64_t entries = 0;
};

// Three events: before binning, between binning and list, after the list.
class BuildTimer {
 public:
  BuildTimer() {
    for (cudaEvent_t& e : events_) {
      e = nullptr;
      kernels::cuda::check(cudaEventCreate(&e), "cudaEventCreate");
    }
  }
  ~BuildTimer() {
    for (cudaEvent_t e : events_)
      if (e) cudaEventDestroy(e);
  }
  BuildTimer(const BuildTimer&) = delete;
  BuildTimer& operator=(const BuildTimer&) = delete;

  void mark(int k, cudaStream_t stream) {
    kernels::cuda::check(cudaEventRecord(events_[k], stream), "cudaEventRecord");
  }
  // After the stream was synchronised.
  BuildTimes read(std::uint64_t entries) const {
    float ms[2] = {0, 0};
    kernels::cuda::check(cudaEventElapsedTime(&ms[0], events_[0], events_[1]),
                         "cudaEventElapsedTime");
    kernels::cuda::check(cudaEventElapsedTime(&ms[1], events_[1], events_[2]),
                         "cudaEventElapsedTime");
    return {ms[0], ms[1], entries};
  }

 private:
  cudaEvent_t events_[3];
};

}  // namespace scanmd::cuda_step
