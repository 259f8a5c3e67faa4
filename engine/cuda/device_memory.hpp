// engine/cuda/device_memory.hpp — the memory and stream helpers of the CUDA backend (plain C++ on
// the CUDA runtime API; no CUDA types leave engine/cuda).
//
//   Stream        RAII cudaStream_t: the backend's one stream, every async call is queued on it
//   ensure        grow-only device arrays with a quarter of headroom (slowly growing particle
//                 counts do not reallocate at every rebuild); contents discarded on growth
//   grow_keeping  the same, keeping a prefix (owned particles while ghost slots are rewritten)
//   PinnedBuffer  RAII page-locked host array (MPI staging, the flags mirror), grow-only
//   Scratch       the caller-owned scratch every kernels/cuda primitive takes (256-byte aligned,
//                 as cudaMalloc returns it), grown to the largest request
//   copy_*, upload, download, read_one   cudaMemcpyAsync on the stream; read_one synchronises
//   Transfers     bytes copied device → host and host → device by the calls above, counted per
//                 process: the CUDA backend reports what a rebuild moves (no full download)
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/cuda/api.hpp"

namespace scanmd::cuda_step {

using kernels::cuda::check;
using kernels::cuda::DeviceBuffer;

// Bytes copied between device and host memory by this process through the helpers below (the
// backend's only copies; kernels/cuda's own reads of one bad index on error paths are not
// counted).
struct Transfers {
  std::uint64_t d2h = 0, h2d = 0;
};
inline Transfers& transfers() {
  static Transfers t;
  return t;
}

class Stream {
 public:
  Stream() { check(cudaStreamCreate(&stream_), "cudaStreamCreate"); }
  ~Stream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize(const char* what = "cudaStreamSynchronize") const {
    check(cudaStreamSynchronize(stream_), what);
  }

 private:
  cudaStream_t stream_ = nullptr;
};

template <class T>
void ensure(DeviceBuffer<T>& b, std::size_t n) {
  if (b.size() < n) b.grow(n + n / 4);
}

template <class T>
void copy_d2d(T* to, const T* from, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  check(cudaMemcpyAsync(to, from, n * sizeof(T), cudaMemcpyDeviceToDevice, stream),
        "cudaMemcpyAsync D2D");
}
template <class T>
void copy_d2h(T* h, const T* d, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  transfers().d2h += n * sizeof(T);
  check(cudaMemcpyAsync(h, d, n * sizeof(T), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync D2H");
}
template <class T>
void copy_h2d(T* d, const T* h, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  transfers().h2d += n * sizeof(T);
  check(cudaMemcpyAsync(d, h, n * sizeof(T), cudaMemcpyHostToDevice, stream),
        "cudaMemcpyAsync H2D");
}

// Grows b to at least n elements keeping its first `keep` (device to device; synchronises).
template <class T>
void grow_keeping(DeviceBuffer<T>& b, std::size_t n, std::size_t keep, cudaStream_t stream) {
  if (b.size() >= n) return;
  DeviceBuffer<T> bigger(n + n / 4);
  copy_d2d(bigger.data(), b.data(), keep, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (grow)");
  b = std::move(bigger);  // the old buffer is freed with `bigger`
}

// The first n elements of a host array to the device. From pageable memory the call returns
// once the data are staged, so `h` may change afterwards.
template <class T>
void upload(T* d, const std::vector<T>& h, std::size_t n, cudaStream_t stream) {
  if (h.size() < n) throw std::logic_error("backend cuda: host array shorter than its count");
  copy_h2d(d, h.data(), n, stream);
}

// n elements to a host array (resized when shorter); completes at the next synchronisation.
template <class T>
void download(std::vector<T>& h, const T* d, std::size_t n, cudaStream_t stream) {
  if (h.size() < n) h.resize(n);
  copy_d2h(h.data(), d, n, stream);
}

template <class T>
T read_one(const T* d, cudaStream_t stream) {
  T v{};
  copy_d2h(&v, d, 1, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return v;
}

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  void ensure(std::size_t n) {
    if (n <= size_) return;
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    size_ = 0;
    void* p = nullptr;
    const std::size_t want = n + n / 4;
    check(cudaMallocHost(&p, std::max<std::size_t>(want, 1) * sizeof(T)), "cudaMallocHost");
    ptr_ = static_cast<T*>(p);
    size_ = want;
  }
  T* data() { return ptr_; }
  T& operator*() { return *ptr_; }
  const T& operator*() const { return *ptr_; }
  T* operator->() { return ptr_; }

 private:
  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

class Scratch {
 public:
  void ensure(std::size_t bytes) {
    if (buffer_.size() < bytes) buffer_.grow(bytes + bytes / 4);
  }
  void* data() { return buffer_.data(); }
  std::size_t size() const { return buffer_.size(); }

 private:
  DeviceBuffer<std::byte> buffer_;
};

}  // namespace scanmd::cuda_step
