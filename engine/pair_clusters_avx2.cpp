// The AVX2 cluster-pair kernel (see pair_clusters.hpp), for CPUs without AVX-512. One cluster
// pair is four vectors of four lanes, one per i-atom (broadcast) × the j-cluster's four atoms
// (one 256-bit load per component); a vector with no listed pair within the cutoff is skipped.
// The j-cluster's forces are summed in registers and stored once per cluster pair, the
// i-cluster's summed over its entries and stored once. AVX2 has no double → int64 conversion,
// so the truncation is done exactly in the vector: trunc(v) rounded toward zero in double,
// then + 1.5·2^52, whose bits minus those of 1.5·2^52 are the integer
// (exact for |v| < 2^51; a vector holding a larger term — |F|² ≥ 2^100 — converts lane by lane,
// as the scalar loop does). The minimum image is skipped where the two clusters' bounding boxes
// are within L/2 of each other on every axis (the same bits: it changes nothing there).
// Compiled with -mavx2 for this file only (no -mfma: the same bits as the scalar loop) and
// called only when the CPU has AVX2 (engine/pair_kernel.cpp).
#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <cstdint>
#include <stdexcept>
#include <tuple>

#include "base/box_avx2.hpp"
#include "engine/pair_clusters.hpp"
#include "engine/simd.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd {

#if defined(__AVX2__)

namespace {

using avx2::minimum_image;

// The four-lane mask of each 4-bit pattern (lane l set where bit l is).
struct LaneMasks {
  alignas(32) std::int64_t lanes[16][4];
  constexpr LaneMasks() : lanes{} {
    for (int m = 0; m < 16; ++m)
      for (int l = 0; l < 4; ++l) lanes[m][l] = ((m >> l) & 1) ? -1 : 0;
  }
};
constexpr LaneMasks kLaneMasks;

inline __m256d lane_mask(unsigned bits) {
  return _mm256_load_pd(reinterpret_cast<const double*>(kLaneMasks.lanes[bits]));
}

// trunc(v) as int64 for |v| < 2^51, exactly: v rounded toward zero is an integer t, and
// t + 1.5·2^52 lies in [2^52, 2^53), where doubles are the integers: its bits are those of
// 1.5·2^52 plus t.
inline __m256i truncate_small(__m256d v) {
  const __m256d magic = _mm256_set1_pd(6755399441055744.0);  // 1.5·2^52
  const __m256d t = _mm256_round_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(t, magic)), _mm256_castpd_si256(magic));
}

// The same for any lane the scalar loop can convert (|v| < 2^63), lane by lane.
inline __m256i truncate_lanes(__m256d v) {
  alignas(32) double in[4];
  alignas(32) std::int64_t out[4];
  _mm256_store_pd(in, v);
  for (int l = 0; l < 4; ++l) out[l] = static_cast<std::int64_t>(in[l]);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(out));
}

