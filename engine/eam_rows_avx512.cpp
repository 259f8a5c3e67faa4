// The AVX-512 EAM rows (see eam_rows.hpp).
#if defined(__AVX512DQ__)
#include <immintrin.h>
#endif
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "base/fixed_point.hpp"
#include "engine/eam_rows.hpp"
#include "engine/rows_avx512.hpp"

namespace scanmd {

#if defined(__AVX512DQ__)

namespace {

using namespace avx512;

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
  const std::uint32_t n_owned =
      rows.owned_only ? static_cast<std::uint32_t>(rows.n_owned) : UINT32_MAX;
  __mmask8 bad = 0;
  // A block of rows at a time (rows_avx512.hpp): the terms of its packed pairs in vectors, then
  // added to ρ_i and ρ_j in scalar code (one type: the same term both ways).
  thread_local Packed packed;
  thread_local std::vector<std::int64_t> T;
  for_each_block(rows, g, cutoff_sq, begin, end, packed, [&](const Block& b) {
    const std::uint32_t n = b.packed.n;
    if (T.size() < n + 8) T.resize((n + 8) * 3 / 2);
    for (std::uint32_t k = 0; k < n; k += 8) {
      const Chunk l = chunk(b.packed, k);
      const __mmask8 in = l.in;
      const Point a = r_point(v, _mm512_sqrt_pd(l.r2), base);
      const __m512d t = _mm512_mul_pd(value(v.rhor, a, in), scale);
      bad |= in & ~_mm512_cmp_pd_mask(_mm512_andnot_pd(sign, t), range, _CMP_LT_OQ);
      _mm512_storeu_si512(T.data() + k, _mm512_maskz_mov_epi64(in, _mm512_cvtpd_epi64(t)));
    }
    const std::uint32_t* js = b.packed.j.data();
    std::uint32_t k = 0;
    for (int r = 0; r < b.rows; ++r) {
      std::int64_t sum = 0;
      for (; k < b.row_end[r]; ++k) {
        const std::uint32_t j = js[k];
        sum += T[k];
        // Full shell (owned_only): no terms to ghosts (their owners compute their own).
        if (j < n_owned) rho[j] += T[k];
      }
      rho[b.row_of[r]] += sum;
    }
  });
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
  EamRowsTotals totals;
  __mmask8 bad = 0;
  // A block of rows at a time (rows_avx512.hpp): F' of each packed pair's i beside it, the force
  // terms in vectors, then added to f in scalar code (no gather/scatter of f).
  thread_local Packed packed;
  thread_local std::vector<double> fp_of_i;
  thread_local std::vector<std::int64_t> F;
  for_each_block(rows, g, cutoff_sq, begin, end, packed, [&](const Block& b) {
    const std::uint32_t n = b.packed.n;
    totals.pairs += n;
    if (fp_of_i.size() < n + 8) fp_of_i.resize((n + 8) * 3 / 2);
    if (F.size() < 3 * (std::size_t(n) + 8)) F.resize(3 * (std::size_t(n) + 8) * 3 / 2);
    std::int64_t* Fx = F.data();
    std::int64_t* Fy = Fx + n + 8;
    std::int64_t* Fz = Fy + n + 8;
    for (std::uint32_t k = 0, r = 0; r < static_cast<std::uint32_t>(b.rows); ++r) {
      const double fp_i = fp[b.row_of[r]];
      for (; k < b.row_end[r]; ++k) fp_of_i[k] = fp_i;
    }
    for (std::uint32_t k = 0; k < n; k += 8) {
      const Chunk l = chunk(b.packed, k);
      const __mmask8 in = l.in;
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
      const __m512d fp_i = _mm512_maskz_loadu_pd(in, fp_of_i.data() + k);
      const __m512d fp_j = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), in, l.j, fp, 8);
      const __m512d psip =
          _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(fp_i, rhop), _mm512_mul_pd(fp_j, rhop)), phip);
      const __m512d fpair = _mm512_mul_pd(_mm512_xor_pd(psip, sign), recip);
      const __m512d fs = _mm512_mul_pd(fpair, scale);
      const __mmask8 ok =
          _mm512_cmp_pd_mask(_mm512_mul_pd(_mm512_mul_pd(fs, fs), l.r2), limit_sq, _CMP_LT_OQ);
      bad |= in & ~ok;
      const __m512d s = _mm512_maskz_mov_pd(in & ok, fs);
      _mm512_storeu_si512(Fx + k, _mm512_cvttpd_epi64(_mm512_mul_pd(s, l.dx)));
      _mm512_storeu_si512(Fy + k, _mm512_cvttpd_epi64(_mm512_mul_pd(s, l.dy)));
      _mm512_storeu_si512(Fz + k, _mm512_cvttpd_epi64(_mm512_mul_pd(s, l.dz)));
    }
    add_terms(b, Fx, Fy, Fz, f);
  });
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
