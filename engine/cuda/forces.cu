// engine/cuda/forces.cu — pair forces of any style over the CSR neighbour list, in 64-bit fixed
// point: the CUDA driver of the evaluators of physics/pair/styles.hpp.
//
// The row walk, the fixed-point sums, the energy split and the overflow reports are
// engine/cuda/force_rows.cuh's; this file gives it each style's terms: the style's eval (given
// d·v_ij and the pair's random number for styles that read the pair's motion: DPD), the host
// loop's pair_terms (engine/pair_forces.cpp) operation for operation.
#include <cuda_runtime.h>

#include <cstring>

#include "engine/cuda/force_rows.cuh"
#include "engine/cuda/launch.hpp"
#include "kernels/cuda/api.hpp"
#include "physics/pair/pair_noise.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd::cuda_step {

namespace {

// kTyped: several species, each pair's constants from the table by the two types; else the one
// pair of ForceArgs::one (no type loads). kExplicit: small boxes, the displacement from the
// images' shifts, else the minimum image (no shift loads).
template <class E, bool kEnergy, bool kOwnedShares, bool kTyped, bool kExplicit>
__global__ void __launch_bounds__(kRowThreads) pair_force_kernel(ForceArgs<E> a) {
  using Params = typename E::Params;
  const auto row_of = [&a](std::uint64_t i) -> const Params* {
    return kTyped ? a.table.params + a.type[i] * a.table.types : &a.one;
  };
  const auto terms_of = [&a](const Params* row, std::uint64_t i, std::uint32_t j, Vec3 d, double r2,
                             PairTerms<double>& terms) {
    const Params& params = kTyped ? row[a.type[j]] : *row;
    if (r2 >= params.cutoff_sq) return false;
    if constexpr (MotionStyle<E>) {  // the host loop's pair_terms (engine/pair_forces.cpp)
      Vec3 vi, vj;
      memcpy(&vi.x, &a.vx[i], sizeof(double));
      memcpy(&vi.y, &a.vy[i], sizeof(double));
      memcpy(&vi.z, &a.vz[i], sizeof(double));
      memcpy(&vj.x, &a.vx[j], sizeof(double));
      memcpy(&vj.y, &a.vy[j], sizeof(double));
      memcpy(&vj.z, &a.vz[j], sizeof(double));
      const double dvd = d.x * (vi.x - vj.x) + d.y * (vi.y - vj.y) + d.z * (vi.z - vj.z);
      const double theta = pair_noise(params.seed, a.step, a.id[i], a.id[j]);
      terms = E::eval(r2, params, PairMotion<double>{dvd, theta});
    } else {
      terms = E::eval(r2, params);
    }
    return true;
  };
  pair_force_rows<kEnergy, kOwnedShares, kExplicit>(a, row_of, terms_of);
}

template <class E, bool kTyped, bool kExplicit>
void launch_variant(const ForceArgs<E>& a, unsigned blocks, bool with_energy,
                    bool owned_shares_only, cudaStream_t stream) {
  if (with_energy && owned_shares_only)
    pair_force_kernel<E, true, true, kTyped, kExplicit><<<blocks, kRowThreads, 0, stream>>>(a);
  else if (with_energy)
    pair_force_kernel<E, true, false, kTyped, kExplicit><<<blocks, kRowThreads, 0, stream>>>(a);
  else
    pair_force_kernel<E, false, false, kTyped, kExplicit><<<blocks, kRowThreads, 0, stream>>>(a);
}

}  // namespace

template <class E>
void launch_pair_forces(const ForceArgs<E>& a, bool with_energy, bool owned_shares_only,
                        cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = row_blocks(a.n);
  const bool typed = a.table.types > 1, explicit_images = a.images == PairImages::Explicit;
  if (typed && explicit_images)
    launch_variant<E, true, true>(a, blocks, with_energy, owned_shares_only, stream);
  else if (typed)
    launch_variant<E, true, false>(a, blocks, with_energy, owned_shares_only, stream);
  else if (explicit_images)
    launch_variant<E, false, true>(a, blocks, with_energy, owned_shares_only, stream);
  else
    launch_variant<E, false, false>(a, blocks, with_energy, owned_shares_only, stream);
  kernels::cuda::check(cudaGetLastError(), "pair_force_kernel launch");
}

// Every style's launcher, instantiated here: a function with external linkage is always emitted,
// and it takes every instance's address.
namespace {
template <class... E>
auto instantiate(std::tuple<E...>*) {
  return std::tuple{&launch_pair_forces<E>...};
}
}  // namespace
auto pair_force_launchers() {
  return instantiate(static_cast<ComputedPairStyles*>(nullptr));
}

}  // namespace scanmd::cuda_step