// {sum of a, sum of b, sum of c, sum of d} (each over its four lanes).
inline __m256i lane_sums(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab = _mm256_add_epi64(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
  const __m256i cd = _mm256_add_epi64(_mm256_unpacklo_epi64(c, d), _mm256_unpackhi_epi64(c, d));
  return _mm256_add_epi64(_mm256_permute2x128_si256(ab, cd, 0x20),
                          _mm256_permute2x128_si256(ab, cd, 0x31));
}

struct Box4 {
  __m256d lx, ly, lz, hx, hy, hz, nhx, nhy, nhz, half;  // half: (hx, hy, hz, 1)
};

template <class E, bool Energy>
ClusterTotals run(const PairClusters<E>& c, std::size_t begin, std::size_t end, std::int64_t* fx,
                  std::int64_t* fy, std::int64_t* fz) {
  const ClusterList& list = *c.list;
  const std::uint32_t* offsets = list.offsets().data();
  const std::uint32_t* j_cluster = list.j_cluster().data();
  const std::uint16_t* masks = list.mask().data();
  const Box4 g{_mm256_set1_pd(c.length.x),
               _mm256_set1_pd(c.length.y),
               _mm256_set1_pd(c.length.z),
               _mm256_set1_pd(c.half_length.x),
               _mm256_set1_pd(c.half_length.y),
               _mm256_set1_pd(c.half_length.z),
               _mm256_set1_pd(-c.half_length.x),
               _mm256_set1_pd(-c.half_length.y),
               _mm256_set1_pd(-c.half_length.z),
               _mm256_setr_pd(c.half_length.x, c.half_length.y, c.half_length.z, 1.0)};
  const typename E::Params params = c.params;
  const __m256d cutoff_sq = _mm256_set1_pd(params.cutoff_sq);
  const __m256d scale = _mm256_set1_pd(fixed::kScale);
  const __m256d limit_sq = _mm256_set1_pd(c.limit_sq);
  const __m256d small_sq = _mm256_set1_pd(1267650600228229401496703205376.0);  // 2^100
  const __m256d one = _mm256_set1_pd(1.0);
  ClusterTotals totals;
  bool bad = false;
  for (std::size_t ci = begin; ci < end; ++ci) {
    const std::uint32_t e_begin = offsets[ci], e_end = offsets[ci + 1];
    if (e_begin == e_end) continue;
    const std::size_t si = ci * kClusterSize;
    const __m256d i_lo = _mm256_loadu_pd(c.bounds + 8 * ci);
    const __m256d i_hi = _mm256_loadu_pd(c.bounds + 8 * ci + 4);
    __m256i fi[kClusterSize][3];
    for (auto& a : fi) a[0] = a[1] = a[2] = _mm256_setzero_si256();
    for (std::uint32_t e = e_begin; e < e_end; ++e) {
      const std::size_t cj = j_cluster[e], sj = cj * kClusterSize;
      const unsigned m = masks[e];
      const __m256d xj = _mm256_loadu_pd(c.x + sj);
      const __m256d yj = _mm256_loadu_pd(c.y + sj);
      const __m256d zj = _mm256_loadu_pd(c.z + sj);
      // Some pair of the two clusters may be more than L/2 apart on an axis.
      const __m256d span =
          _mm256_max_pd(_mm256_sub_pd(i_hi, _mm256_loadu_pd(c.bounds + 8 * cj)),
                        _mm256_sub_pd(_mm256_loadu_pd(c.bounds + 8 * cj + 4), i_lo));
      const bool far = _mm256_movemask_pd(_mm256_cmp_pd(span, g.half, _CMP_GT_OQ)) != 0;
      __m256i jx = _mm256_setzero_si256(), jy = jx, jz = jx;
      for (std::uint32_t a = 0; a < kClusterSize; ++a) {
        const unsigned listed = (m >> (a * kClusterSize)) & 0xFu;
        if (listed == 0) continue;
        __m256d dx = _mm256_sub_pd(_mm256_broadcast_sd(c.x + si + a), xj);
        __m256d dy = _mm256_sub_pd(_mm256_broadcast_sd(c.y + si + a), yj);
        __m256d dz = _mm256_sub_pd(_mm256_broadcast_sd(c.z + si + a), zj);
        if (far) {
          dx = minimum_image(dx, g.lx, g.hx, g.nhx);
          dy = minimum_image(dy, g.ly, g.hy, g.nhy);
          dz = minimum_image(dz, g.lz, g.hz, g.nhz);
        }
        const __m256d r2 = _mm256_add_pd(
            _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
        const unsigned in =
            listed &
            static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(r2, cutoff_sq, _CMP_LT_OQ)));
        if (in == 0) continue;
        totals.pairs += __builtin_popcount(in);
        const __m256d in_lanes = lane_mask(in);
        // Lanes not in compute at r² = 1 (no traps, IEEE defaults) and are masked below.
        const __m256d r2_in = _mm256_blendv_pd(one, r2, in_lanes);
        const PairTerms<simd::F64x4> pt = E::template eval<simd::F64x4>(r2_in, params);
        const __m256d fs = _mm256_mul_pd(pt.fpair.v, scale);
        const __m256d f2 = _mm256_mul_pd(_mm256_mul_pd(fs, fs), r2_in);
        const __m256d ok = _mm256_and_pd(in_lanes, _mm256_cmp_pd(f2, limit_sq, _CMP_LT_OQ));
        bad |= static_cast<unsigned>(_mm256_movemask_pd(ok)) != in;
        const __m256d s = _mm256_and_pd(fs, ok);
        const __m256d vx = _mm256_mul_pd(s, dx), vy = _mm256_mul_pd(s, dy),
                      vz = _mm256_mul_pd(s, dz);
        __m256i Fx, Fy, Fz;
        if (_mm256_movemask_pd(_mm256_and_pd(ok, _mm256_cmp_pd(f2, small_sq, _CMP_GE_OQ))) == 0) {
          Fx = truncate_small(vx);
          Fy = truncate_small(vy);
          Fz = truncate_small(vz);
        } else {
          Fx = truncate_lanes(vx);
          Fy = truncate_lanes(vy);
          Fz = truncate_lanes(vz);
        }
        fi[a][0] = _mm256_add_epi64(fi[a][0], Fx);
        fi[a][1] = _mm256_add_epi64(fi[a][1], Fy);
        fi[a][2] = _mm256_add_epi64(fi[a][2], Fz);
        jx = _mm256_add_epi64(jx, Fx);
        jy = _mm256_add_epi64(jy, Fy);
        jz = _mm256_add_epi64(jz, Fz);
        if constexpr (Energy) {
          // fixed::to_fixed lane by lane, of the same IEEE values as the scalar loop's.
          alignas(32) double u[4], w[4];
          _mm256_store_pd(u, pt.energy.v);
          _mm256_store_pd(w, _mm256_mul_pd(pt.fpair.v, r2_in));
          for (int l = 0; l < 4; ++l) {
            if (!((in >> l) & 1)) continue;
            totals.energy += fixed::to_fixed(u[l], bad);
            totals.virial += fixed::to_fixed(w[l], bad);
          }
        }
      }
      // The j-cluster's four forces, subtracted once.
      auto sub4 = [&](std::int64_t* f, __m256i v) {
        auto* at = reinterpret_cast<__m256i*>(f + sj);
        _mm256_storeu_si256(at, _mm256_sub_epi64(_mm256_loadu_si256(at), v));
      };
      sub4(fx, jx);
      sub4(fy, jy);
      sub4(fz, jz);
    }
    auto add4 = [&](std::int64_t* f, int k) {
      auto* at = reinterpret_cast<__m256i*>(f + si);
      _mm256_storeu_si256(at, _mm256_add_epi64(_mm256_loadu_si256(at),
                                               lane_sums(fi[0][k], fi[1][k], fi[2][k], fi[3][k])));
    };
    add4(fx, 0);
    add4(fy, 1);
    add4(fz, 2);
  }
  totals.overflow = bad;
  return totals;
}

}  // namespace

template <class E>
ClusterTotals pair_clusters_avx2(const PairClusters<E>& c, std::size_t begin, std::size_t end,
                                 std::int64_t* fx, std::int64_t* fy, std::int64_t* fz,
                                 bool energy) {
  if constexpr (!E::kVector) {
    throw std::logic_error("pair_clusters_avx2: this pair style has no vector kernel");
  } else {
    return energy ? run<E, true>(c, begin, end, fx, fy, fz)
                  : run<E, false>(c, begin, end, fx, fy, fz);
  }
}

#else

template <class E>
ClusterTotals pair_clusters_avx2(const PairClusters<E>&, std::size_t, std::size_t, std::int64_t*,
                                 std::int64_t*, std::int64_t*, bool) {
  throw std::logic_error("pair_clusters_avx2: not built for this CPU architecture");
}

#endif

// Every style's kernel, instantiated here (the only file compiled for this instruction set).
namespace {
template <class... E>
auto instantiate(std::tuple<E...>*) {
  return std::tuple{&pair_clusters_avx2<E>...};
}
}  // namespace
auto pair_clusters_avx2_kernels() {
  return instantiate(static_cast<ComputedPairStyles*>(nullptr));
}

}  // namespace scanmd
