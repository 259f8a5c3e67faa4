// The AVX-512 EAM rows (see eam_rows.hpp).
#if defined(__AVX512DQ__)
#include <immintrin.h>
#endif
#include <stdexcept>
#include <vector>

#include "base/fixed_point.hpp"
#include "engine/eam_rows.hpp"

namespace scanmd {

#if defined(__AVX512DQ__)

namespace {

inline __m512d minimum_image(__m512d d, __m512d len, __m512d half, __m512d neg_half) {
  const __mmask8 above = _mm512_cmp_pd_mask(d, half, _CMP_GT_OQ);
  const __mmask8 below = _mm512_cmp_pd_mask(d, neg_half, _CMP_LT_OQ);
  d = _mm512_mask_sub_pd(d, above, d, len);
  return _mm512_mask_add_pd(d, below, d, len);
}

inline std::int64_t lane_sum(__m512i v) {
  alignas(64) std::int64_t lanes[8];
  _mm512_store_si512(lanes, v);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// One row's pairs k .. k+7: the neighbour indices, the lanes in the row, displacements and r².
struct Lanes {
  __m256i j;
  __mmask8 lanes;
  __m512d dx, dy, dz, r2;
};

struct Geometry {
  __m512d lx, ly, lz, hx, hy, hz, nhx, nhy, nhz;
  explicit Geometry(const EamRows& rows)
      : lx(_mm512_set1_pd(rows.length.x)),
        ly(_mm512_set1_pd(rows.length.y)),
        lz(_mm512_set1_pd(rows.length.z)),
        hx(_mm512_set1_pd(rows.half_length.x)),
        hy(_mm512_set1_pd(rows.half_length.y)),
        hz(_mm512_set1_pd(rows.half_length.z)),
        nhx(_mm512_set1_pd(-rows.half_length.x)),
        nhy(_mm512_set1_pd(-rows.half_length.y)),
        nhz(_mm512_set1_pd(-rows.half_length.z)) {}
};

inline Lanes load_lanes(const EamRows& rows, const Geometry& g, __m512d xi, __m512d yi, __m512d zi,
                        std::uint32_t k, std::uint32_t row_end) {
  Lanes l;
  const std::uint32_t left = row_end - k;
  l.lanes = left >= 8 ? 0xFF : static_cast<__mmask8>((1u << left) - 1);
  if (left >= 8) {
    l.j = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows.neighbors + k));
  } else {
    alignas(32) std::uint32_t tail[8] = {};
    for (std::uint32_t t = 0; t < left; ++t) tail[t] = rows.neighbors[k + t];
    l.j = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail));
  }
  const __m256i j3 = _mm256_add_epi32(_mm256_add_epi32(l.j, l.j), l.j);
  const double* xs = &rows.x[0].x;
  const __m512d zero = _mm512_setzero_pd();
  const __m512d xj = _mm512_mask_i32gather_pd(zero, l.lanes, j3, xs, 8);
  const __m512d yj = _mm512_mask_i32gather_pd(zero, l.lanes, j3, xs + 1, 8);
  const __m512d zj = _mm512_mask_i32gather_pd(zero, l.lanes, j3, xs + 2, 8);
  l.dx = minimum_image(_mm512_sub_pd(xi, xj), g.lx, g.hx, g.nhx);
  l.dy = minimum_image(_mm512_sub_pd(yi, yj), g.ly, g.hy, g.nhy);
  l.dz = minimum_image(_mm512_sub_pd(zi, zj), g.lz, g.hz, g.nhz);
  l.r2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(l.dx, l.dx), _mm512_mul_pd(l.dy, l.dy)),
                       _mm512_mul_pd(l.dz, l.dz));
  return l;
}

