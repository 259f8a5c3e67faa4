// kernels/cuda/api.hpp — the CUDA scan primitives as seen from plain C++ (no nvcc needed).
//
// Same algorithms and worked examples as the host headers (kernels/scan.hpp, segmented.hpp,
// compact.hpp, counting_sort.hpp); the kernels themselves live in kernels/cuda/*.cuh and are
// explicitly instantiated in kernels/cuda/*.cu for:
//   Sum and Max over int32, uint32, int64, uint64, float64 (scans, segmented scans via
//   Segmented<Op>, segmented reduce); compaction of int32/uint32/int64/uint64/float64.
// Conventions (CUB's two-phase form, DESIGN.md §3):
//   * spans hold DEVICE pointers; calls are asynchronous on `stream` unless stated otherwise;
//   * scratch is caller-owned: ask `*_scratch_bytes(n)` once, keep a DeviceBuffer<std::byte>
//     (grow() it when n grows) and pass it on every call; nothing here allocates; it must be
//     256-byte aligned, as cudaMalloc returns it (checked: std::invalid_argument otherwise);
//   * results that the host versions return (scan total, compaction count) are written to a
//     device pointer instead (may be nullptr where noted), so no call needs a synchronisation;
//   * failures throw std::runtime_error naming the CUDA call (check()).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/operators.hpp"

namespace scanmd::kernels::cuda {

// True when a CUDA device is usable (driver present, device found, a probe kernel runs);
// otherwise false and *why (if given) says what is missing.  Never throws.
bool device_available(std::string* why = nullptr);

// Throws std::runtime_error("<what>: <CUDA error string>") unless e == cudaSuccess.
void check(cudaError_t e, const char* what);

// ---- scan (kernels/cuda/agent_scan.cuh): single pass, decoupled look-back
// -------------------------
//   exclusive_scan  1 1 1 1 → 0 1 2 3  (*d_total = 4)        inclusive_scan 1 1 1 1 → 1 2 3 4
// d_out may equal d_in (in place); d_total may be nullptr; n == 0 is fine.
// Not bitwise reproducible for floating-point Sum, segmented scans included (as cub::DeviceScan):
// a tile's prefix combines whichever predecessors had published when its look-back ran, so the
// grouping of a float64 sum (hence its last bits) changes from run to run.  Integer sums and Max
// are exact.
template <class T, class Op = Sum<T>>
std::size_t scan_scratch_bytes(std::size_t n);
template <class T, class Op = Sum<T>>
void exclusive_scan(void* d_scratch, std::size_t scratch_bytes, std::span<const T> d_in,
                    std::span<T> d_out, T* d_total, cudaStream_t stream, Op op = {});
template <class T, class Op = Sum<T>>
void inclusive_scan(void* d_scratch, std::size_t scratch_bytes, std::span<const T> d_in,
                    std::span<T> d_out, T* d_total, cudaStream_t stream, Op op = {});

// ---- segmented scan: the same engine with Segmented<Op> (heads[i] != 0 starts a segment) -------
//   heads 1 0 0 1 0, in 1 1 1 1 1 → inclusive 1 2 3 1 2, exclusive 0 1 2 0 1
template <class T, class Op = Sum<T>>
std::size_t segmented_scan_scratch_bytes(std::size_t n);
template <class T, class Op = Sum<T>>
void segmented_inclusive_scan(void* d_scratch, std::size_t scratch_bytes,
                              std::span<const std::uint8_t> d_heads, std::span<const T> d_in,
                              std::span<T> d_out, cudaStream_t stream, Op op = {});
template <class T, class Op = Sum<T>>
void segmented_exclusive_scan(void* d_scratch, std::size_t scratch_bytes,
                              std::span<const std::uint8_t> d_heads, std::span<const T> d_in,
                              std::span<T> d_out, cudaStream_t stream, Op op = {});

// ---- segmented reduce over CSR rows (no scratch): offsets 0 2 2 5, in 1 2 3 4 5 → 3 0 12
// --------- One warp per row, 32 elements at a time combined in index order (deterministic run to
// run).
template <class T, class Op = Sum<T>, class Index = std::uint32_t>
void segmented_reduce(std::span<const Index> d_offsets, std::span<const T> d_in, std::span<T> d_out,
                      cudaStream_t stream, Op op = {});

// ---- compaction: flags 0 1 1 0 1 → indices 1 2 4, *d_count = 3 ----------------------------------
// d_out must have room for n entries and must not overlap d_in; n < 2^32.
std::size_t compact_scratch_bytes(std::size_t n);
void compact_indices(void* d_scratch, std::size_t scratch_bytes,
                     std::span<const std::uint8_t> d_flags, std::span<std::uint32_t> d_out,
                     std::uint32_t* d_count, cudaStream_t stream);
template <class T>
void compact(void* d_scratch, std::size_t scratch_bytes, std::span<const std::uint8_t> d_flags,
             std::span<const T> d_in, std::span<T> d_out, std::uint32_t* d_count,
             cudaStream_t stream);

// ---- stable counting sort: keys 2 0 2 1 0, K = 3 → offsets 0 2 3 5, perm 1 4 3 0 2
// --------------- offsets has K+1 entries, perm n, n <= 2^32 - 2 (2^32 - 1 is the kernels'
// "no bad key" sentinel; the host version takes one more).  SYNCHRONISES `stream` at the end to check the
// keys: a key >= K throws std::out_of_range naming the first offending index (as on the host).
std::size_t counting_sort_scratch_bytes(std::size_t n, std::uint32_t K);
void counting_sort(void* d_scratch, std::size_t scratch_bytes,
                   std::span<const std::uint32_t> d_keys, std::uint32_t K,
                   std::span<std::uint32_t> d_offsets, std::span<std::uint32_t> d_perm,
                   cudaStream_t stream);

// ---- DeviceBuffer: RAII device array (also the reusable scratch: DeviceBuffer<std::byte>) ------
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { grow(n); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(size_, o.size_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }

  // Makes size() >= n; reallocates (discarding the contents) only when it must grow.
  void grow(std::size_t n) {
    if (n <= size_) return;
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    size_ = 0;
    void* p = nullptr;
    check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc");
    ptr_ = static_cast<T*>(p);
    size_ = n;
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::span<T> span() { return {ptr_, size_}; }
  std::span<const T> span() const { return {ptr_, size_}; }

  void copy_from_host(std::span<const T> h) {
    if (h.size() > size_)
      throw std::length_error("DeviceBuffer::copy_from_host: too many elements");
    if (!h.empty())
      check(cudaMemcpy(ptr_, h.data(), h.size_bytes(), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  void copy_to_host(std::span<T> h) const {
    if (h.size() > size_) throw std::length_error("DeviceBuffer::copy_to_host: too many elements");
    if (!h.empty())
      check(cudaMemcpy(h.data(), ptr_, h.size_bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }

 private:
  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace scanmd::kernels::cuda
