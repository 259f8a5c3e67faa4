// The AVX-512 pair kernel (see pair_rows.hpp): a block of rows at a time, their pairs within
// the cutoff packed (engine/rows_avx512.hpp), then eight packed pairs per vector, the pair's
// F/r from the style's evaluator instantiated for simd::F64x8, the terms added to f in scalar
// code. Packing fills the vectors whatever the rows' lengths (a WCA row holds about five
// entries, two within the cutoff), and the adds need no gather or scatter. Compiled with
// -mavx512f -mavx512dq for this file only and called only when the CPU has them
// (engine/pair_kernel.cpp). No fused multiply-add anywhere: the same bits as the scalar loop.
// A style's float variant (run.precision = "mixed") runs its float terms sixteen pairs per vector.
#if defined(__AVX512DQ__)
#include <immintrin.h>
#endif
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "base/fixed_point.hpp"
#include "engine/pair_rows.hpp"
#include "engine/rows_avx512.hpp"
#include "engine/simd.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd {

#if defined(__AVX512DQ__)

namespace {

// run.precision = "mixed" (physics/pair/mixed.hpp): the force terms of a block's packed pairs,
// sixteen per vector: two chunks' r² rounded to float into one vector, the style's float terms
// (its eval for simd::F32x16: each lane the float operations of Mixed<E>::eval), F/r widened
// back to two vectors of doubles (exact), then per chunk exactly the double kernel's fixed-point
// steps (with Energy also U, widened, and F/r·r² in double, as Mixed<E>::eval's scalar terms).
// The second chunk of the last pair of chunks may be empty (all lanes off; its terms not
// stored: the planes have one vector of padding only).
template <class E, bool Energy>
void mixed_terms(const avx512::Packed& packed, const typename E::Params& params, __m512d scale,
                 __m512d limit_sq, std::int64_t* Fx, std::int64_t* Fy, std::int64_t* Fz,
                 __mmask8& bad, RowsTotals& totals) {
  using namespace avx512;
  const std::uint32_t n = packed.n;
  Chunk none;
  none.in = 0;
  none.r2 = _mm512_set1_pd(1.0);
  none.dx = none.dy = none.dz = _mm512_setzero_pd();
  for (std::uint32_t k = 0; k < n; k += 16) {
    const Chunk c0 = chunk(packed, k);
    const Chunk c1 = k + 8 < n ? chunk(packed, k + 8) : none;
    // (The masked forms with every lane set: GCC 12 warns about the unmasked ones' undefined
    // sources. The same instructions and results.)
    const __m512 r2 =
        _mm512_maskz_insertf32x8(0xFFFF,
                                 _mm512_maskz_insertf32x8(0xFFFF, _mm512_setzero_ps(),
                                                          _mm512_maskz_cvtpd_ps(0xFF, c0.r2), 0),
                                 _mm512_maskz_cvtpd_ps(0xFF, c1.r2), 1);
    const PairTerms<simd::F32x16> pt =
        E::Double::template eval<simd::F32x16>(simd::F32x16(r2), params);
    const auto widen = [](__m512 v, int half) {
      return half == 0 ? _mm512_maskz_cvtps_pd(0xFF, _mm512_maskz_extractf32x8_ps(0xFF, v, 0))
                       : _mm512_maskz_cvtps_pd(0xFF, _mm512_maskz_extractf32x8_ps(0xFF, v, 1));
    };
    const __m512d fpair[2] = {widen(pt.fpair.v, 0), widen(pt.fpair.v, 1)};
    const Chunk* c[2] = {&c0, &c1};
    for (int h = 0; h < 2; ++h) {
      if (c[h]->in == 0) continue;
      if constexpr (Energy) {
        bad |= add_fixed_lanes(totals.energy, widen(pt.energy.v, h), c[h]->in);
        bad |= add_fixed_lanes(totals.virial, _mm512_mul_pd(fpair[h], c[h]->r2), c[h]->in);
      }
      const std::uint32_t at = k + 8 * static_cast<std::uint32_t>(h);
      store_force_terms(fpair[h], scale, limit_sq, c[h]->in, c[h]->r2, c[h]->dx, c[h]->dy, c[h]->dz,
                        Fx + at, Fy + at, Fz + at, bad);
    }
  }
}

template <class E, bool Energy>
RowsTotals rows_avx512(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f) {
  using namespace avx512;
  const Geometry g(rows);
  const typename E::Params params = rows.params;
  const __m512d cutoff_sq = _mm512_set1_pd(params.cutoff_sq);
  const __m512d scale = _mm512_set1_pd(fixed::kScale);
  const __m512d limit_sq = _mm512_set1_pd(rows.limit_sq);
  RowsTotals totals;
  __mmask8 bad = 0;
  // A block of rows at a time: their pairs within the cutoff packed (whatever the rows'
  // lengths, the pair math then runs full vectors), their force terms computed into F, then
  // added to f row by row in scalar code (no gather/scatter of f; integer sums, so the order
  // of the adds does not matter).
  thread_local Packed packed;
  thread_local std::vector<std::int64_t> F;
  for_each_block(rows, g, cutoff_sq, begin, end, packed, [&](const Block& b) {
    const std::uint32_t n = b.packed.n;
    totals.pairs += n;
    const auto [Fx, Fy, Fz] = term_planes(F, n);
    if constexpr (MixedPrecisionStyle<E>) {
      mixed_terms<E, Energy>(b.packed, params, scale, limit_sq, Fx, Fy, Fz, bad, totals);
      add_terms(b, Fx, Fy, Fz, f);
      return;
    }
    for (std::uint32_t k = 0; k < n; k += 8) {
      const Chunk c = chunk(b.packed, k);
      // Masked-off lanes compute too (r² = 1, masked below): no traps, IEEE defaults.
      const PairTerms<simd::F64x8> pt = E::template eval<simd::F64x8>(c.r2, params);
      if constexpr (Energy) {
        bad |= add_fixed_lanes(totals.energy, pt.energy.v, c.in);
        bad |= add_fixed_lanes(totals.virial, _mm512_mul_pd(pt.fpair.v, c.r2), c.in);
      }
      store_force_terms(pt.fpair.v, scale, limit_sq, c.in, c.r2, c.dx, c.dy, c.dz, Fx + k, Fy + k,
                        Fz + k, bad);
    }
    add_terms(b, Fx, Fy, Fz, f);
  });
  totals.overflow = bad != 0;
  return totals;
}

}  // namespace

template <class E>
RowsTotals pair_rows_avx512(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f) {
  if constexpr (!E::kVector) {
    throw std::logic_error("pair_rows_avx512: this pair style has no vector kernel");
  } else {
    if (rows.type != nullptr)
      throw std::logic_error("pair_rows_avx512: one species only (several: pair_rows_avx2)");
    return rows.energy ? rows_avx512<E, true>(rows, begin, end, f)
                       : rows_avx512<E, false>(rows, begin, end, f);
  }
}

#else

template <class E>
RowsTotals pair_rows_avx512(const PairRows<E>&, std::size_t, std::size_t, Fix3*) {
  throw std::logic_error("pair_rows_avx512: not built for this CPU architecture");
}

#endif

// Every style's kernel, instantiated here (the only file compiled for this instruction set): a
// function with external linkage is always emitted, and it takes every instance's address.
namespace {
template <class... E>
auto instantiate(std::tuple<E...>*) {
  return std::tuple{&pair_rows_avx512<E>...};
}
}  // namespace
auto pair_rows_avx512_kernels() {
  return instantiate(static_cast<ComputedPairStyles*>(nullptr));
}

}  // namespace scanmd