// The row's pairs within the cutoff, packed (vcompress in registers, then full stores: a compress-store to memory is microcoded): their j, displacement and r², so that
// the passes run full vectors of useful pairs (a third of a list with a 1 Å skin lies beyond
// the cutoff). `buf` holds 5 arrays of `cap` entries.
struct Packed {
  std::vector<std::uint32_t> j;
  std::vector<double> dx, dy, dz, r2;
  std::uint32_t n = 0;
};

inline void pack_row(const EamRows& rows, const Geometry& g, std::size_t i, __m512d cutoff_sq,
                     Packed& out) {
  const std::uint32_t row_begin = rows.offsets[i], row_end = rows.offsets[i + 1];
  const std::size_t need = row_end - row_begin + 8;
  if (out.j.size() < need) {
    out.j.resize(need);
    out.dx.resize(need);
    out.dy.resize(need);
    out.dz.resize(need);
    out.r2.resize(need);
  }
  const __m512d xi = _mm512_set1_pd(rows.x[i].x), yi = _mm512_set1_pd(rows.x[i].y),
                zi = _mm512_set1_pd(rows.x[i].z);
  std::uint32_t n = 0;
  for (std::uint32_t k = row_begin; k < row_end; k += 8) {
    const Lanes l = load_lanes(rows, g, xi, yi, zi, k, row_end);
    const __mmask8 in = l.lanes & _mm512_cmp_pd_mask(l.r2, cutoff_sq, _CMP_LT_OQ);
    if (in == 0) continue;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.j.data() + n),
                        _mm256_maskz_compress_epi32(in, l.j));
    _mm512_storeu_pd(out.dx.data() + n, _mm512_maskz_compress_pd(in, l.dx));
    _mm512_storeu_pd(out.dy.data() + n, _mm512_maskz_compress_pd(in, l.dy));
    _mm512_storeu_pd(out.dz.data() + n, _mm512_maskz_compress_pd(in, l.dz));
    _mm512_storeu_pd(out.r2.data() + n, _mm512_maskz_compress_pd(in, l.r2));
    n += static_cast<std::uint32_t>(__builtin_popcount(in));
  }
  out.n = n;
}

// Packed entries k .. k+7 (the tail masked).
struct Chunk {
  __m256i j;
  __mmask8 in;
  __m512d dx, dy, dz, r2;
};

inline Chunk chunk(const Packed& b, std::uint32_t k) {
  const std::uint32_t left = b.n - k;
  Chunk c;
  c.in = left >= 8 ? 0xFF : static_cast<__mmask8>((1u << left) - 1);
  c.j = _mm256_maskz_loadu_epi32(c.in, b.j.data() + k);
  c.dx = _mm512_maskz_loadu_pd(c.in, b.dx.data() + k);
  c.dy = _mm512_maskz_loadu_pd(c.in, b.dy.data() + k);
  c.dz = _mm512_maskz_loadu_pd(c.in, b.dz.data() + k);
  // Masked-off lanes: r² = 1 (no division by zero; nothing of them is used).
  c.r2 = _mm512_mask_loadu_pd(_mm512_set1_pd(1.0), c.in, b.r2.data() + k);
  return c;
}

// eam_r_point, lane by lane: the row index (m + table offset) · 7 of each lane, and p.
struct Point {
  __m256i at;  // (base + m) · 7: the first coefficient of the lane's interval
  __m512d p;
};

inline Point r_point(const EamView& v, __m512d r, int base) {
  __m512d p = _mm512_add_pd(_mm512_mul_pd(r, _mm512_set1_pd(v.rdr)), _mm512_set1_pd(1.0));
  __m256i m = _mm512_cvttpd_epi32(p);
  m = _mm256_min_epi32(m, _mm256_set1_epi32(v.nr - 1));
  p = _mm512_sub_pd(p, _mm512_cvtepi32_pd(m));
  p = _mm512_min_pd(p, _mm512_set1_pd(1.0));
  const __m256i row = _mm256_add_epi32(m, _mm256_set1_epi32(base));
  return {_mm256_mullo_epi32(row, _mm256_set1_epi32(7)), p};
}

