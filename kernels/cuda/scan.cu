// kernels/cuda/scan.cu — exclusive/inclusive device scans (api.hpp) on the look-back engine in
// agent_scan.cuh, explicitly instantiated for Sum and Max over int32/uint32/int64/uint64/float64
// and for the Segmented<Sum/Max> pair operators on the same value types.
#include "kernels/cuda/agent_scan.cuh"
#include "kernels/cuda/api.hpp"
#include "kernels/operators.hpp"

namespace scanmd::kernels::cuda {

namespace {
template <class T>
void require_sizes(std::span<const T> in, std::span<T> out) {
  if (out.size() < in.size()) throw std::invalid_argument("cuda scan: output shorter than input");
}
}  // namespace

template <class T, class Op>
std::size_t scan_scratch_bytes(std::size_t n) {
  return detail::scan_scratch_bytes_for<typename Op::value_type>(n);
}

template <class T, class Op>
void exclusive_scan(void* d_scratch, std::size_t scratch_bytes, std::span<const T> d_in,
                    std::span<T> d_out, T* d_total, cudaStream_t stream, Op op) {
  require_sizes(d_in, d_out);
  detail::scan_dispatch<false>(d_scratch, scratch_bytes, d_in.size(),
                               detail::PointerLoad<T>{d_in.data()},
                               detail::PointerStore<T>{d_out.data()}, d_total, stream, op);
}

template <class T, class Op>
void inclusive_scan(void* d_scratch, std::size_t scratch_bytes, std::span<const T> d_in,
                    std::span<T> d_out, T* d_total, cudaStream_t stream, Op op) {
  require_sizes(d_in, d_out);
  detail::scan_dispatch<true>(d_scratch, scratch_bytes, d_in.size(),
                              detail::PointerLoad<T>{d_in.data()},
                              detail::PointerStore<T>{d_out.data()}, d_total, stream, op);
}

#define SCANMD_INSTANTIATE_SCAN(T, OP)                                                          \
  template std::size_t scan_scratch_bytes<T, OP>(std::size_t);                                  \
  template void exclusive_scan<T, OP>(void*, std::size_t, std::span<const T>, std::span<T>, T*, \
                                      cudaStream_t, OP);                                        \
  template void inclusive_scan<T, OP>(void*, std::size_t, std::span<const T>, std::span<T>, T*, \
                                      cudaStream_t, OP);

#define SCANMD_INSTANTIATE_SCAN_TYPE(T)                  \
  SCANMD_INSTANTIATE_SCAN(T, Sum<T>)                     \
  SCANMD_INSTANTIATE_SCAN(T, Max<T>)                     \
  SCANMD_INSTANTIATE_SCAN(Flagged<T>, Segmented<Sum<T>>) \
  SCANMD_INSTANTIATE_SCAN(Flagged<T>, Segmented<Max<T>>)

SCANMD_INSTANTIATE_SCAN_TYPE(std::int32_t)
SCANMD_INSTANTIATE_SCAN_TYPE(std::uint32_t)
SCANMD_INSTANTIATE_SCAN_TYPE(std::int64_t)
SCANMD_INSTANTIATE_SCAN_TYPE(std::uint64_t)
SCANMD_INSTANTIATE_SCAN_TYPE(double)

}  // namespace scanmd::kernels::cuda
