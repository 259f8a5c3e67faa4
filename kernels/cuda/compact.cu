// kernels/cuda/compact.cu — order-preserving stream compaction on the GPU: the look-back scan
// engine (agent_scan.cuh) scans uint32(flag != 0) and its store scatters kept elements to their
// exclusive prefix; the scan total is the count.  One pass over the data, no temporaries.
//   flags 0 1 1 0 1 → exclusive 0 0 1 2 2 → out[0]=1 out[1]=2 out[2]=4, *d_count = 3
#include <cuda_runtime.h>

#include <limits>

#include "kernels/cuda/agent_scan.cuh"
#include "kernels/cuda/api.hpp"
#include "kernels/operators.hpp"

namespace scanmd::kernels::cuda {

namespace detail {

struct FlagLoad {
  const std::uint8_t* flags;
  __device__ __forceinline__ std::uint32_t operator()(std::size_t i) const { return flags[i] != 0; }
};

struct IndexScatter {
  const std::uint8_t* flags;
  std::uint32_t* out;
  __device__ __forceinline__ void operator()(std::size_t i, std::uint32_t pos) const {
    if (flags[i]) out[pos] = static_cast<std::uint32_t>(i);
  }
};

template <class T>
struct ValueScatter {
  const std::uint8_t* flags;
  const T* in;
  T* out;
  __device__ __forceinline__ void operator()(std::size_t i, std::uint32_t pos) const {
    if (flags[i]) out[pos] = in[i];
  }
};

inline void require_compact(std::size_t n, std::size_t out) {
  if (out < n) throw std::invalid_argument("cuda compact: out must have room for n entries");
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("cuda compact: more than 2^32-1 elements");
}

}  // namespace detail

std::size_t compact_scratch_bytes(std::size_t n) {
  return detail::scan_scratch_bytes_for<std::uint32_t>(n);
}

void compact_indices(void* d_scratch, std::size_t scratch_bytes,
                     std::span<const std::uint8_t> d_flags, std::span<std::uint32_t> d_out,
                     std::uint32_t* d_count, cudaStream_t stream) {
  detail::require_compact(d_flags.size(), d_out.size());
  detail::scan_dispatch<false>(
      d_scratch, scratch_bytes, d_flags.size(), detail::FlagLoad{d_flags.data()},
      detail::IndexScatter{d_flags.data(), d_out.data()}, d_count, stream, Sum<std::uint32_t>{});
}

template <class T>
void compact(void* d_scratch, std::size_t scratch_bytes, std::span<const std::uint8_t> d_flags,
             std::span<const T> d_in, std::span<T> d_out, std::uint32_t* d_count,
             cudaStream_t stream) {
  if (d_in.size() != d_flags.size())
    throw std::invalid_argument("cuda compact: flags and input differ in size");
  detail::require_compact(d_flags.size(), d_out.size());
  detail::scan_dispatch<false>(d_scratch, scratch_bytes, d_flags.size(),
                               detail::FlagLoad{d_flags.data()},
                               detail::ValueScatter<T>{d_flags.data(), d_in.data(), d_out.data()},
                               d_count, stream, Sum<std::uint32_t>{});
}

#define SCANMD_INSTANTIATE_COMPACT(T)                                                             \
  template void compact<T>(void*, std::size_t, std::span<const std::uint8_t>, std::span<const T>, \
                           std::span<T>, std::uint32_t*, cudaStream_t);

SCANMD_INSTANTIATE_COMPACT(std::int32_t)
SCANMD_INSTANTIATE_COMPACT(std::uint32_t)
SCANMD_INSTANTIATE_COMPACT(std::int64_t)
SCANMD_INSTANTIATE_COMPACT(std::uint64_t)
SCANMD_INSTANTIATE_COMPACT(double)

}  // namespace scanmd::kernels::cuda
