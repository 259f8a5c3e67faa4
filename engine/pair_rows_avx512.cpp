// The AVX-512 pair kernel (see pair_rows.hpp): eight pairs of one row per vector, the pair's
// F/r from the style's evaluator instantiated for simd::F64x8. Compiled with
// -mavx512f -mavx512dq for this file only and called only when the CPU has them
// (engine/pair_kernel.cpp). No fused multiply-add anywhere: the same bits as the scalar loop.
#if defined(__AVX512DQ__)
#include <immintrin.h>
#endif
#include <stdexcept>

#include "base/fixed_point.hpp"
#include "engine/pair_rows.hpp"
#include "engine/simd.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd {

#if defined(__AVX512DQ__)

namespace {

// d − L where d > L/2, d + L where d < −L/2: the scalar minimum_image, lane by lane.
inline __m512d minimum_image(__m512d d, __m512d len, __m512d half, __m512d neg_half) {
  const __mmask8 above = _mm512_cmp_pd_mask(d, half, _CMP_GT_OQ);
  const __mmask8 below = _mm512_cmp_pd_mask(d, neg_half, _CMP_LT_OQ);
  d = _mm512_mask_sub_pd(d, above, d, len);
  return _mm512_mask_add_pd(d, below, d, len);
}

// The sum of the eight lanes (_mm512_reduce_add_epi64 draws a false -Wmaybe-uninitialized
// from GCC 12's header).
inline std::int64_t lane_sum(__m512i v) {
  alignas(64) std::int64_t lanes[8];
  _mm512_store_si512(lanes, v);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

}  // namespace

template <class E>
RowsTotals pair_rows_avx512(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f) {
  if constexpr (!E::kVector) {
    throw std::logic_error("pair_rows_avx512: this pair style has no vector kernel");
  } else {
    const __m512d lx = _mm512_set1_pd(rows.length.x), ly = _mm512_set1_pd(rows.length.y),
                  lz = _mm512_set1_pd(rows.length.z);
    const __m512d hx = _mm512_set1_pd(rows.half_length.x), hy = _mm512_set1_pd(rows.half_length.y),
                  hz = _mm512_set1_pd(rows.half_length.z);
    const __m512d nhx = _mm512_set1_pd(-rows.half_length.x),
                  nhy = _mm512_set1_pd(-rows.half_length.y),
                  nhz = _mm512_set1_pd(-rows.half_length.z);
    const typename E::Params params = rows.params;
    const __m512d cutoff_sq = _mm512_set1_pd(params.cutoff_sq);
    const __m512d scale = _mm512_set1_pd(fixed::kScale);
    const __m512d limit_sq = _mm512_set1_pd(rows.limit_sq);
    const double* xs = &rows.x[0].x;
    auto* fs_base = reinterpret_cast<long long*>(&f[0].x);
    RowsTotals totals;
    __mmask8 bad = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t row_begin = rows.offsets[i], row_end = rows.offsets[i + 1];
      if (row_begin == row_end) continue;
      const __m512d xi = _mm512_set1_pd(rows.x[i].x), yi = _mm512_set1_pd(rows.x[i].y),
                    zi = _mm512_set1_pd(rows.x[i].z);
      __m512i fx = _mm512_setzero_si512(), fy = _mm512_setzero_si512(), fz = _mm512_setzero_si512();
      for (std::uint32_t k = row_begin; k < row_end; k += 8) {
        const std::uint32_t left = row_end - k;
        const __mmask8 lanes = left >= 8 ? 0xFF : static_cast<__mmask8>((1u << left) - 1);
        __m256i j;
        if (left >= 8) {
          j = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows.neighbors + k));
        } else {  // the row's tail: the missing lanes index particle 0, masked off anyway
          alignas(32) std::uint32_t tail[8] = {};
          for (std::uint32_t l = 0; l < left; ++l) tail[l] = rows.neighbors[k + l];
          j = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail));
        }
        const __m256i j3 = _mm256_add_epi32(_mm256_add_epi32(j, j), j);  // Vec3 / Fix3 stride
        const __m512d zero = _mm512_setzero_pd();
        const __m512d xj = _mm512_mask_i32gather_pd(zero, lanes, j3, xs, 8);
        const __m512d yj = _mm512_mask_i32gather_pd(zero, lanes, j3, xs + 1, 8);
        const __m512d zj = _mm512_mask_i32gather_pd(zero, lanes, j3, xs + 2, 8);
        const __m512d dx = minimum_image(_mm512_sub_pd(xi, xj), lx, hx, nhx);
        const __m512d dy = minimum_image(_mm512_sub_pd(yi, yj), ly, hy, nhy);
        const __m512d dz = minimum_image(_mm512_sub_pd(zi, zj), lz, hz, nhz);
        const __m512d r2 = _mm512_add_pd(
            _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
        const __mmask8 in = lanes & _mm512_cmp_pd_mask(r2, cutoff_sq, _CMP_LT_OQ);
        if (in == 0) continue;
        totals.pairs += __builtin_popcount(in);
        // Lanes outside the cutoff compute too (masked off below): no traps, IEEE defaults.
        const simd::F64x8 fpair = E::template eval<simd::F64x8>(r2, params).fpair;
        const __m512d fs = _mm512_mul_pd(fpair.v, scale);
        const __mmask8 ok =
            _mm512_cmp_pd_mask(_mm512_mul_pd(_mm512_mul_pd(fs, fs), r2), limit_sq, _CMP_LT_OQ);
        bad |= in & ~ok;
        const __mmask8 use = in & ok;
        const __m512d s = _mm512_maskz_mov_pd(use, fs);
        const __m512i Fx = _mm512_cvttpd_epi64(_mm512_mul_pd(s, dx));
        const __m512i Fy = _mm512_cvttpd_epi64(_mm512_mul_pd(s, dy));
        const __m512i Fz = _mm512_cvttpd_epi64(_mm512_mul_pd(s, dz));
        fx = _mm512_add_epi64(fx, Fx);
        fy = _mm512_add_epi64(fy, Fy);
        fz = _mm512_add_epi64(fz, Fz);
        // f[j] −= F: gather, subtract, scatter (distinct j within a row).
        const __m512i zi64 = _mm512_setzero_si512();
        __m512i gx = _mm512_mask_i32gather_epi64(zi64, use, j3, fs_base, 8);
        __m512i gy = _mm512_mask_i32gather_epi64(zi64, use, j3, fs_base + 1, 8);
        __m512i gz = _mm512_mask_i32gather_epi64(zi64, use, j3, fs_base + 2, 8);
        _mm512_mask_i32scatter_epi64(fs_base, use, j3, _mm512_sub_epi64(gx, Fx), 8);
        _mm512_mask_i32scatter_epi64(fs_base + 1, use, j3, _mm512_sub_epi64(gy, Fy), 8);
        _mm512_mask_i32scatter_epi64(fs_base + 2, use, j3, _mm512_sub_epi64(gz, Fz), 8);
      }
      f[i].x += lane_sum(fx);
      f[i].y += lane_sum(fy);
      f[i].z += lane_sum(fz);
    }
    totals.overflow = bad != 0;
    return totals;
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
  return instantiate(static_cast<PairStyles*>(nullptr));
}

}  // namespace scanmd
