// bench/kernels/bench_cuda.cu — our CUDA kernels vs CUB / Thrust / a device-to-device copy.
//
//   exclusive_scan/{ours,cub,copy}/{int32,int64}/n      n = 2^10 .. 2^28
//   segmented_scan/{ours,thrust_by_key}/int32/n         segments of ~64 (heads vs keys)
//   compact/{ours,cub_flagged}/int32/n                  50 % kept
// Timed with cudaEvents around each iteration (manual time).  GB/s = (bytes read + written) / t;
// the copy moves the same bytes as a scan, so "ours vs copy" is the fraction of bandwidth reached.
// Targets (H200, 2^28 int32): ours/cub >= 0.90, ours/copy >= 0.80 — see the ratio table.
// Exits 0 with a message when no GPU is usable.  CUB/Thrust appear only here, as yardsticks.
#include <benchmark/benchmark.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/kernels/ratio_reporter.hpp"
#include "kernels/cuda/api.hpp"

namespace {

namespace kc = scanmd::kernels::cuda;
using kc::check;
using kc::DeviceBuffer;

// Times `launch` with events; one warm-up call first.
template <class F>
void timed_loop(benchmark::State& state, std::size_t bytes, F launch) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  launch();
  check(cudaDeviceSynchronize(), "warm-up");
  for (auto _ : state) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    state.SetIterationTime(ms * 1e-3);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

template <class T>
DeviceBuffer<T> device_values(std::size_t n) {
  std::vector<T> h(n);  // cheap pattern: 2^28 values must not take seconds to make
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<T>((i * 2654435761u >> 7) % 100);
  DeviceBuffer<T> d(n);
  d.copy_from_host(h);
  return d;
}

template <class T>
void scan_ours(benchmark::State& state, std::size_t n) {
  auto in = device_values<T>(n);
  DeviceBuffer<T> out(n);
  DeviceBuffer<std::byte> scratch(kc::scan_scratch_bytes<T>(n));
  timed_loop(state, 2 * n * sizeof(T), [&] {
    kc::exclusive_scan<T>(scratch.data(), scratch.size(), in.span(), out.span(), nullptr, nullptr);
  });
}

template <class T>
void scan_cub(benchmark::State& state, std::size_t n) {
  auto in = device_values<T>(n);
  DeviceBuffer<T> out(n);
  std::size_t bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in.data(), out.data(), n), "cub size");
  DeviceBuffer<std::byte> scratch(bytes);
  timed_loop(state, 2 * n * sizeof(T), [&] {
    std::size_t b = bytes;
    check(cub::DeviceScan::ExclusiveSum(scratch.data(), b, in.data(), out.data(), n), "cub scan");
  });
}

template <class T>
void copy_d2d(benchmark::State& state, std::size_t n) {
  auto in = device_values<T>(n);
  DeviceBuffer<T> out(n);
  timed_loop(state, 2 * n * sizeof(T), [&] {
    check(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(T), cudaMemcpyDeviceToDevice), "copy");
  });
}

std::vector<std::uint8_t> host_heads(std::size_t n) {
  std::vector<std::uint8_t> h(n);
  std::mt19937 rng(3);
  for (std::size_t i = 0; i < n; ++i) h[i] = i == 0 || rng() % 64 == 0;
  return h;
}

void segscan_ours(benchmark::State& state, std::size_t n) {
  DeviceBuffer<std::uint8_t> heads(n);
  heads.copy_from_host(host_heads(n));
  auto in = device_values<std::int32_t>(n);
  DeviceBuffer<std::int32_t> out(n);
  DeviceBuffer<std::byte> scratch(kc::segmented_scan_scratch_bytes<std::int32_t>(n));
  timed_loop(state, n * 9, [&] {
    kc::segmented_inclusive_scan<std::int32_t>(scratch.data(), scratch.size(), heads.span(),
                                               in.span(), out.span(), nullptr);
  });
}

