// The vector pair kernels' one job: a pass over rows [begin, end) of a neighbour list in minimum
// image (engine/pair_kernel.hpp says when), for a pair style whose evaluator is generic in its
// number type (kVector). Several species (`type` set): each lane's pair constants are its two
// types' table entry, its cutoff test against that pair's r_c², and its terms from the evaluator
// run with those constants — one evaluation per distinct type pair in the vector, each lane keeping
// its own pair's result, so the same IEEE operations as the scalar loop. Each lane computes exactly
// the scalar loop's operations for one pair (engine/pair_forces.cpp, engine/fixed_terms.hpp): d by
// the conditional ±L, r² = (dx² + dy²) + dz², the evaluator's F/r, fs = (F/r)·2^40, the |F| < limit
// test, F = trunc(fs·d) — and adds F to f[i] and −F to f[j] (integer sums: in any order, the same
// bits). With `energy` (a thermo step) each pair's energy U and virial (F/r)·r² go to fixed point
// as fixed::to_fixed does (×2^40, |.| < 2^62, rounded to nearest) and into the totals: the whole
// pair's, so not for full shell's owned shares (the scalar loop splits those by ids). AVX2 works
// row by row (neighbours of one row are distinct particles); AVX-512 packs the pairs within the
// cutoff of a block of rows first and adds their terms in scalar code.
//
// A pair that fails the overflow test makes the pass return overflow = true (its forces are
// then incomplete); the caller reruns the scalar loop, which names the two particles.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/fixed_point.hpp"
#include "base/vec3.hpp"
#include "engine/interior_rows.hpp"
#include "physics/pair/pair_style.hpp"

namespace scanmd {

template <class E>
struct PairRows {
  const std::uint32_t* offsets;    // CSR row offsets (n + 1)
  const std::uint32_t* neighbors;  // CSR entries
  const Vec3* x;                   // wrapped positions
  Vec3 length, half_length;
  typename E::Params params;  // the one species' pair
  double limit_sq;            // pair_term_limit_sq(max_terms)
  bool energy = false;        // the energy and virial too
  // Several species: each particle's type (0-based) and the pair table (entry ti · types + tj,
  // as PairTable); null: one species, `params`.
  const std::uint32_t* type = nullptr;
  const typename E::Params* table = nullptr;
  std::uint32_t types = 1;
  // AVX-512: the neighbours' positions by gathers, else by transposed loads (PositionLoads,
  // engine/pair_kernel.hpp); the same values either way.
  bool gather = false;
  // AVX-512: the rows whose displacements skip the minimum-image test (the same bits).
  InteriorRows interior{};
};

struct RowsTotals {
  long long pairs = 0;  // pairs within the cutoff
  bool overflow = false;
  fixed::Wide energy = 0, virial = 0;  // with PairRows::energy
};

// Several species: the style's terms of a vector of pairs (R: a simd:: vector type) for the
// lanes `in` (not empty), lane l's pair constants table[entry[l]]. E's eval runs once for each
// entry among those lanes — the first evaluation covers every lane, each next one overwrites its
// own (match(left, t): the lanes of `left` with entry t; blend(m, a, b): b in the lanes m, a
// elsewhere) — so each lane gets exactly the scalar loop's terms for its pair.
template <class R, class Mask, class Params, class Eval, class Match, class Blend>
PairTerms<R> terms_per_entry(R r2, const Params* table, const std::uint32_t* entry, Mask in,
                             Eval&& eval, Match&& match, Blend&& blend) {
  PairTerms<R> pt;
  Mask left = in;
  for (bool first = true; left != 0; first = false) {
    const std::uint32_t t = entry[__builtin_ctz(left)];
    const Mask same = match(left, t);
    const PairTerms<R> e = eval(r2, table[t]);
    if (first) {
      pt = e;
    } else {
      pt.fpair = blend(same, pt.fpair.v, e.fpair.v);
      pt.energy = blend(same, pt.energy.v, e.energy.v);
    }
    left = static_cast<Mask>(left & ~same);
  }
  return pt;
}

// Defined (for every style of physics/pair/styles.hpp) in pair_rows_avx2.cpp and
// pair_rows_avx512.cpp, each compiled for its instruction set only.
template <class E>
RowsTotals pair_rows_avx2(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f);
template <class E>
RowsTotals pair_rows_avx512(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f);

}  // namespace scanmd
