// tests/kernels/backend.hpp — run the same test body on every kernels/ backend.
//
// Backend::HostSerial  host primitives with 1 OpenMP thread (sequential path; float sums exact)
// Backend::HostOmp2    host primitives with 2 OpenMP threads (parallel path for large n)
// Backend::Cuda        kernels/cuda on the GPU; only compiled with SCANMD_TEST_CUDA, and the
//                      fixture skips with "no CUDA device: <reason>" when no GPU is usable.
// The run_* helpers take and return std::vectors so the tests never see device memory.
// Oracles are NOT here: each test writes its own sequential reference with plain loops.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "kernels/compact.hpp"
#include "kernels/counting_sort.hpp"
#include "kernels/scan.hpp"
#include "kernels/segmented.hpp"

#if defined(SCANMD_TEST_CUDA)
#include "kernels/cuda/api.hpp"
#endif

namespace scanmd::kernels::test {

enum class Backend { HostSerial, HostOmp2, Cuda };

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::HostSerial:
      return "HostSerial";
    case Backend::HostOmp2:
      return "HostOmp2";
    case Backend::Cuda:
      return "Cuda";
  }
  return "Unknown";
}

inline std::vector<Backend> all_backends() {
  std::vector<Backend> b{Backend::HostSerial, Backend::HostOmp2};
#if defined(SCANMD_TEST_CUDA)
  b.push_back(Backend::Cuda);
#endif
  return b;
}

// Exact comparison is expected unless the backend may reassociate floating-point sums.
inline bool reassociates(Backend b) {
  return b != Backend::HostSerial;
}

class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
#if defined(_OPENMP)
    saved_threads_ = omp_get_max_threads();
    omp_set_num_threads(GetParam() == Backend::HostOmp2 ? 2 : 1);
#endif
#if defined(SCANMD_TEST_CUDA)
    if (GetParam() == Backend::Cuda) {
      std::string why;
      if (!cuda::device_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    }
#endif
  }
  void TearDown() override {
#if defined(_OPENMP)
    omp_set_num_threads(saved_threads_);
#endif
  }
  Backend backend() const {
    return GetParam();
  }
  Workspace ws_;

 private:
  [[maybe_unused]] int saved_threads_ = 1;
};

#if defined(SCANMD_TEST_CUDA)
namespace dev {
template <class T>
cuda::DeviceBuffer<T> upload(const std::vector<T>& v) {
  cuda::DeviceBuffer<T> d(v.size());
  d.copy_from_host(v);
  return d;
}
template <class T>
std::vector<T> download(const cuda::DeviceBuffer<T>& d) {
  std::vector<T> v(d.size());
  d.copy_to_host(v);
  return v;
}
}  // namespace dev
#endif

// ---- scan ---------------------------------------------------------------------------------------
template <bool Inclusive, class T, class Op>
T run_scan(Backend b, Workspace& ws, const std::vector<T>& in, std::vector<T>& out, Op op) {
  out.assign(in.size(), T{});
  if (b != Backend::Cuda) {
    if constexpr (Inclusive)
      return inclusive_scan<T, Op>(ws, in, out, op);
    else
      return exclusive_scan<T, Op>(ws, in, out, op);
  }
#if defined(SCANMD_TEST_CUDA)
  auto d_in = dev::upload(in);
  cuda::DeviceBuffer<T> d_out(in.size()), d_total(1);
  cuda::DeviceBuffer<std::byte> scratch(cuda::scan_scratch_bytes<T, Op>(in.size()));
  if constexpr (Inclusive)
    cuda::inclusive_scan<T, Op>(scratch.data(), scratch.size(), d_in.span(), d_out.span(),
                                d_total.data(), nullptr, op);
  else
    cuda::exclusive_scan<T, Op>(scratch.data(), scratch.size(), d_in.span(), d_out.span(),
                                d_total.data(), nullptr, op);
  out = dev::download(d_out);
  return dev::download(d_total)[0];
#else
  return T{};
#endif
}

// ---- segmented scan -----------------------------------------------------------------------------
template <bool Inclusive, class T, class Op>
void run_segmented_scan(Backend b, Workspace& ws, const std::vector<std::uint8_t>& heads,
                        const std::vector<T>& in, std::vector<T>& out, Op op) {
  out.assign(in.size(), T{});
  if (b != Backend::Cuda) {
    if constexpr (Inclusive)
      segmented_inclusive_scan<T, Op>(ws, heads, in, out, op);
    else
      segmented_exclusive_scan<T, Op>(ws, heads, in, out, op);
    return;
  }
#if defined(SCANMD_TEST_CUDA)
  auto d_heads = dev::upload(heads);
  auto d_in = dev::upload(in);
  cuda::DeviceBuffer<T> d_out(in.size());
  cuda::DeviceBuffer<std::byte> scratch(cuda::segmented_scan_scratch_bytes<T, Op>(in.size()));
  if constexpr (Inclusive)
    cuda::segmented_inclusive_scan<T, Op>(scratch.data(), scratch.size(), d_heads.span(),
                                          d_in.span(), d_out.span(), nullptr, op);
  else
    cuda::segmented_exclusive_scan<T, Op>(scratch.data(), scratch.size(), d_heads.span(),
                                          d_in.span(), d_out.span(), nullptr, op);
  out = dev::download(d_out);
#endif
}

