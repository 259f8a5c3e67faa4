// engine/cuda/force_rows.cuh — the row walk of the device's pair-force kernels, written once:
// forces.cu runs it for every pair style, eam.cu for EAM's force pass (nvcc only).
//
// Four threads per row i (owned + ghost rows; rows the rule gives nothing are empty), lane l
// taking the row's entries l, l + 4, ...: coalesced index loads and enough threads to fill the
// GPU at 64 000 particles. For each listed j the caller's terms give F/r and U (false beyond the
// pair's cutoff: not counted); then the host's pair_force_fixed (engine/fixed_terms.hpp), F
// summed into the lane's register accumulator and −F atomically into j; the lane's total is added
// atomically into i at the end (i may also be some other row's j). Integer atomics are
// associative, so the result is bit-identical to the host loop's whatever the schedule.
// Overflow: the per-pair bound (limit_sq from max_terms) keeps every accumulator in range, so the
// adds need no checks; a pair that fails the bound (or whose energy or virial does not fit)
// raises flags->pair_overflow with its list entry (lowest wins). Energy and virial (thermo
// steps): per-thread __int128 sums of the int64 terms, split between the two particles for full
// shell by the host's add_pair_energy; block sums in __int128, one 128-bit two-word atomic add per
// block. Pair counts: warp sums, one atomic per warp.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/cuda/device_math.cuh"
#include "engine/fixed_terms.hpp"

namespace scanmd::cuda_step {

inline constexpr int kRowThreads = 128;
inline constexpr int kRowLanes = 4;  // threads per row: entries k, k + 4, ...

inline unsigned row_blocks(std::uint32_t n) {
  return static_cast<unsigned>((std::uint64_t{n} * kRowLanes + kRowThreads - 1) / kRowThreads);
}

// The canonical displacement x_i − x_j: from the images' shifts in small boxes (kExplicit,
// base/box.hpp's image_displacement), else the minimum image (no shift loads).
template <bool kExplicit, class Args>
__device__ __forceinline__ Vec3 row_displacement(const Args& a, std::uint32_t j, Vec3 xi, Int3 si) {
  if constexpr (kExplicit) return image_displacement(xi, a.x[j], si, a.shift[j], a.length);
  return pair_displacement(xi, a.x[j], a.length, a.half_length);
}

// This thread's share of its row. Args: the kernel's arguments (x, shift, id, offsets,
// neighbors, f, n, n_owned, length, half_length, limit_sq, flags). row_of(i) gives what the pair
// terms need of row i, read once per lane; terms_of(row, i, j, d, r2, terms) sets the pair's
// PairTerms<double> and returns false when the pair lies beyond its cutoff. Every thread of the
// block must call it (block sums on thermo steps).
template <bool kEnergy, bool kOwnedShares, bool kExplicit, class Args, class RowOf, class TermsOf>
__device__ __forceinline__ void pair_force_rows(const Args& a, RowOf row_of, TermsOf terms_of) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * kRowThreads + threadIdx.x;
  const std::uint64_t i = t / kRowLanes;
  const unsigned lane = static_cast<unsigned>(t % kRowLanes);
  __int128 energy = 0, virial = 0;
  unsigned long long pairs = 0;
  if (i < a.n) {
    const std::uint64_t begin = a.offsets[i] + lane, end = a.offsets[i + 1];
    if (begin < end) {
      const Vec3 xi = a.x[i];
      const Int3 si = kExplicit ? a.shift[i] : Int3{0, 0, 0};
      const auto row = row_of(i);
      // Wrapping unsigned sums of this lane's share of the row: the same bits as the signed
      // sums, which the bound keeps in range (a share has at most max_terms terms too).
      unsigned long long fx = 0, fy = 0, fz = 0;
      for (std::uint64_t k = begin; k < end; k += kRowLanes) {
        const std::uint32_t j = a.neighbors[k];
        const Vec3 d = row_displacement<kExplicit>(a, j, xi, si);
        const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
        PairTerms<double> terms;
        if (!terms_of(row, i, j, d, r2, terms)) continue;
        ++pairs;
        bool overflow = false;
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
    energy = block_sum_wide<kRowThreads>(energy);
    virial = block_sum_wide<kRowThreads>(virial);
    if (threadIdx.x == 0) {
      atomic_add_wide(a.flags->energy, energy);
      atomic_add_wide(a.flags->virial, virial);
    }
  }
}

}  // namespace scanmd::cuda_step
