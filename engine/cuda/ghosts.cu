// engine/cuda/ghosts.cu — export selection and ghost creation of a rebuild, on the device: the
// host's ExportSelector::select and HaloExchange::build (decomposition/) as scan primitives.
//
// The rule is the host's own function, visit_exports (decomposition/export_selection.hpp): for
// owned particle i of box `coord`, every periodic image S from image_range per axis and every
// box X within R of it that ImportRegion::classify says imports it. Count → scan → fill →
// counting sort → pack, as on the host:
//   count   counts[i] = export entries of i
//   scan    offsets (kernels/cuda exclusive scan; the total is the entry count m)
//   fill    entry offsets[i] + c = i's c-th (rank of X, S, kind): particle order, and per
//           particle the host's visit order (Sx, Sy, Sz, then Xz, Xy, Xx)
//   sort    stable counting sort of the entries by destination rank (kernels/cuda): the host's
//           send order
//   pack    export_index[k] and the ghost record of send entry k
// After the exchange (device_halo.cpp), unpack writes the received records into the ghost slots
// behind the owned particles, in receive order, and tallies the imported kinds. For the same
// owned order the ghost layout is the host's, so both backends bin and list the same particles
// in the same order.
#include <cuda_runtime.h>

#include "engine/cuda/device_math.cuh"
#include "engine/cuda/launch.hpp"
#include "kernels/cuda/api.hpp"

namespace scanmd::cuda_step {

namespace {

constexpr int kThreads = 128;

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__global__ void __launch_bounds__(kThreads)
    count_exports_kernel(ExportArgs a, std::uint32_t* counts) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= a.n_owned) return;
  counts[i] = visit_exports(a.geometry, a.x[i], a.coord,
                            [](std::uint32_t, Int3, Int3, Int3, ImportKind) {});
}

__global__ void __launch_bounds__(kThreads)
    fill_exports_kernel(ExportArgs a, const std::uint32_t* offsets, std::uint32_t* dest,
                        std::uint32_t* particle, Int3* shift, ImportKind* kind) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= a.n_owned) return;
  const std::uint32_t base = offsets[i];
  visit_exports(a.geometry, a.x[i], a.coord,
                [&](std::uint32_t c, Int3 S, Int3, Int3 X, ImportKind k) {
                  const std::uint32_t e = base + c;
                  dest[e] = static_cast<std::uint32_t>(a.geometry.cuts.rank_of(X));
                  particle[e] = static_cast<std::uint32_t>(i);
                  shift[e] = S;
                  kind[e] = k;
                });
}

__global__ void __launch_bounds__(kThreads) pack_ghosts_kernel(PackGhostArgs a) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= a.m) return;
  const std::uint32_t e = a.perm[k];
  const std::uint32_t i = a.particle[e];
  const Int3 S = a.shift[e];
  a.export_index[k] = i;
  a.send[k] = {a.id[i], a.x[i], a.coord + S * a.dims, S, a.type[i], a.kind[e]};
}

__global__ void __launch_bounds__(kThreads)
    unpack_ghosts_kernel(const GhostRecord* recv, std::uint32_t m, GhostSlots g,
                         DeviceFlags* flags) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  unsigned long long tower = 0, plate = 0, bonded = 0;
  if (k < m) {
    const GhostRecord r = recv[k];
    g.id[k] = r.id;
    g.type[k] = r.type;
    g.x[k] = r.x;
    g.home[k] = r.home;
    g.shift[k] = r.shift;
    tower = r.kind == ImportKind::Tower;
    plate = r.kind == ImportKind::Plate;
    bonded = r.kind == ImportKind::Bonded;
  }
  tower = warp_sum_u64(tower);
  plate = warp_sum_u64(plate);
  bonded = warp_sum_u64(bonded);
  if ((threadIdx.x & 31u) == 0) {
    if (tower) atomicAdd(&flags->tower, tower);
    if (plate) atomicAdd(&flags->plate, plate);
    if (bonded) atomicAdd(&flags->bonded, bonded);
  }
}

__global__ void __launch_bounds__(kThreads)
    gather_owned_kernel(const std::uint32_t* order, std::uint32_t n_owned, OwnedArrays in,
                        OwnedArrays out) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= n_owned) return;
  const std::uint32_t i = order[k];
  out.id[k] = in.id[i];
  out.type[k] = in.type[i];
  out.x[k] = in.x[i];
  out.v[k] = in.v[i];
  out.image[k] = in.image[i];
}

}  // namespace

void launch_gather_owned(const std::uint32_t* order, std::uint32_t n_owned, OwnedArrays in,
                         OwnedArrays out, cudaStream_t stream) {
  if (n_owned == 0) return;
  gather_owned_kernel<<<blocks_for(n_owned), kThreads, 0, stream>>>(order, n_owned, in, out);
  kernels::cuda::check(cudaGetLastError(), "gather_owned_kernel launch");
}

void launch_count_exports(const ExportArgs& a, std::uint32_t* counts, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  count_exports_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a, counts);
  kernels::cuda::check(cudaGetLastError(), "count_exports_kernel launch");
}

void launch_fill_exports(const ExportArgs& a, const std::uint32_t* offsets, std::uint32_t* dest,
                         std::uint32_t* particle, Int3* shift, ImportKind* kind,
                         cudaStream_t stream) {
  if (a.n_owned == 0) return;
  fill_exports_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a, offsets, dest, particle,
                                                                      shift, kind);
  kernels::cuda::check(cudaGetLastError(), "fill_exports_kernel launch");
}

void launch_pack_ghosts(const PackGhostArgs& a, cudaStream_t stream) {
  if (a.m == 0) return;
  pack_ghosts_kernel<<<blocks_for(a.m), kThreads, 0, stream>>>(a);
  kernels::cuda::check(cudaGetLastError(), "pack_ghosts_kernel launch");
}

void launch_unpack_ghosts(const GhostRecord* recv, std::uint32_t m, GhostSlots slots,
                          DeviceFlags* flags, cudaStream_t stream) {
  if (m == 0) return;
  unpack_ghosts_kernel<<<blocks_for(m), kThreads, 0, stream>>>(recv, m, slots, flags);
  kernels::cuda::check(cudaGetLastError(), "unpack_ghosts_kernel launch");
}

}  // namespace scanmd::cuda_step
