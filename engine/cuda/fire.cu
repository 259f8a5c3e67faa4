// engine/cuda/fire.cu — FIRE minimisation on the device (one thread per owned particle): the
// maxima and quantised sums of physics/dynamics/fire.hpp's terms, and its per-particle update
// with the position check and the skin/2 test of the time step's first half (integrate.cu).
//
// Maxima: the terms are non-negative doubles, whose order is that of their bit patterns, so an
// atomicMax on the 64-bit words takes them exactly. Sums: each term quantised on the scale the
// host computed from the global maxima, summed in 128 bits (block_sum_wide, atomic_add_wide):
// integer sums, the same as the host's in any order.
#include <cuda_runtime.h>

#include <cstring>

#include "engine/cuda/device_math.cuh"
#include "engine/cuda/launch.hpp"
#include "kernels/cuda/api.hpp"
#include "physics/dynamics/fire.hpp"
#include "physics/dynamics/integrator.hpp"

namespace scanmd::cuda_step {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__device__ __forceinline__ unsigned long long bits_of(double d) {
  unsigned long long w;
  memcpy(&w, &d, sizeof w);
  return w;
}

__global__ void __launch_bounds__(kThreads) fire_maxima_kernel(FireArgs a) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= a.n_owned) return;
  FireMaxima m;
  fire_absorb(m, fire_terms(a.v[i], a.f[i]));
  for (int k = 0; k < kFireSums; ++k) atomicMax(&a.flags->fire_max[k], bits_of(m.t[k]));
  atomicMax(&a.flags->fire_max[3], bits_of(m.vmax));
  atomicMax(&a.flags->fire_max[4], bits_of(m.fmax));
}

__global__ void __launch_bounds__(kThreads) fire_sums_kernel(FireArgs a, FireScales scales) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  __int128 q[kFireSums] = {0, 0, 0};
  if (i < a.n_owned) {
    const FireTerms t = fire_terms(a.v[i], a.f[i]);
    for (int k = 0; k < kFireSums; ++k) q[k] = fire_quantise(t.t[k], scales.s[k]);
  }
  for (int k = 0; k < kFireSums; ++k) {
    const __int128 s = block_sum_wide<kThreads>(q[k]);
    if (threadIdx.x == 0) atomic_add_wide(a.flags->fire_sum[k], s);
  }
}

__global__ void __launch_bounds__(kThreads) fire_update_kernel(FireArgs a, FireUpdate u) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  bool moved = false;
  if (i < a.n_owned) {
    Vec3 x = a.x[i];
    Vec3 v = a.v[i];
    Int3 image = a.image[i];
    fire_update_particle(x, v, image, a.f[i], a.mass(i), u, a.box.length);
    a.x[i] = x;
    a.v[i] = v;
    a.image[i] = image;
    if (u.moves()) {
      if (!inside_box(x, a.box.length)) atomic_min_index(&a.flags->bad_position, i);
      moved = moved_beyond_limit(x, a.x_build[i], a.box, a.moved_sq, a.images);
    }
  }
  if (__any_sync(kFullMask, moved) && (threadIdx.x & 31u) == 0) atomicOr(&a.flags->moved, 1ull);
}

}  // namespace

void launch_fire_maxima(const FireArgs& a, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  fire_maxima_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a);
  kernels::cuda::check(cudaGetLastError(), "fire_maxima_kernel launch");
}

void launch_fire_sums(const FireArgs& a, const FireScales& scales, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  fire_sums_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a, scales);
  kernels::cuda::check(cudaGetLastError(), "fire_sums_kernel launch");
}

void launch_fire_update(const FireArgs& a, const FireUpdate& u, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  fire_update_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a, u);
  kernels::cuda::check(cudaGetLastError(), "fire_update_kernel launch");
}

}  // namespace scanmd::cuda_step
