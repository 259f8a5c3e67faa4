// The random number of one pair at one step, shared by the host and CUDA drivers of the styles
// that read it (kPairMotion: DPD's random force, physics/pair/dpd.hpp).
//
//   θ_ij = √3 (2u − 1),   u ∈ [0, 1) the top 53 bits of Philox4x64-10 (Random123) × 2^-53
// with counter (min(id_i, id_j), max(id_i, id_j), step, 0) and key (seed, "scanmd-D"): a pure
// function of the pair and the step, so the two sides of a pair (full shell computes a
// cross-rank pair on both ranks), any rank count, decomposition, backend or restart draw the
// same number. Uniform on [−√3, √3): zero mean and unit variance, made of +, −, × only (exact
// but for the one rounding of the last product), so host and device bits agree without libm —
// HOOMD-blue's choice for DPD; LAMMPS draws Gaussians, which only the statistics can be
// compared with.
#pragma once

#include <cstdint>

#include <Random123/philox.h>

#include "kernels/hd.hpp"

namespace scanmd {

inline constexpr std::uint64_t kPairNoiseStream = 0x7363616e6d642d44ull;  // "scanmd-D"

SCANMD_HD inline double pair_noise(std::uint64_t seed, std::uint64_t step, std::uint64_t id_i,
                                   std::uint64_t id_j) {
  r123::Philox4x64 rng;
  const std::uint64_t lo = id_i < id_j ? id_i : id_j, hi = id_i < id_j ? id_j : id_i;
  const r123::Philox4x64::ctr_type ctr = {{lo, hi, step, 0}};
  const r123::Philox4x64::key_type key = {{seed, kPairNoiseStream}};
  const r123::Philox4x64::ctr_type r = rng(ctr, key);
  constexpr double k = 1.0 / 9007199254740992.0;  // 2^-53
  constexpr double sqrt3 = 1.7320508075688772;
  return (static_cast<double>(r[0] >> 11) * k * 2.0 - 1.0) * sqrt3;
}

}  // namespace scanmd
