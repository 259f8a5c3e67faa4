// The AVX-512 pair kernel (see pair_rows.hpp): a block of rows at a time, their pairs within
// the cutoff packed (engine/rows_avx512.hpp), then eight packed pairs per vector, the pair's
// F/r from the style's evaluator instantiated for simd::F64x8, the terms added to f in scalar
// code. Packing fills the vectors whatever the rows' lengths (a WCA row holds about five
// entries, two within the cutoff), and the adds need no gather or scatter. Compiled with
// -mavx512f -mavx512dq for this file only and called only when the CPU has them
// (engine/pair_kernel.cpp). No fused multiply-add anywhere: the same bits as the scalar loop.
// A style's float variant (run.precision = "mixed") runs its float terms sixteen pairs per vector.
// Several species: each packed pair carries its type pair's entry, and the evaluator runs once
// per distinct entry among a vector's lanes, each lane keeping its own pair's terms.
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
// Typed: several species (table: the pair table, Packed::pair each pair's entry).
template <class E, bool Energy, bool Typed>
void mixed_terms(const avx512::Packed& packed, const typename E::Params& params,
                 const typename E::Params* table, __m512d scale, __m512d limit_sq, std::int64_t* Fx,
                 std::int64_t* Fy, std::int64_t* Fz, __mmask8& bad, RowsTotals& totals) {
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
    const auto eval = [](simd::F32x16 r, const typename E::Params& p) {
      return E::Double::template eval<simd::F32x16>(r, p);
    };
    PairTerms<simd::F32x16> pt;
    if constexpr (Typed) {
      const __mmask16 in = static_cast<__mmask16>(c0.in | (c1.in << 8));
      const __m512i entries = _mm512_maskz_loadu_epi32(in, packed.pair.data() + k);
      alignas(64) std::uint32_t entry[16];
      _mm512_store_si512(entry, entries);
      pt = terms_per_entry(
          simd::F32x16(r2), table, entry, in, eval,
          [&](__mmask16 left, std::uint32_t t) {
            return _mm512_mask_cmpeq_epi32_mask(left, entries,
                                                _mm512_set1_epi32(static_cast<int>(t)));
          },
          [](__mmask16 m, __m512 a, __m512 b) { return _mm512_mask_blend_ps(m, a, b); });
    } else {
      pt = eval(simd::F32x16(r2), params);
    }
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

template <class E, bool Energy, bool Typed>
RowsTotals rows_avx512(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f) {
  using namespace avx512;
  const Geometry g(rows);
  const typename E::Params params = rows.params;
  const __m512d cutoff_sq = _mm512_set1_pd(params.cutoff_sq);
  // Several species: each type pair's r² cutoff, for the packing.
  thread_local std::vector<double> cutoffs;
  Species species;
  if constexpr (Typed) {
    cutoffs.resize(std::size_t(rows.types) * rows.types);
    for (std::size_t e = 0; e < cutoffs.size(); ++e) cutoffs[e] = rows.table[e].cutoff_sq;
    species = {rows.type, rows.types, cutoffs.data()};
  }
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
  const auto eval = [](simd::F64x8 r2, const typename E::Params& p) {
    return E::template eval<simd::F64x8>(r2, p);
  };
  const auto body = [&](const Block& b) {
    const std::uint32_t n = b.packed.n;
    totals.pairs += n;
    const auto [Fx, Fy, Fz] = term_planes(F, n);
    if constexpr (MixedPrecisionStyle<E>) {
      mixed_terms<E, Energy, Typed>(b.packed, params, rows.table, scale, limit_sq, Fx, Fy, Fz, bad,
                                    totals);
      add_terms(b, Fx, Fy, Fz, f);
      return;
    }
    for (std::uint32_t k = 0; k < n; k += 8) {
      const Chunk c = chunk(b.packed, k);
      // Masked-off lanes compute too (r² = 1, masked below): no traps, IEEE defaults.
      PairTerms<simd::F64x8> pt;
      if constexpr (Typed) {
        const __m256i entries = _mm256_maskz_loadu_epi32(c.in, b.packed.pair.data() + k);
        alignas(32) std::uint32_t entry[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(entry), entries);
        pt = terms_per_entry(
            simd::F64x8(c.r2), rows.table, entry, c.in, eval,
            [&](__mmask8 left, std::uint32_t t) {
              return _mm256_mask_cmpeq_epi32_mask(left, entries,
                                                  _mm256_set1_epi32(static_cast<int>(t)));
            },
            [](__mmask8 m, __m512d a, __m512d b) { return _mm512_mask_blend_pd(m, a, b); });
      } else {
        pt = eval(c.r2, params);
      }
      if constexpr (Energy) {
        bad |= add_fixed_lanes(totals.energy, pt.energy.v, c.in);
        bad |= add_fixed_lanes(totals.virial, _mm512_mul_pd(pt.fpair.v, c.r2), c.in);
      }
      store_force_terms(pt.fpair.v, scale, limit_sq, c.in, c.r2, c.dx, c.dy, c.dz, Fx + k, Fy + k,
                        Fz + k, bad);
    }
    add_terms(b, Fx, Fy, Fz, f);
  };
  for_each_block<Typed>(rows, g, cutoff_sq, begin, end, packed, body, species, rows.interior);
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
      return rows.energy ? rows_avx512<E, true, true>(rows, begin, end, f)
                         : rows_avx512<E, false, true>(rows, begin, end, f);
    return rows.energy ? rows_avx512<E, true, false>(rows, begin, end, f)
                       : rows_avx512<E, false, false>(rows, begin, end, f);
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
