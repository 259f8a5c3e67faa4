// The AVX-512 cluster-pair kernel (see pair_clusters.hpp). Compiled with -mavx512f -mavx512dq
// -mavx512vl for this file only and called only when the CPU has them (engine/pair_kernel.cpp).
// No fused multiply-add anywhere: the same bits as the scalar loop.
#if defined(__AVX512DQ__)
#include <immintrin.h>
#endif
#include <cstdint>
#include <stdexcept>
#include <tuple>

#include "engine/pair_clusters.hpp"
#include "engine/rows_avx512.hpp"
#include "engine/simd.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd {

#if defined(__AVX512DQ__)

namespace {

using namespace avx512;

// The sum of lanes 0..3 and of lanes 4..7 of a and of b: {a0..3, a4..7, b0..3, b4..7}.
inline __m256i quarter_sums(__m512i a, __m512i b) {
  // Pairs: lanes (0+1, 2+3, 4+5, 6+7) of a, then of b.
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  const __m512i p =
      _mm512_add_epi64(_mm512_permutex2var_epi64(a, even, b), _mm512_permutex2var_epi64(a, odd, b));
  // Then (0+1, 2+3) of those pairs.
  const __m512i q =
      _mm512_add_epi64(_mm512_permutex2var_epi64(p, even, p), _mm512_permutex2var_epi64(p, odd, p));
  return _mm512_castsi512_si256(q);
}

// Lanes 0..3 plus lanes 4..7.
inline __m256i half_sum(__m512i a) {
  return _mm256_add_epi64(_mm512_castsi512_si256(a), _mm512_extracti64x4_epi64(a, 1));
}

// One half of a cluster pair: 8 lanes of displacement, r² and the listed-and-within-cutoff mask.
struct Half {
  __m512d dx, dy, dz, r2;
  __mmask8 in;
};

inline Half half(__m512d xi, __m512d yi, __m512d zi, __m512d xj, __m512d yj, __m512d zj,
                 const Geometry& g, __mmask8 listed, __m512d cutoff_sq) {
  Half h;
  h.dx = _mm512_sub_pd(xi, xj);
  h.dy = _mm512_sub_pd(yi, yj);
  h.dz = _mm512_sub_pd(zi, zj);
  // The minimum image changes nothing unless some |d| > L/2 (nearly every cluster pair away from
  // the box's faces): tested first, the same bits either way.
  const __m512d no_sign = _mm512_castsi512_pd(_mm512_set1_epi64(0x7FFFFFFFFFFFFFFF));
  const __mmask8 far = _mm512_cmp_pd_mask(_mm512_and_pd(h.dx, no_sign), g.hx, _CMP_GT_OQ) |
                       _mm512_cmp_pd_mask(_mm512_and_pd(h.dy, no_sign), g.hy, _CMP_GT_OQ) |
                       _mm512_cmp_pd_mask(_mm512_and_pd(h.dz, no_sign), g.hz, _CMP_GT_OQ);
  if (far != 0) {
    h.dx = minimum_image(h.dx, g.lx, g.hx, g.nhx);
    h.dy = minimum_image(h.dy, g.ly, g.hy, g.nhy);
    h.dz = minimum_image(h.dz, g.lz, g.hz, g.nhz);
  }
  h.r2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(h.dx, h.dx), _mm512_mul_pd(h.dy, h.dy)),
                       _mm512_mul_pd(h.dz, h.dz));
  h.in = listed & _mm512_cmp_pd_mask(h.r2, cutoff_sq, _CMP_LT_OQ);
  return h;
}

// The fixed-point force terms of a half's lanes (0 where not in), and with Energy its energy and
// virial added to the totals.
template <class E, bool Energy>
inline void terms(const Half& h, const typename E::Params& params, __m512d scale, __m512d limit_sq,
                  __m512i& Fx, __m512i& Fy, __m512i& Fz, __mmask8& bad, ClusterTotals& t) {
  // Lanes not in compute too, at r² = 1 (no traps, IEEE defaults), and are masked below.
  const __m512d r2 = _mm512_mask_blend_pd(h.in, _mm512_set1_pd(1.0), h.r2);
  const PairTerms<simd::F64x8> pt = E::template eval<simd::F64x8>(r2, params);
  const __m512d fs = _mm512_mul_pd(pt.fpair.v, scale);
  const __mmask8 ok =
      _mm512_cmp_pd_mask(_mm512_mul_pd(_mm512_mul_pd(fs, fs), r2), limit_sq, _CMP_LT_OQ);
  bad |= h.in & ~ok;
  const __m512d s = _mm512_maskz_mov_pd(h.in & ok, fs);
  Fx = _mm512_cvttpd_epi64(_mm512_mul_pd(s, h.dx));
  Fy = _mm512_cvttpd_epi64(_mm512_mul_pd(s, h.dy));
  Fz = _mm512_cvttpd_epi64(_mm512_mul_pd(s, h.dz));
  if constexpr (Energy) {
    bad |= add_fixed_lanes(t.energy, pt.energy.v, h.in);
    bad |= add_fixed_lanes(t.virial, _mm512_mul_pd(pt.fpair.v, r2), h.in);
  }
}