template <class T, class Op>
void run_segmented_reduce(Backend b, Workspace& ws, const std::vector<std::uint32_t>& offsets,
                          const std::vector<T>& in, std::vector<T>& out, Op op) {
  out.assign(offsets.empty() ? 0 : offsets.size() - 1, T{});
  if (b != Backend::Cuda) {
    segmented_reduce<T, Op, std::uint32_t>(ws, offsets, in, out, op);
    return;
  }
#if defined(SCANMD_TEST_CUDA)
  auto d_off = dev::upload(offsets);
  auto d_in = dev::upload(in);
  cuda::DeviceBuffer<T> d_out(out.size());
  cuda::segmented_reduce<T, Op, std::uint32_t>(d_off.span(), d_in.span(), d_out.span(), nullptr,
                                               op);
  out = dev::download(d_out);
#endif
}

// ---- compaction ---------------------------------------------------------------------------------
inline std::size_t run_compact_indices(Backend b, Workspace& ws,
                                       const std::vector<std::uint8_t>& flags,
                                       std::vector<std::uint32_t>& out) {
  out.assign(flags.size(), 0);
  if (b != Backend::Cuda) return compact_indices(ws, flags, out);
#if defined(SCANMD_TEST_CUDA)
  auto d_flags = dev::upload(flags);
  cuda::DeviceBuffer<std::uint32_t> d_out(flags.size()), d_count(1);
  cuda::DeviceBuffer<std::byte> scratch(cuda::compact_scratch_bytes(flags.size()));
  cuda::compact_indices(scratch.data(), scratch.size(), d_flags.span(), d_out.span(),
                        d_count.data(), nullptr);
  out = dev::download(d_out);
  return dev::download(d_count)[0];
#else
  return 0;
#endif
}

template <class T>
std::size_t run_compact(Backend b, Workspace& ws, const std::vector<std::uint8_t>& flags,
                        const std::vector<T>& in, std::vector<T>& out) {
  out.assign(in.size(), T{});
  if (b != Backend::Cuda) return compact<T>(ws, flags, in, out);
#if defined(SCANMD_TEST_CUDA)
  auto d_flags = dev::upload(flags);
  auto d_in = dev::upload(in);
  cuda::DeviceBuffer<T> d_out(in.size());
  cuda::DeviceBuffer<std::uint32_t> d_count(1);
  cuda::DeviceBuffer<std::byte> scratch(cuda::compact_scratch_bytes(flags.size()));
  cuda::compact<T>(scratch.data(), scratch.size(), d_flags.span(), d_in.span(), d_out.span(),
                   d_count.data(), nullptr);
  out = dev::download(d_out);
  return dev::download(d_count)[0];
#else
  return 0;
#endif
}

// ---- counting sort ------------------------------------------------------------------------------
inline void run_counting_sort(Backend b, Workspace& ws, const std::vector<std::uint32_t>& keys,
                              std::uint32_t K, std::vector<std::uint32_t>& offsets,
                              std::vector<std::uint32_t>& perm) {
  offsets.assign(std::size_t{K} + 1, 0xDEADBEEFu);
  perm.assign(keys.size(), 0xDEADBEEFu);
  if (b != Backend::Cuda) {
    counting_sort(ws, keys, K, offsets, perm);
    return;
  }
#if defined(SCANMD_TEST_CUDA)
  auto d_keys = dev::upload(keys);
  auto d_off = dev::upload(offsets);
  auto d_perm = dev::upload(perm);
  cuda::DeviceBuffer<std::byte> scratch(cuda::counting_sort_scratch_bytes(keys.size(), K));
  cuda::counting_sort(scratch.data(), scratch.size(), d_keys.span(), K, d_off.span(), d_perm.span(),
                      nullptr);
  offsets = dev::download(d_off);
  perm = dev::download(d_perm);
#endif
}

// Sizes around warp (32), block and tile boundaries, plus one large enough for the parallel path.
// Sizes around the warp, block and tile edges, and one large enough that every scan's look-back
// walks past a whole window of 32 predecessor tiles (≥ 48 tiles of 4096 int32 items). On the CPU
// emulator (SCANMD_TEST_EMU) the largest is 3·2^16 + 7 rather than 2^20 + 7: the same tile and
// window logic, a fifth of the time.
inline const std::vector<std::size_t>& test_sizes() {
#if defined(SCANMD_TEST_EMU)
  constexpr std::size_t kLarge = (3u << 16) + 7;
#else
  constexpr std::size_t kLarge = (1u << 20) + 7;
#endif
  static const std::vector<std::size_t> sizes{0,    1,    31,   32,   33,        1023,
                                              1024, 1025, 4095, 4097, 65536 + 5, kLarge};
  return sizes;
}

}  // namespace scanmd::kernels::test