void segscan_thrust(benchmark::State& state, std::size_t n) {
  const auto h = host_heads(n);
  std::vector<std::int32_t> keys(n);
  std::int32_t seg = -1;
  for (std::size_t i = 0; i < n; ++i) keys[i] = seg += h[i];
  DeviceBuffer<std::int32_t> d_keys(n);
  d_keys.copy_from_host(keys);
  auto in = device_values<std::int32_t>(n);
  DeviceBuffer<std::int32_t> out(n);
  timed_loop(state, n * 12, [&] {
    thrust::inclusive_scan_by_key(thrust::device, d_keys.data(), d_keys.data() + n, in.data(),
                                  out.data());
  });
}

DeviceBuffer<std::uint8_t> device_flags(std::size_t n) {
  std::vector<std::uint8_t> h(n);
  std::mt19937 rng(5);
  for (auto& f : h) f = rng() & 1;
  DeviceBuffer<std::uint8_t> d(n);
  d.copy_from_host(h);
  return d;
}

void compact_ours(benchmark::State& state, std::size_t n) {
  auto flags = device_flags(n);
  auto in = device_values<std::int32_t>(n);
  DeviceBuffer<std::int32_t> out(n);
  DeviceBuffer<std::uint32_t> count(1);
  DeviceBuffer<std::byte> scratch(kc::compact_scratch_bytes(n));
  timed_loop(state, n * 7, [&] {
    kc::compact<std::int32_t>(scratch.data(), scratch.size(), flags.span(), in.span(), out.span(),
                              count.data(), nullptr);
  });
}

void compact_cub(benchmark::State& state, std::size_t n) {
  auto flags = device_flags(n);
  auto in = device_values<std::int32_t>(n);
  DeviceBuffer<std::int32_t> out(n);
  DeviceBuffer<std::uint32_t> count(1);
  std::size_t bytes = 0;
  check(cub::DeviceSelect::Flagged(nullptr, bytes, in.data(), flags.data(), out.data(),
                                   count.data(), n),
        "cub size");
  DeviceBuffer<std::byte> scratch(bytes);
  timed_loop(state, n * 7, [&] {
    std::size_t b = bytes;
    check(cub::DeviceSelect::Flagged(scratch.data(), b, in.data(), flags.data(), out.data(),
                                     count.data(), n),
          "cub select");
  });
}

template <class T>
void register_scans(const char* type) {
  for (std::size_t n = std::size_t{1} << 10; n <= std::size_t{1} << 28; n <<= 2) {
    const std::string c = std::string(type) + "/" + std::to_string(n);
    benchmark::RegisterBenchmark(("exclusive_scan/ours/" + c).c_str(), [n](benchmark::State& s) {
      scan_ours<T>(s, n);
    })->UseManualTime();
    benchmark::RegisterBenchmark(("exclusive_scan/cub/" + c).c_str(), [n](benchmark::State& s) {
      scan_cub<T>(s, n);
    })->UseManualTime();
    benchmark::RegisterBenchmark(("exclusive_scan/copy/" + c).c_str(), [n](benchmark::State& s) {
      copy_d2d<T>(s, n);
    })->UseManualTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!kc::device_available(&why)) {
    std::printf("bench_kernels_cuda: skipped, no CUDA device: %s\n", why.c_str());
    return 0;
  }
  register_scans<std::int32_t>("int32");
  register_scans<std::int64_t>("int64");
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 28}) {
    const std::string c = "int32/" + std::to_string(n);
    benchmark::RegisterBenchmark(("segmented_scan/ours/" + c).c_str(), [n](benchmark::State& s) {
      segscan_ours(s, n);
    })->UseManualTime();
    benchmark::RegisterBenchmark(("segmented_scan/thrust_by_key/" + c).c_str(),
                                 [n](benchmark::State& s) { segscan_thrust(s, n); })
        ->UseManualTime();
    benchmark::RegisterBenchmark(("compact/ours/" + c).c_str(), [n](benchmark::State& s) {
      compact_ours(s, n);
    })->UseManualTime();
    benchmark::RegisterBenchmark(("compact/cub_flagged/" + c).c_str(), [n](benchmark::State& s) {
      compact_cub(s, n);
    })->UseManualTime();
  }
  return scanmd::bench::run_with_ratios(argc, argv);
}
