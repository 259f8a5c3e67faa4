// engine/cuda/eam.cu — the many-body EAM compute on the device (potential.style eam, eam/alloy,
// eam/fs): the three passes of the host's engine/eam_forces.cpp, each pass the host's scalar loop
// with the same IEEE operations in the same order (the spline evaluators of
// physics/manybody/eam.hpp, SCANMD_HD; nvcc --fmad=false), every sum in 64-bit fixed point, so
// that the bits equal the host's whatever the schedule.
//
//   density    four threads per row i (owned + ghosts), lane l taking entries l, l + 4, ... (as
//              forces.cu): ρ_{t_j→t_i} into a register sum, added atomically into rho[i] at the
//              end; ρ_{t_i→t_j} atomically into rho[j] (not for a ghost j under full shell).
//   embedding  one thread per owned particle: F'(ρ) into the fp plane, F(ρ) (thermo steps) into
//              flags->energy (per-thread __int128, block sums, one 128-bit atomic per block);
//              densities outside the tables counted when asked (rare: one atomic each).
//   forces     four threads per row, as the pair kernel: F/r of eam_pair, the pair's fixed-point
//              force added to i (register sum) and subtracted from j (atomics); the pair energy
//              and virial split between the two particles as the host does (add_pair_energy).
// Overflow: the per-pair bound (limit_sq) keeps the force sums in range, as in forces.cu; a
// density term, a density sum, a pair term or an energy beyond the fixed point raises
// flags->pair_overflow with a list entry of the row (lowest wins).
#include <cuda_runtime.h>

#include "engine/cuda/force_rows.cuh"
#include "engine/cuda/launch.hpp"
#include "kernels/cuda/api.hpp"
#include "physics/manybody/eam.hpp"

namespace scanmd::cuda_step {

namespace {

// kSingle: one atom type, whose two density contributions are the same function (one lookup).
template <bool kExplicit, bool kSingle>
__global__ void __launch_bounds__(kRowThreads) eam_density_kernel(EamArgs a) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * kRowThreads + threadIdx.x;
  const std::uint64_t i = t / kRowLanes;
  const unsigned lane = static_cast<unsigned>(t % kRowLanes);
  if (i >= a.n) return;
  const std::uint64_t begin = a.offsets[i] + lane, end = a.offsets[i + 1];
  if (begin >= end) return;
  const EamView& v = a.view;
  const Vec3 xi = a.x[i];
  const Int3 si = kExplicit ? a.shift[i] : Int3{0, 0, 0};
  const std::uint32_t ti = a.type[i];
  std::int64_t sum = 0;
  bool sum_overflow = false;
  for (std::uint64_t k = begin; k < end; k += kRowLanes) {
    const std::uint32_t j = a.neighbors[k];
    const Vec3 d = row_displacement<kExplicit>(a, j, xi, si);
    const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
    if (r2 >= v.cutoff_sq) continue;
    const std::uint32_t tj = a.type[j];
    const EamPoint p = eam_r_point(v, ::sqrt(r2));
    bool o = false;
    const std::int64_t to_i = fixed::to_fixed(eam_density(v, ti, tj, p), o);
    fixed::add_checked(sum, to_i, o);
    if (!(a.owned_shares_only && j >= a.n_owned)) {
      const std::int64_t to_j = kSingle ? to_i : fixed::to_fixed(eam_density(v, tj, ti, p), o);
      o |= atomic_add_checked(&a.rho[j], to_j);
    }
    if (o) {
      sum_overflow = true;
      atomic_min_index(&a.flags->pair_overflow, k);
    }
  }
  if (atomic_add_checked(&a.rho[i], sum) && !sum_overflow)
    atomic_min_index(&a.flags->pair_overflow, begin);
}

__global__ void __launch_bounds__(kRowThreads) eam_embedding_kernel(EamArgs a, bool with_energy) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kRowThreads + threadIdx.x;
  __int128 energy = 0;
  if (i < a.n_owned) {
    const double rho = fixed::to_double(a.rho[i]);
    const EamEmbedding e = eam_embedding(a.view, a.type[i], rho);
    reinterpret_cast<double*>(a.fp)[i] = e.fp;
    if (a.outside != nullptr && eam_density_outside(a.view, rho)) atomicAdd(a.outside, 1ull);
    if (with_energy) {
      bool o = false;
      energy = fixed::to_fixed(e.energy, o);
      if (o) atomic_min_index(&a.flags->pair_overflow, a.offsets[i]);
    }
  }
  if (with_energy) {  // uniform over the grid: every thread reaches the barriers
    energy = block_sum_wide<kRowThreads>(energy);
    if (threadIdx.x == 0) atomic_add_wide(a.flags->energy, energy);
  }
}