template <class E, bool Energy>
ClusterTotals run(const PairClusters<E>& c, std::size_t begin, std::size_t end, std::int64_t* fx,
                  std::int64_t* fy, std::int64_t* fz) {
  const ClusterList& list = *c.list;
  const std::uint32_t* offsets = list.offsets().data();
  const std::uint32_t* j_cluster = list.j_cluster().data();
  const std::uint16_t* masks = list.mask().data();
  const Geometry g(c);
  const typename E::Params params = c.params;
  const __m512d cutoff_sq = _mm512_set1_pd(params.cutoff_sq);
  const __m512d scale = _mm512_set1_pd(fixed::kScale);
  const __m512d limit_sq = _mm512_set1_pd(c.limit_sq);
  // i-atoms (0, 1) and (2, 3), each over four lanes.
  const __m512i first_two = _mm512_set_epi64(1, 1, 1, 1, 0, 0, 0, 0);
  const __m512i last_two = _mm512_set_epi64(3, 3, 3, 3, 2, 2, 2, 2);
  ClusterTotals totals;
  __mmask8 bad = 0;
  for (std::size_t ci = begin; ci < end; ++ci) {
    const std::uint32_t e_begin = offsets[ci], e_end = offsets[ci + 1];
    if (e_begin == e_end) continue;
    const std::size_t si = ci * kClusterSize;
    const __m512d xi4 = _mm512_castpd256_pd512(_mm256_loadu_pd(c.x + si));
    const __m512d yi4 = _mm512_castpd256_pd512(_mm256_loadu_pd(c.y + si));
    const __m512d zi4 = _mm512_castpd256_pd512(_mm256_loadu_pd(c.z + si));
    const __m512d xa = _mm512_permutexvar_pd(first_two, xi4),
                  xb = _mm512_permutexvar_pd(last_two, xi4);
    const __m512d ya = _mm512_permutexvar_pd(first_two, yi4),
                  yb = _mm512_permutexvar_pd(last_two, yi4);
    const __m512d za = _mm512_permutexvar_pd(first_two, zi4),
                  zb = _mm512_permutexvar_pd(last_two, zi4);
    __m512i fia_x = _mm512_setzero_si512(), fia_y = fia_x, fia_z = fia_x;
    __m512i fib_x = fia_x, fib_y = fia_x, fib_z = fia_x;
    for (std::uint32_t e = e_begin; e < e_end; ++e) {
      const std::size_t sj = std::size_t(j_cluster[e]) * kClusterSize;
      const std::uint16_t m = masks[e];
      const __m512d xj = _mm512_broadcast_f64x4(_mm256_loadu_pd(c.x + sj));
      const __m512d yj = _mm512_broadcast_f64x4(_mm256_loadu_pd(c.y + sj));
      const __m512d zj = _mm512_broadcast_f64x4(_mm256_loadu_pd(c.z + sj));
      const Half a = half(xa, ya, za, xj, yj, zj, g, static_cast<__mmask8>(m), cutoff_sq);
      const Half b = half(xb, yb, zb, xj, yj, zj, g, static_cast<__mmask8>(m >> 8), cutoff_sq);
      if ((a.in | b.in) == 0) continue;
      totals.pairs += __builtin_popcount(a.in) + __builtin_popcount(b.in);
      __m512i ax = _mm512_setzero_si512(), ay = ax, az = ax, bx = ax, by = ax, bz = ax;
      if (a.in) terms<E, Energy>(a, params, scale, limit_sq, ax, ay, az, bad, totals);
      if (b.in) terms<E, Energy>(b, params, scale, limit_sq, bx, by, bz, bad, totals);
      fia_x = _mm512_add_epi64(fia_x, ax);
      fia_y = _mm512_add_epi64(fia_y, ay);
      fia_z = _mm512_add_epi64(fia_z, az);
      fib_x = _mm512_add_epi64(fib_x, bx);
      fib_y = _mm512_add_epi64(fib_y, by);
      fib_z = _mm512_add_epi64(fib_z, bz);
      // The j-cluster's four forces: both halves' lanes of each j-atom, subtracted once.
      auto sub4 = [&](std::int64_t* f, __m512i p, __m512i q) {
        auto* at = reinterpret_cast<__m256i*>(f + sj);
        _mm256_storeu_si256(
            at, _mm256_sub_epi64(_mm256_loadu_si256(at), half_sum(_mm512_add_epi64(p, q))));
      };
      sub4(fx, ax, bx);
      sub4(fy, ay, by);
      sub4(fz, az, bz);
    }
    auto add4 = [&](std::int64_t* f, __m512i p, __m512i q) {
      auto* at = reinterpret_cast<__m256i*>(f + si);
      _mm256_storeu_si256(at, _mm256_add_epi64(_mm256_loadu_si256(at), quarter_sums(p, q)));
    };
    add4(fx, fia_x, fib_x);
    add4(fy, fia_y, fib_y);
    add4(fz, fia_z, fib_z);
  }
  totals.overflow = bad != 0;
  return totals;
}

}  // namespace

template <class E>
ClusterTotals pair_clusters_avx512(const PairClusters<E>& c, std::size_t begin, std::size_t end,
                                   std::int64_t* fx, std::int64_t* fy, std::int64_t* fz,
                                   bool energy) {
  if constexpr (!E::kVector) {
    throw std::logic_error("pair_clusters_avx512: this pair style has no vector kernel");
  } else {
    return energy ? run<E, true>(c, begin, end, fx, fy, fz)
                  : run<E, false>(c, begin, end, fx, fy, fz);
  }
}

#else

template <class E>
ClusterTotals pair_clusters_avx512(const PairClusters<E>&, std::size_t, std::size_t, std::int64_t*,
                                   std::int64_t*, std::int64_t*, bool) {
  throw std::logic_error("pair_clusters_avx512: not built for this CPU architecture");
}

#endif

// Every style's kernel, instantiated here (the only file compiled for this instruction set).
namespace {
template <class... E>
auto instantiate(std::tuple<E...>*) {
  return std::tuple{&pair_clusters_avx512<E>...};
}
}  // namespace
auto pair_clusters_avx512_kernels() {
  return instantiate(static_cast<ComputedPairStyles*>(nullptr));
}

}  // namespace scanmd
