// core/cuda/ghosts.cu — ghost images of a single rank's own particles, made on the device.
//
// With one rank (grid 1×1×1) a rebuild needs no migration (every particle stays) and its halo
// is made of periodic images of its own particles only, so it can stay on the device. The
// choice is the host's ExportSelector::select for that case, the same function (visit_exports,
// decomposition/export_selection.hpp) on the grid of one box: for owned particle i, every shift
// S ≠ 0 from image_range(x) per axis (several per side in a box shorter than 2R), the image
// q = x + S·L with home H = S (the owner's box 0 plus S·grid) is imported when
// ImportRegion::classify(q, H) says so. Count → exclusive scan → fill, as on the host:
//   count   images[i] = number of imported images of i (and the tower / plate tallies)
//   scan    offsets (kernels/cuda exclusive scan; the total is the ghost count m)
//   fill    entry e = offset[i] + c: export_index[e] = i, ghost slot n_owned + e gets id, the
//           wrapped x (as every ghost carries its owner's coordinates), home S and shift S
// Entries come in particle order and, per particle, in the host's (Sx, Sy, Sz) loop order, so
// for the same owned order the ghost layout is the host's.
// Before that, gather_owned puts the owned particles into cell order, as the host rebuild does
// (same cell geometry, same stable counting sort): the layouts of both backends stay equal.
#include <cuda_runtime.h>

#include "core/cuda/device_math.cuh"
#include "core/cuda/launch.hpp"
#include "kernels/cuda/api.hpp"

namespace scanmd::cuda_step {

namespace {

constexpr int kThreads = 128;

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

__global__ void __launch_bounds__(kThreads)
    count_images_kernel(GhostArgs a, std::uint32_t* images) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= a.n_owned) return;
  unsigned long long tower = 0, plate = 0;
  images[i] = visit_exports(a.geometry, a.x[i], Int3{0, 0, 0},
                            [&](std::uint32_t, Int3, Int3, Int3, ImportKind kind) {
                              tower += kind == ImportKind::Tower;
                              plate += kind == ImportKind::Plate;
                            });
  if (tower) atomicAdd(&a.flags->tower, tower);
  if (plate) atomicAdd(&a.flags->plate, plate);
}

__global__ void __launch_bounds__(kThreads)
    fill_ghosts_kernel(GhostArgs a, const std::uint32_t* offsets, std::uint32_t* export_index) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= a.n_owned) return;
  const Vec3 x = a.x[i];
  const std::uint64_t id = a.id[i];
  const std::uint32_t type = a.type[i];
  const std::uint32_t base = offsets[i];
  visit_exports(a.geometry, x, Int3{0, 0, 0},
                [&](std::uint32_t c, Int3 S, Int3 home, Int3, ImportKind) {
                  const std::uint32_t e = base + c;
                  const std::uint64_t g = std::uint64_t{a.n_owned} + e;
                  export_index[e] = static_cast<std::uint32_t>(i);
                  a.id[g] = id;
                  a.type[g] = type;
                  a.x[g] = x;
                  a.home[g] = home;
                  a.shift[g] = S;
                });
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

void launch_count_images(const GhostArgs& a, std::uint32_t* images, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  count_images_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a, images);
  kernels::cuda::check(cudaGetLastError(), "count_images_kernel launch");
}

void launch_fill_ghosts(const GhostArgs& a, const std::uint32_t* offsets,
                        std::uint32_t* export_index, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  fill_ghosts_kernel<<<blocks_for(a.n_owned), kThreads, 0, stream>>>(a, offsets, export_index);
  kernels::cuda::check(cudaGetLastError(), "fill_ghosts_kernel launch");
}

}  // namespace scanmd::cuda_step
