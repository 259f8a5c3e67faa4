// engine/cuda/integrate.cu — velocity Verlet on the device (one thread per owned particle), the
// skin/2 rebuild test fused into the first half step, and the Σ m v² reduction.
//
// The per-particle arithmetic is physics/dynamics/integrator.hpp's verlet_initial / verlet_final /
// moved_beyond_limit and engine/fixed_terms.hpp's twice_kinetic_term: the host backend runs the
// same functions, so the bits agree (--fmad=false, IEEE division).
// Position check: after the wrap a valid particle lies in [0, L) on every axis, however far it
// moved (the wrap counts every box length crossed); a non-finite position or velocity, or a move
// beyond the 32-bit image counters, fails the test and raises flags->bad_position with the
// particle's index (lowest wins), as the host's VelocityVerlet does.
#include <cuda_runtime.h>

#include <cstring>

#include "engine/cuda/device_math.cuh"
#include "engine/cuda/launch.hpp"
#include "engine/fixed_terms.hpp"
#include "kernels/cuda/api.hpp"
#include "physics/dynamics/integrator.hpp"

namespace scanmd::cuda_step {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__global__ void __launch_bounds__(kThreads) initial_integrate_kernel(IntegrateArgs a) {
  // A pair overflow of the last force call is raised at the synchronisation that follows this
  // kernel (one rank: nothing synchronised in between). Leave the positions as the forces saw
  // them, so that the error reports the pair's distance, not one after a drift with garbage
  // forces. The flag was written before this launch: every thread takes the same branch.
  if (a.flags->pair_overflow != kNone) return;
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  bool moved = false;
  __int128 work = 0;
  if (i < a.n_owned) {
    Vec3 x = a.x[i];
    Vec3 v = a.v[i];
    Int3 image = a.image[i];
    const double dtf = a.dtf_of ? a.dtf_of[a.type[i]] : a.dtf;
    if (a.langevin.active()) {
      bool overflow = false;
      work = fixed::to_fixed(verlet_initial_langevin(x, v, image, a.f[i], a.dt, dtf, a.box.length,
                                                     a.langevin, a.type[i], a.id[i], a.step),
                             overflow);
      if (overflow) atomic_min_index(&a.flags->kinetic_overflow, i);
    } else {
      verlet_initial(x, v, image, a.f[i], a.dt, dtf, a.box.length);
    }
    a.x[i] = x;
    a.v[i] = v;
    a.image[i] = image;
    if (a.zero_f) a.zero_f[i] = Fix3{0, 0, 0};  // read above (a.f is the same array)
    if (!inside_box(x, a.box.length)) atomic_min_index(&a.flags->bad_position, i);
    moved = moved_beyond_limit(x, a.x_build[i], a.box, a.moved_sq, a.images);
  }
  // One atomic per warp that saw a mover (a max-reduction of 0/1 flags).
  if (__any_sync(kFullMask, moved) && (threadIdx.x & 31u) == 0) atomicOr(&a.flags->moved, 1ull);
  if (a.langevin.active()) {  // the same branch for the whole grid
    work = block_sum_wide<kThreads>(work);
    if (threadIdx.x == 0) atomic_add_wide(a.flags->work, work);
  }
}

__global__ void __launch_bounds__(kThreads) final_integrate_kernel(KickArgs a) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (a.reset_moved && i == 0) a.flags->moved = 0;
  __int128 work = 0;
  if (i < a.n_owned) {
    Vec3 vi = a.v[i];
    if (a.langevin.active()) {
      bool overflow = false;
      work = fixed::to_fixed(
          langevin_kick(vi, a.f[i], a.dtf(i), a.half_dt, a.langevin, a.type[i], a.id[i], a.step),
          overflow);
      if (overflow) atomic_min_index(&a.flags->kinetic_overflow, i);
    } else {
      verlet_final(vi, a.f[i], a.dtf(i));
    }
    a.v[i] = vi;
  }
  if (a.langevin.active()) {
    work = block_sum_wide<kThreads>(work);
    if (threadIdx.x == 0) atomic_add_wide(a.flags->work, work);
  }
}

__global__ void __launch_bounds__(kThreads)
    scale_velocities_kernel(Vec3* v, std::uint32_t n_owned, double factor) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i < n_owned) {
    Vec3 vi = v[i];
    scale_velocity(vi, factor);
    v[i] = vi;
  }
}

__global__ void __launch_bounds__(kThreads)
    twice_kinetic_kernel(const Vec3* v, std::uint32_t n_owned, PerType mass, DeviceFlags* flags) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  __int128 sum = 0;
  if (i < n_owned) {
    bool overflow = false;
    sum = twice_kinetic_term(v[i], mass(i), overflow);
    if (overflow) atomic_min_index(&flags->kinetic_overflow, i);
  }
  sum = block_sum_wide<kThreads>(sum);
  if (threadIdx.x == 0) atomic_add_wide(flags->kinetic, sum);
}

}  // namespace

void launch_initial_integrate(const IntegrateArgs& a, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  initial_integrate_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a);
  kernels::cuda::check(cudaGetLastError(), "initial_integrate_kernel launch");
}

void launch_final_integrate(const KickArgs& a, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  final_integrate_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a);
  kernels::cuda::check(cudaGetLastError(), "final_integrate_kernel launch");
}

void launch_scale_velocities(Vec3* v, std::uint32_t n_owned, double factor, cudaStream_t stream) {
  if (n_owned == 0) return;
  scale_velocities_kernel<<<blocks_for(n_owned), kThreads, 0, stream>>>(v, n_owned, factor);
  kernels::cuda::check(cudaGetLastError(), "scale_velocities_kernel launch");
}

// v of the owned particles into three planes of words (the DPD pair velocity column).
__global__ void __launch_bounds__(kThreads)
    velocity_planes_kernel(const Vec3* v, std::uint32_t n_owned, std::uint64_t* px,
                           std::uint64_t* py, std::uint64_t* pz) {
  const std::uint32_t i = blockIdx.x * kThreads + threadIdx.x;
  if (i < n_owned) {
    const Vec3 vi = v[i];
    memcpy(&px[i], &vi.x, sizeof(double));
    memcpy(&py[i], &vi.y, sizeof(double));
    memcpy(&pz[i], &vi.z, sizeof(double));
  }
}

void launch_velocity_planes(const Vec3* v, std::uint32_t n_owned, std::uint64_t* px,
                            std::uint64_t* py, std::uint64_t* pz, cudaStream_t stream) {
  if (n_owned == 0) return;
  velocity_planes_kernel<<<blocks_for(n_owned), kThreads, 0, stream>>>(v, n_owned, px, py, pz);
  kernels::cuda::check(cudaGetLastError(), "velocity_planes_kernel launch");
}

void launch_twice_kinetic(const Vec3* v, std::uint32_t n_owned, PerType mass, DeviceFlags* flags,
                          cudaStream_t stream) {
  if (n_owned == 0) return;
  twice_kinetic_kernel<<<blocks_for(n_owned), kThreads, 0, stream>>>(v, n_owned, mass, flags);
  kernels::cuda::check(cudaGetLastError(), "twice_kinetic_kernel launch");
}

}  // namespace scanmd::cuda_step