inline __m512d coeff(const double* table, __m256i at, int k, __mmask8 use) {
  return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), use, at, table + k, 8);
}

// ((c3 p + c4) p + c5) p + c6 and (c0 p + c1) p + c2.
inline __m512d value(const double* t, const Point& a, __mmask8 use) {
  __m512d y = _mm512_mul_pd(coeff(t, a.at, 3, use), a.p);
  y = _mm512_mul_pd(_mm512_add_pd(y, coeff(t, a.at, 4, use)), a.p);
  y = _mm512_mul_pd(_mm512_add_pd(y, coeff(t, a.at, 5, use)), a.p);
  return _mm512_add_pd(y, coeff(t, a.at, 6, use));
}
inline __m512d slope(const double* t, const Point& a, __mmask8 use) {
  __m512d y = _mm512_mul_pd(coeff(t, a.at, 0, use), a.p);
  y = _mm512_mul_pd(_mm512_add_pd(y, coeff(t, a.at, 1, use)), a.p);
  return _mm512_add_pd(y, coeff(t, a.at, 2, use));
}

}  // namespace

bool eam_density_avx512(const EamRows& rows, std::size_t begin, std::size_t end,
                        std::int64_t* rho) {
  const Geometry g(rows);
  const EamView& v = rows.v;
  const int base = v.type2rhor[0] * (v.nr + 1);
  const __m512d cutoff_sq = _mm512_set1_pd(v.cutoff_sq);
  const __m512d scale = _mm512_set1_pd(fixed::kScale);
  const __m512d range = _mm512_set1_pd(4503599627370496.0);  // 2^52
  const __m512d sign = _mm512_set1_pd(-0.0);
  const __m256i owned = _mm256_set1_epi32(static_cast<int>(rows.n_owned));
  auto* rho_ll = reinterpret_cast<long long*>(rho);
  __mmask8 bad = 0;
  thread_local Packed packed;
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint32_t row_begin = rows.offsets[i], row_end = rows.offsets[i + 1];
    if (row_begin == row_end) continue;
    __m512i sum = _mm512_setzero_si512();
    pack_row(rows, g, i, cutoff_sq, packed);
    for (std::uint32_t k = 0; k < packed.n; k += 8) {
      const Chunk l = chunk(packed, k);
      const __mmask8 in = l.in;
      const Point a = r_point(v, _mm512_sqrt_pd(l.r2), base);
      const __m512d t = _mm512_mul_pd(value(v.rhor, a, in), scale);
      bad |= in & ~_mm512_cmp_pd_mask(_mm512_andnot_pd(sign, t), range, _CMP_LT_OQ);
      const __m512i term = _mm512_maskz_mov_epi64(in, _mm512_cvtpd_epi64(t));
      sum = _mm512_add_epi64(sum, term);
      __mmask8 to_j = in;
      if (rows.owned_only) to_j &= _mm256_cmplt_epu32_mask(l.j, owned);
      const __m512i old = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), to_j, l.j, rho_ll, 8);
      _mm512_mask_i32scatter_epi64(rho_ll, to_j, l.j, _mm512_add_epi64(old, term), 8);
    }
    rho[i] += lane_sum(sum);
  }
  return bad == 0;
}

