// kernels/cuda/segmented.cu — segmented scans (the look-back engine of agent_scan.cuh run with
// Segmented<Op> on (head, value) pairs built on the fly by the loader) and segmented reduce over
// CSR rows (one warp per row), instantiated for Sum/Max over int32/uint32/int64/uint64/float64.
//
// Segmented reduce: a warp walks its row 32 elements at a time; each group of 32 is reduced in
// lane order (warp_reduce) and appended to the running value in lane 0, so the combination order
// is fixed (results are reproducible; float sums differ from a sequential loop by rounding only).
//   offsets 0 2 2 5, in 1 2 3 4 5 → warp 0: 1⊕2 = 3; warp 1: identity 0; warp 2: 3⊕4⊕5 = 12
#include <cuda_runtime.h>

#include "kernels/cuda/agent_scan.cuh"
#include "kernels/cuda/api.hpp"
#include "kernels/operators.hpp"

namespace scanmd::kernels::cuda {

namespace detail {

template <class T>
struct HeadLoad {
  const std::uint8_t* heads;
  const T* in;
  __device__ __forceinline__ Flagged<T> operator()(std::size_t i) const {
    return {std::uint32_t{heads[i] != 0}, in[i]};
  }
};

template <class T, class Op, bool kExclusive>
struct HeadStore {
  const std::uint8_t* heads;
  T* out;
  __device__ __forceinline__ void operator()(std::size_t i, Flagged<T> v) const {
    // Exclusive: the scan at i combines [0, i) — right unless i itself starts a segment.
    if constexpr (kExclusive)
      out[i] = heads[i] ? Op::identity() : v.value;
    else
      out[i] = v.value;
  }
};

template <class T, class Op, class Index>
__global__ void __launch_bounds__(256)
    segmented_reduce_kernel(const Index* offsets, const T* in, T* out, std::size_t rows, Op op) {
  const unsigned lane = lane_id();
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * (blockDim.x / kWarpThreads);
  for (std::size_t r =
           (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpThreads;
       r < rows; r += warps) {
    const std::size_t b = offsets[r], e = offsets[r + 1];
    T acc = Op::identity();
    for (std::size_t g = b; g < e; g += kWarpThreads) {
      const T v = g + lane < e ? in[g + lane] : Op::identity();
      acc = op(acc, warp_reduce(v, op));  // meaningful in lane 0 only
    }
    if (lane == 0) out[r] = acc;
  }
}

template <bool kInclusive, class T, class Op>
void segmented_scan(void* d_scratch, std::size_t scratch_bytes,
                    std::span<const std::uint8_t> d_heads, std::span<const T> d_in,
                    std::span<T> d_out, cudaStream_t stream) {
  if (d_heads.size() != d_in.size() || d_out.size() < d_in.size())
    throw std::invalid_argument("cuda segmented scan: heads/in/out sizes do not match");
  scan_dispatch<kInclusive>(d_scratch, scratch_bytes, d_in.size(),
                            HeadLoad<T>{d_heads.data(), d_in.data()},
                            HeadStore<T, Op, !kInclusive>{d_heads.data(), d_out.data()},
                            static_cast<Flagged<T>*>(nullptr), stream, Segmented<Op>{});
}

}  // namespace detail

template <class T, class Op>
std::size_t segmented_scan_scratch_bytes(std::size_t n) {
  return detail::scan_scratch_bytes_for<typename Segmented<Op>::value_type>(n);
}

template <class T, class Op>
void segmented_inclusive_scan(void* d_scratch, std::size_t scratch_bytes,
                              std::span<const std::uint8_t> d_heads, std::span<const T> d_in,
                              std::span<T> d_out, cudaStream_t stream, Op) {
  detail::segmented_scan<true, T, Op>(d_scratch, scratch_bytes, d_heads, d_in, d_out, stream);
}

template <class T, class Op>
void segmented_exclusive_scan(void* d_scratch, std::size_t scratch_bytes,
                              std::span<const std::uint8_t> d_heads, std::span<const T> d_in,
                              std::span<T> d_out, cudaStream_t stream, Op) {
  detail::segmented_scan<false, T, Op>(d_scratch, scratch_bytes, d_heads, d_in, d_out, stream);
}

template <class T, class Op, class Index>
void segmented_reduce(std::span<const Index> d_offsets, std::span<const T> d_in, std::span<T> d_out,
                      cudaStream_t stream, Op op) {
  const std::size_t rows = d_out.size();
  if (rows == 0) return;
  if (d_offsets.size() != rows + 1)
    throw std::invalid_argument("cuda segmented_reduce: offsets.size() must be out.size() + 1");
  constexpr unsigned kThreads = 256, kRowsPerBlock = kThreads / detail::kWarpThreads;
  const std::size_t blocks =
      std::min<std::size_t>((rows + kRowsPerBlock - 1) / kRowsPerBlock, std::size_t{1} << 20);
  detail::segmented_reduce_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      d_offsets.data(), d_in.data(), d_out.data(), rows, op);
  check(cudaGetLastError(), "segmented_reduce: kernel launch");
}

#define SCANMD_INSTANTIATE_SEGMENTED(T, OP)                                                        \
  template std::size_t segmented_scan_scratch_bytes<T, OP>(std::size_t);                           \
  template void segmented_inclusive_scan<T, OP>(void*, std::size_t, std::span<const std::uint8_t>, \
                                                std::span<const T>, std::span<T>, cudaStream_t,    \
                                                OP);                                               \
  template void segmented_exclusive_scan<T, OP>(void*, std::size_t, std::span<const std::uint8_t>, \
                                                std::span<const T>, std::span<T>, cudaStream_t,    \
                                                OP);                                               \
  template void segmented_reduce<T, OP, std::uint32_t>(                                            \
      std::span<const std::uint32_t>, std::span<const T>, std::span<T>, cudaStream_t, OP);

#define SCANMD_INSTANTIATE_SEGMENTED_TYPE(T) \
  SCANMD_INSTANTIATE_SEGMENTED(T, Sum<T>)    \
  SCANMD_INSTANTIATE_SEGMENTED(T, Max<T>)

SCANMD_INSTANTIATE_SEGMENTED_TYPE(std::int32_t)
SCANMD_INSTANTIATE_SEGMENTED_TYPE(std::uint32_t)
SCANMD_INSTANTIATE_SEGMENTED_TYPE(std::int64_t)
SCANMD_INSTANTIATE_SEGMENTED_TYPE(std::uint64_t)
SCANMD_INSTANTIATE_SEGMENTED_TYPE(double)

}  // namespace scanmd::kernels::cuda
