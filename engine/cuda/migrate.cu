// engine/cuda/migrate.cu — migration and the particle census of a rebuild, on the device: the
// host's HaloExchange::migrate and Census::take (decomposition/) as scan primitives.
//
//   destinations  key[i] = rank of the box holding owned particle i (GridCuts::box_of, the one
//                 ownership function of every rank and backend)
//   (sort)        stable counting sort of the keys by rank (kernels/cuda): offsets per
//                 destination and perm; this rank's own run of perm is the stayers in their
//                 order, the others the leavers by destination, each in its order — the host's
//                 send order
//   pack          leavers' records into one send buffer ordered by destination
//   (gather)      the stayers compacted to the front (launch_gather_owned with perm's own run)
//   unpack        arrivals appended behind the stayers, in receive order
//   frame         home = this box, shift = 0 for every owned particle
//   fields        the optional per-particle fields' planes (DeviceFields): gathered with the
//                 stayers, a leaver's State words packed beside its record, unpacked behind
//   census        count, Σ id and Σ id² over the owned particles: 128-bit integer sums (one
//                 atomic per block), exact in any order, so a lost or duplicated id is caught
//                 as on the host
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
    destinations_kernel(const Vec3* x, std::uint32_t n_owned, GridCuts cuts, std::uint32_t* key) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n_owned) return;
  key[i] = static_cast<std::uint32_t>(cuts.rank_of(cuts.box_of(x[i])));
}

__global__ void __launch_bounds__(kThreads)
    pack_migrants_kernel(const std::uint32_t* perm, std::uint32_t leavers, std::uint32_t stay_begin,
                         std::uint32_t stay_count, OwnedArrays o, MigrantRecord* send) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= leavers) return;
  const std::uint32_t i = perm[k < stay_begin ? k : k + stay_count];
  send[k] = {o.id[i], o.x[i], o.v[i], o.image[i], o.type[i]};
}

__global__ void __launch_bounds__(kThreads)
    unpack_migrants_kernel(const MigrantRecord* recv, std::uint32_t m, std::uint32_t first,
                           OwnedArrays o) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= m) return;
  const MigrantRecord r = recv[k];
  const std::uint64_t i = first + k;
  o.id[i] = r.id;
  o.type[i] = r.type;
  o.x[i] = r.x;
  o.v[i] = r.v;
  o.image[i] = r.image;
}

__global__ void __launch_bounds__(kThreads)
    owned_frame_kernel(Int3* home, Int3* shift, std::uint32_t n_owned, Int3 coord) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n_owned) return;
  home[i] = coord;
  shift[i] = Int3{0, 0, 0};
}

__global__ void __launch_bounds__(kThreads)
    census_kernel(const std::uint64_t* id, std::uint32_t n_owned, DeviceFlags* flags) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  unsigned __int128 sum = 0, sq = 0;  // modulo 2^128, as Census::local
  if (i < n_owned) {
    sum = id[i];
    sq = sum * sum;
  }
  sum = block_sum_wide<kThreads>(sum);
  sq = block_sum_wide<kThreads>(sq);
  if (threadIdx.x == 0) {
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * kThreads;
    const std::uint64_t count = n_owned - first < kThreads ? n_owned - first : kThreads;
    atomicAdd(&flags->census_count, static_cast<unsigned long long>(count));
    atomic_add_wide(flags->census_id, static_cast<__int128>(sum));
    atomic_add_wide(flags->census_id_sq, static_cast<__int128>(sq));
  }
}

__global__ void __launch_bounds__(kThreads)
    gather_words_kernel(const std::uint64_t* in, const std::uint32_t* order, std::uint32_t count,
                        std::uint64_t* out) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= count) return;
  out[k] = in[order[k]];
}

__global__ void __launch_bounds__(kThreads)
    pack_plane_kernel(const std::uint64_t* plane, const std::uint32_t* idx, std::uint32_t count,
                      std::uint64_t* out, std::uint32_t stride) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= count) return;
  out[k * stride] = plane[idx[k]];
}

__global__ void __launch_bounds__(kThreads)
    unpack_plane_kernel(const std::uint64_t* in, std::uint32_t stride, std::uint32_t m,
                        std::uint64_t* plane) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= m) return;
  plane[k] = in[k * stride];
}

}  // namespace

void launch_gather_words(const std::uint64_t* in, const std::uint32_t* order, std::uint32_t count,
                         std::uint64_t* out, cudaStream_t stream) {
  if (count == 0) return;
  gather_words_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, order, count, out);
  kernels::cuda::check(cudaGetLastError(), "gather_words_kernel launch");
}

void launch_pack_plane(const std::uint64_t* plane, const std::uint32_t* idx, std::uint32_t count,
                       std::uint64_t* out, std::uint32_t stride, cudaStream_t stream) {
  if (count == 0) return;
  pack_plane_kernel<<<blocks_for(count), kThreads, 0, stream>>>(plane, idx, count, out, stride);
  kernels::cuda::check(cudaGetLastError(), "pack_plane_kernel launch");
}

void launch_unpack_plane(const std::uint64_t* in, std::uint32_t stride, std::uint32_t m,
                         std::uint64_t* plane, cudaStream_t stream) {
  if (m == 0) return;
  unpack_plane_kernel<<<blocks_for(m), kThreads, 0, stream>>>(in, stride, m, plane);
  kernels::cuda::check(cudaGetLastError(), "unpack_plane_kernel launch");
}

void launch_destinations(const Vec3* x, std::uint32_t n_owned, GridCuts cuts, std::uint32_t* key,
                         cudaStream_t stream) {
  if (n_owned == 0) return;
  destinations_kernel<<<blocks_for(n_owned), kThreads, 0, stream>>>(x, n_owned, cuts, key);
  kernels::cuda::check(cudaGetLastError(), "destinations_kernel launch");
}

void launch_pack_migrants(const std::uint32_t* perm, std::uint32_t leavers,
                          std::uint32_t stay_begin, std::uint32_t stay_count, OwnedArrays owned,
                          MigrantRecord* send, cudaStream_t stream) {
  if (leavers == 0) return;
  pack_migrants_kernel<<<blocks_for(leavers), kThreads, 0, stream>>>(perm, leavers, stay_begin,
                                                                     stay_count, owned, send);
  kernels::cuda::check(cudaGetLastError(), "pack_migrants_kernel launch");
}

void launch_unpack_migrants(const MigrantRecord* recv, std::uint32_t m, std::uint32_t first,
                            OwnedArrays owned, cudaStream_t stream) {
  if (m == 0) return;
  unpack_migrants_kernel<<<blocks_for(m), kThreads, 0, stream>>>(recv, m, first, owned);
  kernels::cuda::check(cudaGetLastError(), "unpack_migrants_kernel launch");
}

void launch_owned_frame(Int3* home, Int3* shift, std::uint32_t n_owned, Int3 coord,
                        cudaStream_t stream) {
  if (n_owned == 0) return;
  owned_frame_kernel<<<blocks_for(n_owned), kThreads, 0, stream>>>(home, shift, n_owned, coord);
  kernels::cuda::check(cudaGetLastError(), "owned_frame_kernel launch");
}

void launch_census(const std::uint64_t* id, std::uint32_t n_owned, DeviceFlags* flags,
                   cudaStream_t stream) {
  if (n_owned == 0) return;
  census_kernel<<<blocks_for(n_owned), kThreads, 0, stream>>>(id, n_owned, flags);
  kernels::cuda::check(cudaGetLastError(), "census_kernel launch");
}

}  // namespace scanmd::cuda_step