EamRowsTotals eam_forces_avx512(const EamRows& rows, std::size_t begin, std::size_t end,
                                const double* fp, Fix3* f) {
  const Geometry g(rows);
  const EamView& v = rows.v;
  const int rho_base = v.type2rhor[0] * (v.nr + 1);
  const int z_base = v.type2z2r[0] * (v.nr + 1);
  const __m512d cutoff_sq = _mm512_set1_pd(v.cutoff_sq);
  const __m512d scale = _mm512_set1_pd(fixed::kScale);
  const __m512d limit_sq = _mm512_set1_pd(rows.limit_sq);
  const __m512d sign = _mm512_set1_pd(-0.0);
  const __m512d one = _mm512_set1_pd(1.0);
  auto* fs_base = reinterpret_cast<long long*>(&f[0].x);
  EamRowsTotals totals;
  __mmask8 bad = 0;
  thread_local Packed packed;
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint32_t row_begin = rows.offsets[i], row_end = rows.offsets[i + 1];
    if (row_begin == row_end) continue;
    const __m512d fp_i = _mm512_set1_pd(fp[i]);
    __m512i fx = _mm512_setzero_si512(), fy = _mm512_setzero_si512(), fz = _mm512_setzero_si512();
    pack_row(rows, g, i, cutoff_sq, packed);
    for (std::uint32_t k = 0; k < packed.n; k += 8) {
      const Chunk l = chunk(packed, k);
      const __mmask8 in = l.in;
      totals.pairs += __builtin_popcount(in);
      const __m512d r = _mm512_sqrt_pd(l.r2);
      // The same interval in every table (one grid in r): the offsets differ by the base.
      const Point a = r_point(v, r, 0);
      const Point ar{_mm256_add_epi32(a.at, _mm256_set1_epi32(rho_base * 7)), a.p};
      const Point az{_mm256_add_epi32(a.at, _mm256_set1_epi32(z_base * 7)), a.p};
      const __m512d rhop = slope(v.rhor, ar, in);
      const __m512d z2p = slope(v.z2r, az, in);
      const __m512d z2 = value(v.z2r, az, in);
      const __m512d recip = _mm512_div_pd(one, r);
      const __m512d phi = _mm512_mul_pd(z2, recip);
      const __m512d phip = _mm512_sub_pd(_mm512_mul_pd(z2p, recip), _mm512_mul_pd(phi, recip));
      const __m512d fp_j = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), in, l.j, fp, 8);
      const __m512d psip =
          _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(fp_i, rhop), _mm512_mul_pd(fp_j, rhop)), phip);
      const __m512d fpair = _mm512_mul_pd(_mm512_xor_pd(psip, sign), recip);
      const __m512d fs = _mm512_mul_pd(fpair, scale);
      const __mmask8 ok =
          _mm512_cmp_pd_mask(_mm512_mul_pd(_mm512_mul_pd(fs, fs), l.r2), limit_sq, _CMP_LT_OQ);
      bad |= in & ~ok;
      const __mmask8 use = in & ok;
      const __m512d s = _mm512_maskz_mov_pd(use, fs);
      const __m512i Fx = _mm512_cvttpd_epi64(_mm512_mul_pd(s, l.dx));
      const __m512i Fy = _mm512_cvttpd_epi64(_mm512_mul_pd(s, l.dy));
      const __m512i Fz = _mm512_cvttpd_epi64(_mm512_mul_pd(s, l.dz));
      fx = _mm512_add_epi64(fx, Fx);
      fy = _mm512_add_epi64(fy, Fy);
      fz = _mm512_add_epi64(fz, Fz);
      const __m256i j3 = _mm256_add_epi32(_mm256_add_epi32(l.j, l.j), l.j);
      const __m512i zi64 = _mm512_setzero_si512();
      const __m512i gx = _mm512_mask_i32gather_epi64(zi64, use, j3, fs_base, 8);
      const __m512i gy = _mm512_mask_i32gather_epi64(zi64, use, j3, fs_base + 1, 8);
      const __m512i gz = _mm512_mask_i32gather_epi64(zi64, use, j3, fs_base + 2, 8);
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

#else

bool eam_density_avx512(const EamRows&, std::size_t, std::size_t, std::int64_t*) {
  throw std::logic_error("eam_density_avx512: not built for this CPU architecture");
}
EamRowsTotals eam_forces_avx512(const EamRows&, std::size_t, std::size_t, const double*, Fix3*) {
  throw std::logic_error("eam_forces_avx512: not built for this CPU architecture");
}

#endif

}  // namespace scanmd
