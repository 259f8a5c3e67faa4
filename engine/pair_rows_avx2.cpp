// The AVX2 pair kernel (see pair_rows.hpp): four pairs of one row per vector, the pair's F/r
// from the style's evaluator instantiated for simd::F64x4 (with several species, once per
// distinct type pair among the four lanes, blended lane by lane). AVX2 has neither a
// double → int64 conversion nor a scatter, so the pair math runs in vectors and the four
// truncations and the f[j] updates lane by lane (the same conversion as the scalar loop).
// Compiled with -mavx2 for this file only (no -mfma: the same bits as the scalar loop) and
// called only when the CPU has AVX2 (engine/pair_kernel.cpp).
#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <stdexcept>

#include "base/box_avx2.hpp"
#include "base/fixed_point.hpp"
#include "engine/pair_rows.hpp"
#include "engine/simd.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd {

#if defined(__AVX2__)

using avx2::minimum_image;

namespace {

// Lanes whose bit is set in `bits` (4 bits) as a vector mask.
inline __m256d lane_mask(unsigned bits) {
  const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
  const __m256i b = _mm256_set1_epi64x(static_cast<long long>(bits));
  return _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(b, bit), bit));
}

template <class E, bool Energy, bool Typed>
RowsTotals rows_avx2(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f) {
  const __m256d lx = _mm256_set1_pd(rows.length.x), ly = _mm256_set1_pd(rows.length.y),
                lz = _mm256_set1_pd(rows.length.z);
  const __m256d hx = _mm256_set1_pd(rows.half_length.x), hy = _mm256_set1_pd(rows.half_length.y),
                hz = _mm256_set1_pd(rows.half_length.z);
  const __m256d nhx = _mm256_set1_pd(-rows.half_length.x),
                nhy = _mm256_set1_pd(-rows.half_length.y),
                nhz = _mm256_set1_pd(-rows.half_length.z);
  const typename E::Params params = rows.params;
  const __m256d cutoff_sq = _mm256_set1_pd(params.cutoff_sq);
  const __m256d scale = _mm256_set1_pd(fixed::kScale);
  const __m256d limit_sq = _mm256_set1_pd(rows.limit_sq);
  const __m256d one = _mm256_set1_pd(1.0);
  const double* xs = &rows.x[0].x;
  const __m128i lane_ids = _mm_setr_epi32(0, 1, 2, 3);
  const __m256i xyz_mask = _mm256_setr_epi64x(-1, -1, -1, 0);
  RowsTotals totals;
  bool bad = false;
  alignas(32) double sx[4], sy[4], sz[4];
  alignas(16) std::uint32_t js[4];
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint32_t row_begin = rows.offsets[i], row_end = rows.offsets[i + 1];
    if (row_begin == row_end) continue;
    const __m256d xi = _mm256_set1_pd(rows.x[i].x), yi = _mm256_set1_pd(rows.x[i].y),
                  zi = _mm256_set1_pd(rows.x[i].z);
    // Several species: row i's entries of the pair table (entry tj: the pair with type tj).
    const typename E::Params* row = Typed ? rows.table + rows.type[i] * rows.types : nullptr;
    std::int64_t fx = 0, fy = 0, fz = 0;
    for (std::uint32_t k = row_begin; k < row_end; k += 4) {
      const std::uint32_t left = row_end - k;
      const __m128i lanes32 =
          _mm_cmpgt_epi32(_mm_set1_epi32(static_cast<int>(left < 4 ? left : 4)), lane_ids);
      const __m256d lanes = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(lanes32));
      // x[j] for the four lanes: each Vec3 read as four doubles (the fourth masked off: no
      // read past the array; lanes past the row read its last neighbour, masked off below),
      // transposed in registers. Cheaper than three gathers. The indices are read from the list
      // as scalars: taken from a store of a vector of them, each waited on that store.
      const std::uint32_t last = left < 4 ? left - 1 : 3;
      for (std::uint32_t l = 0; l < 4; ++l) js[l] = rows.neighbors[k + (l < last ? l : last)];
      const __m256d r0 = _mm256_maskload_pd(xs + 3 * std::size_t(js[0]), xyz_mask);
      const __m256d r1 = _mm256_maskload_pd(xs + 3 * std::size_t(js[1]), xyz_mask);
      const __m256d r2j = _mm256_maskload_pd(xs + 3 * std::size_t(js[2]), xyz_mask);
      const __m256d r3 = _mm256_maskload_pd(xs + 3 * std::size_t(js[3]), xyz_mask);
      const __m256d t0 = _mm256_unpacklo_pd(r0, r1);   // x0 x1 | z0 z1
      const __m256d t1 = _mm256_unpackhi_pd(r0, r1);   // y0 y1 | 0 0
      const __m256d t2 = _mm256_unpacklo_pd(r2j, r3);  // x2 x3 | z2 z3
      const __m256d t3 = _mm256_unpackhi_pd(r2j, r3);  // y2 y3 | 0 0
      const __m256d xj = _mm256_permute2f128_pd(t0, t2, 0x20);
      const __m256d yj = _mm256_permute2f128_pd(t1, t3, 0x20);
      const __m256d zj = _mm256_permute2f128_pd(t0, t2, 0x31);
      const __m256d dx = minimum_image(_mm256_sub_pd(xi, xj), lx, hx, nhx);
      const __m256d dy = minimum_image(_mm256_sub_pd(yi, yj), ly, hy, nhy);
      const __m256d dz = minimum_image(_mm256_sub_pd(zi, zj), lz, hz, nhz);
      const __m256d r2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)),
                                       _mm256_mul_pd(dz, dz));
      // Each lane's type pair (lanes past the row read its last neighbour's: masked off).
      alignas(16) std::uint32_t tj[4];
      __m256d lane_cutoff_sq = cutoff_sq;
      if constexpr (Typed) {
        for (int l = 0; l < 4; ++l) tj[l] = rows.type[js[l]];
        lane_cutoff_sq = _mm256_setr_pd(row[tj[0]].cutoff_sq, row[tj[1]].cutoff_sq,
                                        row[tj[2]].cutoff_sq, row[tj[3]].cutoff_sq);
      }
      const __m256d in = _mm256_and_pd(lanes, _mm256_cmp_pd(r2, lane_cutoff_sq, _CMP_LT_OQ));
      const int in_bits = _mm256_movemask_pd(in);
      if (in_bits == 0) continue;
      totals.pairs += __builtin_popcount(static_cast<unsigned>(in_bits));
      // Lanes outside the cutoff see r² = 1 (masked off below anyway).
      const __m256d r2_in = _mm256_blendv_pd(one, r2, in);
      PairTerms<simd::F64x4> pt;
      if constexpr (!Typed) {
        pt = E::template eval<simd::F64x4>(r2_in, params);
      } else {
        // One evaluation per type pair among the lanes within the cutoff (row i's entries of
        // the pair table, by the lanes' types).
        pt = terms_per_entry(
            simd::F64x4(r2_in), row, tj, static_cast<unsigned>(in_bits),
            [](simd::F64x4 r, const typename E::Params& p) {
              return E::template eval<simd::F64x4>(r, p);
            },
            [&](unsigned left, std::uint32_t t) {
              unsigned same = 0;
              for (unsigned l = 0; l < 4; ++l)
                same |= (((left >> l) & 1u) != 0 && tj[l] == t) ? 1u << l : 0u;
              return same;
            },
            [](unsigned m, __m256d a, __m256d b) { return _mm256_blendv_pd(a, b, lane_mask(m)); });
      }
      const __m256d fs = _mm256_mul_pd(pt.fpair.v, scale);
      const __m256d ok =
          _mm256_cmp_pd(_mm256_mul_pd(_mm256_mul_pd(fs, fs), r2), limit_sq, _CMP_LT_OQ);
      bad |= (_mm256_movemask_pd(_mm256_andnot_pd(ok, in)) != 0);
      const __m256d s = _mm256_and_pd(fs, _mm256_and_pd(in, ok));
      _mm256_store_pd(sx, _mm256_mul_pd(s, dx));
      _mm256_store_pd(sy, _mm256_mul_pd(s, dy));
      _mm256_store_pd(sz, _mm256_mul_pd(s, dz));
      alignas(32) double u[4], w[4];
      if constexpr (Energy) {
        // U and (F/r)·r² of the same IEEE values as the scalar loop's, to fixed point below.
        _mm256_store_pd(u, pt.energy.v);
        _mm256_store_pd(w, _mm256_mul_pd(pt.fpair.v, r2));
      }
      for (int l = 0; l < 4; ++l) {
        if (!((in_bits >> l) & 1)) continue;
        if constexpr (Energy) {
          totals.energy += fixed::to_fixed(u[l], bad);
          totals.virial += fixed::to_fixed(w[l], bad);
        }
        const std::int64_t Fx = static_cast<std::int64_t>(sx[l]);
        const std::int64_t Fy = static_cast<std::int64_t>(sy[l]);
        const std::int64_t Fz = static_cast<std::int64_t>(sz[l]);
        fx += Fx;
        fy += Fy;
        fz += Fz;
        Fix3& fj = f[js[l]];
        fj.x -= Fx;
        fj.y -= Fy;
        fj.z -= Fz;
      }
    }
    f[i].x += fx;
    f[i].y += fy;
    f[i].z += fz;
  }
  totals.overflow = bad;
  return totals;
}

}  // namespace

template <class E>
RowsTotals pair_rows_avx2(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f) {
  if constexpr (!E::kVector) {
    throw std::logic_error("pair_rows_avx2: this pair style has no vector kernel");
  } else {
    if (rows.type != nullptr)
      return rows.energy ? rows_avx2<E, true, true>(rows, begin, end, f)
                         : rows_avx2<E, false, true>(rows, begin, end, f);
    return rows.energy ? rows_avx2<E, true, false>(rows, begin, end, f)
                       : rows_avx2<E, false, false>(rows, begin, end, f);
  }
}

#else

template <class E>
RowsTotals pair_rows_avx2(const PairRows<E>&, std::size_t, std::size_t, Fix3*) {
  throw std::logic_error("pair_rows_avx2: not built for this CPU architecture");
}

#endif

// Every style's kernel, instantiated here (the only file compiled for this instruction set): a
// function with external linkage is always emitted, and it takes every instance's address.
namespace {
template <class... E>
auto instantiate(std::tuple<E...>*) {
  return std::tuple{&pair_rows_avx2<E>...};
}
}  // namespace
auto pair_rows_avx2_kernels() {
  return instantiate(static_cast<ComputedPairStyles*>(nullptr));
}

}  // namespace scanmd