template <bool kExplicit, bool kSingle, bool kEnergy, bool kOwnedShares>
__global__ void __launch_bounds__(kRowThreads) eam_force_kernel(EamArgs a) {
  struct Row {
    std::uint32_t type;
    double fp;
  };
  const double* fp = reinterpret_cast<const double*>(a.fp);
  const auto row_of = [&a, fp](std::uint64_t i) { return Row{a.type[i], fp[i]}; };
  const auto terms_of = [&a, fp](const Row& row, std::uint64_t, std::uint32_t j, Vec3, double r2,
                                 PairTerms<double>& terms) {
    const EamView& v = a.view;
    if (r2 >= v.cutoff_sq) return false;
    const std::uint32_t tj = a.type[j];
    const double r = ::sqrt(r2);
    const EamPairTerms e = kSingle ? eam_pair_single(v, r, eam_r_point(v, r), row.fp, fp[j])
                                   : eam_pair(v, row.type, tj, r, eam_r_point(v, r), row.fp, fp[j]);
    terms = PairTerms<double>{e.fpair, e.phi};
    return true;
  };
  pair_force_rows<kEnergy, kOwnedShares, kExplicit>(a, row_of, terms_of);
}

template <bool kExplicit, bool kSingle>
void launch_forces_variant(const EamArgs& a, bool with_energy, cudaStream_t stream) {
  const unsigned blocks = row_blocks(a.n);
  if (with_energy && a.owned_shares_only)
    eam_force_kernel<kExplicit, kSingle, true, true><<<blocks, kRowThreads, 0, stream>>>(a);
  else if (with_energy)
    eam_force_kernel<kExplicit, kSingle, true, false><<<blocks, kRowThreads, 0, stream>>>(a);
  else
    eam_force_kernel<kExplicit, kSingle, false, false><<<blocks, kRowThreads, 0, stream>>>(a);
}

}  // namespace

void launch_eam_density(const EamArgs& a, cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = row_blocks(a.n);
  const bool single = a.view.types == 1, explicit_images = a.images == PairImages::Explicit;
  if (explicit_images && single)
    eam_density_kernel<true, true><<<blocks, kRowThreads, 0, stream>>>(a);
  else if (explicit_images)
    eam_density_kernel<true, false><<<blocks, kRowThreads, 0, stream>>>(a);
  else if (single)
    eam_density_kernel<false, true><<<blocks, kRowThreads, 0, stream>>>(a);
  else
    eam_density_kernel<false, false><<<blocks, kRowThreads, 0, stream>>>(a);
  kernels::cuda::check(cudaGetLastError(), "eam_density_kernel launch");
}

void launch_eam_embedding(const EamArgs& a, bool with_energy, cudaStream_t stream) {
  if (a.n_owned == 0) return;
  const unsigned blocks = (a.n_owned + kRowThreads - 1) / kRowThreads;
  eam_embedding_kernel<<<blocks, kRowThreads, 0, stream>>>(a, with_energy);
  kernels::cuda::check(cudaGetLastError(), "eam_embedding_kernel launch");
}

void launch_eam_forces(const EamArgs& a, bool with_energy, cudaStream_t stream) {
  if (a.n == 0) return;
  const bool single = a.view.types == 1, explicit_images = a.images == PairImages::Explicit;
  if (explicit_images && single)
    launch_forces_variant<true, true>(a, with_energy, stream);
  else if (explicit_images)
    launch_forces_variant<true, false>(a, with_energy, stream);
  else if (single)
    launch_forces_variant<false, true>(a, with_energy, stream);
  else
    launch_forces_variant<false, false>(a, with_energy, stream);
  kernels::cuda::check(cudaGetLastError(), "eam_force_kernel launch");
}

}  // namespace scanmd::cuda_step
