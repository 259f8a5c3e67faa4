// engine/cuda/forces.cu — pair forces of any style over the CSR neighbour list, in 64-bit fixed
// point: the CUDA driver of the evaluators of physics/pair/styles.hpp.
//
// Four threads per row i (owned + ghost rows; rows the rule gives nothing are empty), lane l
// taking the row's entries l, l + 4, ...: coalesced index loads and enough threads to fill the
// GPU at 64 000 particles. For each listed j within r_c: the pair term of engine/fixed_terms.hpp
// (the host's functions: the style's eval — given d·v_ij and the pair's random number for styles
// that read the pair's motion — then pair_force_fixed), F summed into the lane's register accumulator and −F atomically into
// j; the lane's total is added atomically into i at the end (i may also be some other row's j).
// Integer atomics are associative, so the result is bit-identical to the host loop's whatever the
// schedule. Overflow: the per-pair bound of the host (limit_sq from max_terms) keeps every
// accumulator in range, so the adds need no checks; a pair that fails the bound (or whose energy or
// virial does not fit) raises flags->pair_overflow with its list entry (lowest wins). Energy and
// virial (thermo steps): per-thread __int128 sums of the int64 terms, split between the two
// particles for full shell by the host's add_pair_energy; block sums in __int128, one 128-bit
// two-word atomic add per block. Pair counts: warp sums, one atomic per warp.
#include <cuda_runtime.h>

#include <cstring>

#include "engine/cuda/device_math.cuh"
#include "engine/cuda/launch.hpp"
#include "engine/fixed_terms.hpp"
#include "kernels/cuda/api.hpp"
#include "physics/pair/pair_noise.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd::cuda_step {

namespace {

constexpr int kThreads = 128;
constexpr int kRowLanes = 4;  // threads per row: entries k, k + 4, ... (coalesced, 4x the threads)

// kTyped: several species, each pair's constants from the table by the two types; else the one
// pair of ForceArgs::one (no type loads). kExplicit: small boxes, the displacement from the
// images' shifts (base/box.hpp's image_displacement), else the minimum image (no shift loads).
template <class E, bool kEnergy, bool kOwnedShares, bool kTyped, bool kExplicit>
__global__ void __launch_bounds__(kThreads) pair_force_kernel(ForceArgs<E> a) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const std::uint64_t i = t / kRowLanes;
  const unsigned lane = static_cast<unsigned>(t % kRowLanes);
  __int128 energy = 0, virial = 0;
  unsigned long long pairs = 0;
  if (i < a.n) {
    const std::uint64_t begin = a.offsets[i] + lane, end = a.offsets[i + 1];
    if (begin < end) {
      const Vec3 xi = a.x[i];
      const Int3 si = kExplicit ? a.shift[i] : Int3{0, 0, 0};
      const typename E::Params* row = kTyped ? a.table.params + a.type[i] * a.table.types : &a.one;
      // Wrapping unsigned sums of this lane's share of the row: the same bits as the signed
      // sums, which the bound keeps in range (a share has at most max_terms terms too).
      unsigned long long fx = 0, fy = 0, fz = 0;
      for (std::uint64_t k = begin; k < end; k += kRowLanes) {
        const std::uint32_t j = a.neighbors[k];
        const Vec3 d = kExplicit ? image_displacement(xi, a.x[j], si, a.shift[j], a.length)
                                 : pair_displacement(xi, a.x[j], a.length, a.half_length);
        const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
        const typename E::Params& params = kTyped ? row[a.type[j]] : *row;
        if (r2 >= params.cutoff_sq) continue;
        ++pairs;
        bool overflow = false;
        PairTerms<double> terms;
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
        const Fix3 F = pair_force_fixed(d, r2, terms, a.limit_sq, overflow);
        fx += static_cast<unsigned long long>(F.x);
        fy += static_cast<unsigned long long>(F.y);
        fz += static_cast<unsigned long long>(F.z);
        atomic_add_fixed(&a.f[j].x,
                         static_cast<std::int64_t>(0ull - static_cast<unsigned long long>(F.x)));
        atomic_add_fixed(&a.f[j].y,
                         static_cast<std::int64_t>(0ull - static_cast<unsigned long long>(F.y)));
        atomic_add_fixed(&a.f[j].z,
                         static_cast<std::int64_t>(0ull - static_cast<unsigned long long>(F.z)));
        if constexpr (kEnergy) {
          const std::int64_t e = pair_energy_fixed(terms, overflow);
          const std::int64_t w = pair_virial_fixed(terms, r2, overflow);
          const bool shared = kOwnedShares && j >= a.n_owned;
          const bool i_lower = shared && takes_lower_share(a.id[i], a.id[j], si,
                                                           kExplicit ? a.shift[j] : Int3{0, 0, 0});
          add_pair_energy(energy, virial, e, w, shared, i_lower);
        }
        if (overflow) atomic_min_index(&a.flags->pair_overflow, k);
      }
      atomic_add_fixed(&a.f[i].x, static_cast<std::int64_t>(fx));
      atomic_add_fixed(&a.f[i].y, static_cast<std::int64_t>(fy));
      atomic_add_fixed(&a.f[i].z, static_cast<std::int64_t>(fz));
    }
  }
  pairs = warp_sum_u64(pairs);
  if ((threadIdx.x & 31u) == 0 && pairs != 0) atomicAdd(&a.flags->pairs, pairs);
  if constexpr (kEnergy) {
    energy = block_sum_wide<kThreads>(energy);
    virial = block_sum_wide<kThreads>(virial);
    if (threadIdx.x == 0) {
      atomic_add_wide(a.flags->energy, energy);
      atomic_add_wide(a.flags->virial, virial);
    }
  }
}

template <class E, bool kTyped, bool kExplicit>
void launch_variant(const ForceArgs<E>& a, unsigned blocks, bool with_energy,
                    bool owned_shares_only, cudaStream_t stream) {
  if (with_energy && owned_shares_only)
    pair_force_kernel<E, true, true, kTyped, kExplicit><<<blocks, kThreads, 0, stream>>>(a);
  else if (with_energy)
    pair_force_kernel<E, true, false, kTyped, kExplicit><<<blocks, kThreads, 0, stream>>>(a);
  else
    pair_force_kernel<E, false, false, kTyped, kExplicit><<<blocks, kThreads, 0, stream>>>(a);
}

}  // namespace

template <class E>
void launch_pair_forces(const ForceArgs<E>& a, bool with_energy, bool owned_shares_only,
                        cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks =
      static_cast<unsigned>((std::uint64_t{a.n} * kRowLanes + kThreads - 1) / kThreads);
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
  return instantiate(static_cast<PairStyles*>(nullptr));
}

}  // namespace scanmd::cuda_step
