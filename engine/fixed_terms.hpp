// The fixed-point terms every backend adds up, written once for the host loops and the CUDA
// kernels (SCANMD_HD): one pair of any style (force, energy, virial, and the rank's share of
// the energy and virial) from its evaluator's terms, and one particle's m v².
//
// Pair force. For a listed pair with displacement d (minimum image of x_i − x_j) and
// r² = d·d < r_c²:  fs = fpair · 2^40 (exact: a power of two), F = trunc(fs · d) per component,
// added to i and subtracted from j. Truncation is symmetric, so whichever particle is "i" on
// whichever rank or backend, the bits agree.
//
// Overflow bound. One particle's accumulator receives at most `max_terms` pair terms (a
// property of the neighbour list), so if every term is below 2^63 / (max_terms + 1) no
// accumulator can leave the int64 range and the adds need no checks: each pair is tested once,
// |F|² = fs² r² against limit² (NaN fails the test too). pair_term_limit_sq gives limit², limit
// being the largest power of two ≤ 2^62 with limit · (max_terms + 1) ≤ 2^63.
#pragma once

#include <cstdint>

#include "base/fixed_point.hpp"
#include "base/vec3.hpp"
#include "physics/pair/pair_style.hpp"

namespace scanmd {

SCANMD_HD inline double pair_term_limit_sq(double max_terms) {
  double limit = 4611686018427387904.0;                                    // 2^62
  while (limit * (max_terms + 1.0) > 9223372036854775808.0) limit *= 0.5;  // 2^63
  return limit * limit;
}

// The force term of a pair with r² < r_c² and terms t = E::eval(r², params); raises `overflow`
// when |F| is not below the limit.
SCANMD_HD inline Fix3 pair_force_fixed(Vec3 d, double r2, const PairTerms<double>& t,
                                       double limit_sq, bool& overflow) {
  // (fpair·2^40)·d == (fpair·d)·2^40 bit for bit: scaling by a power of two is exact.
  const double fs = t.fpair * fixed::kScale;
  const bool ok = fs * fs * r2 < limit_sq;  // |F| < limit, so every component is
  overflow |= !ok;
  // On overflow the force is zero, not an out-of-range conversion (undefined behaviour, and the
  // sums it would go into overflow too): the caller stops with an error anyway.
  const double s = ok ? fs : 0.0;
  return {static_cast<std::int64_t>(s * d.x), static_cast<std::int64_t>(s * d.y),
          static_cast<std::int64_t>(s * d.z)};
}

// Energy and virial (r·F = fpair r²) of a pair in fixed point.
SCANMD_HD inline std::int64_t pair_energy_fixed(const PairTerms<double>& t, bool& overflow) {
  return fixed::to_fixed(t.energy, overflow);
}
SCANMD_HD inline std::int64_t pair_virial_fixed(const PairTerms<double>& t, double r2,
                                                bool& overflow) {
  return fixed::to_fixed(t.fpair * r2, overflow);
}

// Which side of a shared pair (full shell, j a ghost) takes fixed::lower_share: the lower id. A
// particle's pair with its own image (boxes shorter than 2R) is listed twice, as (i, i + S) and
// (i, i − S), with equal ids: the listing whose S = s_j − s_i is lexicographically positive does.
SCANMD_HD inline bool takes_lower_share(std::uint64_t id_i, std::uint64_t id_j, Int3 s_i,
                                        Int3 s_j) {
  return id_i != id_j ? id_i < id_j : lex_sign(s_j - s_i) > 0;
}

// Adds a pair's energy e and virial w (fixed point) to this rank's sums. `shared`: the pair is
// computed on the other particle's side too (full shell, j a ghost), so this rank adds only
// particle i's part — lower_share when `i_lower` (takes_lower_share), else the rest — and the
// two parts add up to the whole exactly. Otherwise the whole pair is this rank's.
SCANMD_HD inline void add_pair_energy(fixed::Wide& energy, fixed::Wide& virial, std::int64_t e,
                                      std::int64_t w, bool shared, bool i_lower) {
  if (shared) {
    const std::int64_t e_lo = fixed::lower_share(e), w_lo = fixed::lower_share(w);
    energy += i_lower ? e_lo : e - e_lo;
    virial += i_lower ? w_lo : w - w_lo;
  } else {
    energy += e;
    virial += w;
  }
}

// One particle's m v² in fixed point.
SCANMD_HD inline std::int64_t twice_kinetic_term(Vec3 v, double mass, bool& overflow) {
  return fixed::to_fixed(mass * (v.x * v.x + v.y * v.y + v.z * v.z), overflow);
}

}  // namespace scanmd
