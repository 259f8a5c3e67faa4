// engine/cuda/halo.cu — the device side of HaloExchange::forward / reverse, on the host's plan.
//
// forward   send[k] = x[export_index[k]]: the send buffer in destination-rank order, as the
//           host packs it. The entries a rank sends to itself (periodic images of its own
//           particles) go straight into their ghost slots too, so a single rank never leaves
//           the device; the remote parts cross to the host (or go to MPI directly when it is
//           CUDA-aware) in device_halo.cpp. Fused (CudaTuning::fuse): the same kernel zeroes
//           the ghost forces and the force call's totals, which would otherwise be two memsets
//           of compute_forces (fewer launches per step for small systems).
// fields    the same two for any per-particle array (the field halo: EAM densities, DPD
//           velocities): pack_field / sum_ghost_field, templates instantiated below.
// reverse   f[export_index[k]] += force on the ghost of entry k: read from the ghost slot for
//           self entries, from `recv` (what the other ranks sent back) otherwise. Several
//           entries can name one owned particle, hence atomics; each add is checked for int64
//           overflow (flags->sum_overflow = lowest such entry). Owned slots (< n_owned) and
//           ghost slots (>= n_owned) never overlap, so reading ghost forces while adding into
//           owners is race-free.
#include <cuda_runtime.h>

#include "engine/cuda/device_math.cuh"
#include "engine/cuda/launch.hpp"
#include "kernels/cuda/api.hpp"

namespace scanmd::cuda_step {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__global__ void __launch_bounds__(kThreads)
    pack_positions_kernel(const Vec3* x, const std::uint32_t* export_index, std::uint32_t m,
                          SelfPart self, Vec3* send, Vec3* ghost_x, Fix3* ghost_f,
                          std::uint32_t ghosts, DeviceFlags* fused) {
  const std::uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  if (fused != nullptr) {
    if (k < ghosts) ghost_f[k] = Fix3{0, 0, 0};
    if (k == 0) {
      fused->pairs = 0;
      fused->energy[0] = fused->energy[1] = 0;
      fused->virial[0] = fused->virial[1] = 0;
      fused->bond_energy[0] = fused->bond_energy[1] = 0;
      fused->angle_energy[0] = fused->angle_energy[1] = 0;
    }
  }
  if (k >= m) return;
  const Vec3 xk = x[export_index[k]];
  send[k] = xk;
  const std::uint32_t s = k - self.send_offset;  // wraps for k < send_offset
  if (s < self.count) ghost_x[self.recv_offset + s] = xk;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    pack_field_kernel(const T* field, const std::uint32_t* export_index, std::uint32_t m,
                      SelfPart self, T* send, T* ghost) {
  const std::uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  if (k >= m) return;
  const T v = field[export_index[k]];
  send[k] = v;
  const std::uint32_t s = k - self.send_offset;  // wraps for k < send_offset
  if (s < self.count) ghost[self.recv_offset + s] = v;
}

__device__ inline bool add_field(std::int64_t* target, std::int64_t add) {
  return atomic_add_checked(target, add);
}
__device__ inline bool add_field(Fix3* target, Fix3 add) {
  bool overflow = atomic_add_checked(&target->x, add.x);
  overflow |= atomic_add_checked(&target->y, add.y);
  overflow |= atomic_add_checked(&target->z, add.z);
  return overflow;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    sum_ghost_field_kernel(T* field, const T* ghost, const T* recv,
                           const std::uint32_t* export_index, std::uint32_t m, SelfPart self,
                           DeviceFlags* flags) {
  const std::uint32_t k = blockIdx.x * kThreads + threadIdx.x;
  if (k >= m) return;
  const std::uint32_t s = k - self.send_offset;
  const T add = s < self.count ? ghost[self.recv_offset + s] : recv[k];
  if (add_field(&field[export_index[k]], add)) atomic_min_index(&flags->sum_overflow, k);
}

}  // namespace

template <class T>
void launch_pack_field(const T* field, const std::uint32_t* export_index, std::uint32_t m,
                       SelfPart self, T* send, T* ghost, cudaStream_t stream) {
  if (m == 0) return;
  pack_field_kernel<T>
      <<<blocks_for(m), kThreads, 0, stream>>>(field, export_index, m, self, send, ghost);
  kernels::cuda::check(cudaGetLastError(), "pack_field_kernel launch");
}

template <class T>
void launch_sum_ghost_field(T* field, const T* ghost, const T* recv,
                            const std::uint32_t* export_index, std::uint32_t m, SelfPart self,
                            DeviceFlags* flags, cudaStream_t stream) {
  if (m == 0) return;
  sum_ghost_field_kernel<T>
      <<<blocks_for(m), kThreads, 0, stream>>>(field, ghost, recv, export_index, m, self, flags);
  kernels::cuda::check(cudaGetLastError(), "sum_ghost_field_kernel launch");
}

template void launch_pack_field<Vec3>(const Vec3*, const std::uint32_t*, std::uint32_t, SelfPart,
                                      Vec3*, Vec3*, cudaStream_t);
template void launch_pack_field<double>(const double*, const std::uint32_t*, std::uint32_t,
                                        SelfPart, double*, double*, cudaStream_t);
template void launch_pack_field<std::int64_t>(const std::int64_t*, const std::uint32_t*,
                                              std::uint32_t, SelfPart, std::int64_t*, std::int64_t*,
                                              cudaStream_t);
template void launch_pack_field<std::uint64_t>(const std::uint64_t*, const std::uint32_t*,
                                               std::uint32_t, SelfPart, std::uint64_t*,
                                               std::uint64_t*, cudaStream_t);
template void launch_pack_field<Fix3>(const Fix3*, const std::uint32_t*, std::uint32_t, SelfPart,
                                      Fix3*, Fix3*, cudaStream_t);
template void launch_sum_ghost_field<std::int64_t>(std::int64_t*, const std::int64_t*,
                                                   const std::int64_t*, const std::uint32_t*,
                                                   std::uint32_t, SelfPart, DeviceFlags*,
                                                   cudaStream_t);
template void launch_sum_ghost_field<Fix3>(Fix3*, const Fix3*, const Fix3*, const std::uint32_t*,
                                           std::uint32_t, SelfPart, DeviceFlags*, cudaStream_t);

void launch_pack_positions(const Vec3* x, const std::uint32_t* export_index, std::uint32_t m,
                           SelfPart self, Vec3* send, Vec3* ghost_x, Fix3* ghost_f,
                           std::uint32_t ghosts, DeviceFlags* fused, cudaStream_t stream) {
  const std::uint32_t threads = fused != nullptr ? (m > ghosts ? m : ghosts) : m;
  if (threads == 0 && fused == nullptr) return;
  pack_positions_kernel<<<blocks_for(threads > 0 ? threads : 1), kThreads, 0, stream>>>(
      x, export_index, m, self, send, ghost_x, ghost_f, ghosts, fused);
  kernels::cuda::check(cudaGetLastError(), "pack_positions_kernel launch");
}

void launch_sum_ghost_forces(Fix3* f, const Fix3* ghost_f, const Fix3* recv,
                             const std::uint32_t* export_index, std::uint32_t m, SelfPart self,
                             DeviceFlags* flags, cudaStream_t stream) {
  // The force field's instance of the field halo's sum.
  launch_sum_ghost_field<Fix3>(f, ghost_f, recv, export_index, m, self, flags, stream);
}

}  // namespace scanmd::cuda_step
