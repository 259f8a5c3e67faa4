// bench/kernels/bench_host.cpp — host kernels/ primitives vs the standard library.
//
//   exclusive_scan/{ours,std}/{int32,int64}/n[/threads:t]   n = 2^10 .. 2^26, t = 1, 2
//   counting_sort/ours/n/K/threads:t                        K = n/8 bins (MD cell binning shape)
//   compact/{ours,copy_if}/n[/threads:t]                    50 % kept
// Bytes processed = bytes read + written, so GB/s compare directly; the ratio table at the end
// gives std time / our time (target: >= 0.9 on one thread).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "bench/kernels/ratio_reporter.hpp"
#include "kernels/compact.hpp"
#include "kernels/counting_sort.hpp"
#include "kernels/scan.hpp"

namespace {

namespace k = scanmd::kernels;

void set_threads(int t) {
#if defined(_OPENMP)
  omp_set_num_threads(t);
#else
  (void)t;
#endif
}

template <class T>
std::vector<T> random_values(std::size_t n) {
  std::vector<T> v(n);
  std::mt19937 rng(42);
  for (auto& x : v) x = static_cast<T>(rng() % 100);
  return v;
}

template <class T>
void scan_ours(benchmark::State& state, std::size_t n, int threads) {
  set_threads(threads);
  const auto in = random_values<T>(n);
  std::vector<T> out(n);
  k::Workspace ws;
  for (auto _ : state) {
    benchmark::DoNotOptimize(k::exclusive_scan<T>(ws, in, out));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * 2 * sizeof(T)));
}

template <class T>
void scan_std(benchmark::State& state, std::size_t n) {
  const auto in = random_values<T>(n);
  std::vector<T> out(n);
  for (auto _ : state) {
    std::exclusive_scan(in.begin(), in.end(), out.begin(), T(0));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * 2 * sizeof(T)));
}

void sort_ours(benchmark::State& state, std::size_t n, std::uint32_t K, int threads) {
  set_threads(threads);
  std::vector<std::uint32_t> keys(n), offsets(std::size_t{K} + 1), perm(n);
  std::mt19937 rng(7);
  for (auto& x : keys) x = rng() % K;
  k::Workspace ws;
  for (auto _ : state) {
    k::counting_sort(ws, keys, K, offsets, perm);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * 3 * 4));
}

void compact_ours(benchmark::State& state, std::size_t n, int threads) {
  set_threads(threads);
  std::vector<std::uint8_t> flags(n);
  std::mt19937 rng(9);
  for (auto& f : flags) f = rng() & 1;
  const auto in = random_values<std::int32_t>(n);
  std::vector<std::int32_t> out(n);
  k::Workspace ws;
  for (auto _ : state) benchmark::DoNotOptimize(k::compact<std::int32_t>(ws, flags, in, out));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * 7));
}

void compact_copy_if(benchmark::State& state, std::size_t n) {
  std::vector<std::uint8_t> flags(n);
  std::mt19937 rng(9);
  for (auto& f : flags) f = rng() & 1;
  const auto in = random_values<std::int32_t>(n);
  std::vector<std::int32_t> out(n);
  for (auto _ : state) {
    std::size_t c = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (flags[i]) out[c++] = in[i];
    benchmark::DoNotOptimize(c);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * 7));
}

template <class T>
void register_scans(const char* type) {
  for (std::size_t n = std::size_t{1} << 10; n <= std::size_t{1} << 26; n <<= 4) {
    const std::string c = std::string(type) + "/" + std::to_string(n);
    benchmark::RegisterBenchmark(("exclusive_scan/std/" + c).c_str(),
                                 [n](benchmark::State& s) { scan_std<T>(s, n); });
    for (int t : {1, 2})
      benchmark::RegisterBenchmark(
          ("exclusive_scan/ours/" + c + "/threads:" + std::to_string(t)).c_str(),
          [n, t](benchmark::State& s) { scan_ours<T>(s, n, t); });
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_scans<std::int32_t>("int32");
  register_scans<std::int64_t>("int64");
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 24}) {
    const auto K = static_cast<std::uint32_t>(n / 8);
    for (int t : {1, 2})
      benchmark::RegisterBenchmark(("counting_sort/ours/" + std::to_string(n) +
                                    "/K:" + std::to_string(K) + "/threads:" + std::to_string(t))
                                       .c_str(),
                                   [n, K, t](benchmark::State& s) { sort_ours(s, n, K, t); });
  }
  for (std::size_t n : {std::size_t{1} << 16, std::size_t{1} << 24}) {
    benchmark::RegisterBenchmark(("compact/copy_if/" + std::to_string(n)).c_str(),
                                 [n](benchmark::State& s) { compact_copy_if(s, n); });
    for (int t : {1, 2})
      benchmark::RegisterBenchmark(
          ("compact/ours/" + std::to_string(n) + "/threads:" + std::to_string(t)).c_str(),
          [n, t](benchmark::State& s) { compact_ours(s, n, t); });
  }
  return scanmd::bench::run_with_ratios(argc, argv);
}
