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

// Coefficients k ∈ [first, last) of each lane's table row (`at`: the row's first coefficient), in
// c[k] (the others left unset): by gathers (Intel's cores), or, `transposed`, each lane's row of
// seven doubles read by one masked load and the eight rows transposed in registers (AMD's cores:
// PositionLoads, engine/pair_kernel.hpp, as for the positions). Lanes outside `use`: 0.
struct Coeffs {
  __m512d c[7];
};

inline Coeffs coeffs(const double* table, __m256i at, __mmask8 use, int first, int last,
                     bool transposed) {
  Coeffs k;
  if (!transposed) {
    for (int c = first; c < last; ++c)
      k.c[c] = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), use, at, table + c, 8);
    return k;
  }
  const __m128i lo = _mm256_castsi256_si128(at), hi = _mm256_extracti128_si256(at, 1);
  const int idx[8] = {_mm_cvtsi128_si32(lo),    _mm_extract_epi32(lo, 1), _mm_extract_epi32(lo, 2),
                      _mm_extract_epi32(lo, 3), _mm_cvtsi128_si32(hi),    _mm_extract_epi32(hi, 1),
                      _mm_extract_epi32(hi, 2), _mm_extract_epi32(hi, 3)};
  __m512d r[8];
  for (int l = 0; l < 8; ++l)
    r[l] = _mm512_maskz_loadu_pd(((use >> l) & 1) ? 0x7F : 0, table + idx[l]);
  // [r0[0] r1[0] r0[2] r1[2] ...], then 128-bit lanes, then 256-bit halves: column c in k.c[c].
  __m512d t[8], u[8];
  for (int l = 0; l < 8; l += 2) {
    t[l] = _mm512_unpacklo_pd(r[l], r[l + 1]);
    t[l + 1] = _mm512_unpackhi_pd(r[l], r[l + 1]);
  }
  for (int h = 0; h < 8; h += 4) {
    u[h] = _mm512_shuffle_f64x2(t[h], t[h + 2], 0x88);          // columns 0, 4 of rows h .. h+3
    u[h + 1] = _mm512_shuffle_f64x2(t[h], t[h + 2], 0xDD);      // 2, 6
    u[h + 2] = _mm512_shuffle_f64x2(t[h + 1], t[h + 3], 0x88);  // 1, 5
    u[h + 3] = _mm512_shuffle_f64x2(t[h + 1], t[h + 3], 0xDD);  // 3, 7
  }
  k.c[0] = _mm512_shuffle_f64x2(u[0], u[4], 0x88);
  k.c[4] = _mm512_shuffle_f64x2(u[0], u[4], 0xDD);
  k.c[2] = _mm512_shuffle_f64x2(u[1], u[5], 0x88);
  k.c[6] = _mm512_shuffle_f64x2(u[1], u[5], 0xDD);
  k.c[1] = _mm512_shuffle_f64x2(u[2], u[6], 0x88);
  k.c[5] = _mm512_shuffle_f64x2(u[2], u[6], 0xDD);
  k.c[3] = _mm512_shuffle_f64x2(u[3], u[7], 0x88);
  return k;
}

// ((c3 p + c4) p + c5) p + c6 and (c0 p + c1) p + c2.
inline __m512d value(const Coeffs& k, __m512d p) {
  __m512d y = _mm512_mul_pd(k.c[3], p);
  y = _mm512_mul_pd(_mm512_add_pd(y, k.c[4]), p);
  y = _mm512_mul_pd(_mm512_add_pd(y, k.c[5]), p);
  return _mm512_add_pd(y, k.c[6]);
}
inline __m512d slope(const Coeffs& k, __m512d p) {
  __m512d y = _mm512_mul_pd(k.c[0], p);
  y = _mm512_mul_pd(_mm512_add_pd(y, k.c[1]), p);
  return _mm512_add_pd(y, k.c[2]);
}

// The lanes' table rows for the pair (ti, tj) of each lane: at = (fn · (nr + 1)) · 7 + m · 7 with
// fn = map[first · T + second] (type2rhor or type2z2r), from m · 7 of r_point(v, r, 0). One type:
// the one function's offset.
template <bool Single>
inline __m256i table_at(const EamView& v, const std::int32_t* map, __m256i first, __m256i second,
                        __m256i m7, __mmask8 in) {
  const __m256i stride = _mm256_set1_epi32((v.nr + 1) * 7);
  if constexpr (Single) {
    return _mm256_add_epi32(m7, _mm256_mullo_epi32(_mm256_set1_epi32(map[0]), stride));
  } else {
    const __m256i idx =
        _mm256_add_epi32(_mm256_mullo_epi32(first, _mm256_set1_epi32(v.types)), second);
    const __m256i fn = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), in, idx, map, 4);
    return _mm256_add_epi32(m7, _mm256_mullo_epi32(fn, stride));
  }
}

// The type of each packed pair's i (copied per row) and j (gathered): alloys only.
struct PairTypes {
  __m256i ti, tj;
};

template <bool Single>
inline PairTypes pair_types(const EamRows& rows, const Chunk& l, const std::uint32_t* ti_of,
                            std::uint32_t k) {
  if constexpr (Single) {
    return {_mm256_setzero_si256(), _mm256_setzero_si256()};
  } else {
    return {_mm256_maskz_loadu_epi32(l.in, ti_of + k),
            _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), l.in, l.j,
                                         reinterpret_cast<const int*>(rows.type), 4)};
  }
}

// Each packed pair's per-row value (F' or the type of i) beside it.
template <class T, class Of>
inline void per_row(const Block& b, std::vector<T>& out, Of&& of) {
  if (out.size() < b.packed.n + 8) out.resize((b.packed.n + 8) * 3 / 2);
  for (std::uint32_t k = 0, r = 0; r < static_cast<std::uint32_t>(b.rows); ++r) {
    const T value = of(b.row_of[r]);
    for (; k < b.row_end[r]; ++k) out[k] = value;
  }
}

template <bool Single>
bool density_rows(const EamRows& rows, std::size_t begin, std::size_t end, std::int64_t* rho) {
  const Geometry g(rows);
  const EamView& v = rows.v;
  const __m512d cutoff_sq = _mm512_set1_pd(v.cutoff_sq);
  const __m512d scale = _mm512_set1_pd(fixed::kScale);
  const __m512d range = _mm512_set1_pd(4503599627370496.0);  // 2^52
  const bool transposed = !rows.gather;
  const __m512d sign = _mm512_set1_pd(-0.0);
  const std::uint32_t n_owned =
      rows.owned_only ? static_cast<std::uint32_t>(rows.n_owned) : UINT32_MAX;
  __mmask8 bad = 0;
  // A block of rows at a time (rows_avx512.hpp): the terms of its packed pairs in vectors, then
  // added to ρ_i and ρ_j in scalar code (one type: the same term both ways).
  thread_local Packed packed;
  thread_local std::vector<std::int64_t> T;
  thread_local std::vector<std::uint32_t> ti_of;
  for_each_block(rows, g, cutoff_sq, begin, end, packed, [&](const Block& b) {
    const std::uint32_t n = b.packed.n;
    if (T.size() < 2 * (std::size_t(n) + 8)) T.resize(2 * (std::size_t(n) + 8) * 3 / 2);
    std::int64_t* to_i = T.data();
    std::int64_t* to_j = Single ? to_i : to_i + n + 8;
    if (!Single) per_row(b, ti_of, [&](std::uint32_t i) { return rows.type[i]; });
    for (std::uint32_t k = 0; k < n; k += 8) {
      const Chunk l = chunk(b.packed, k);
      const __mmask8 in = l.in;
      const Point a = r_point(v, _mm512_sqrt_pd(l.r2), 0);
      const PairTypes t = pair_types<Single>(rows, l, ti_of.data(), k);
      // To i: the density j's type gives at i's (eam_density(v, ti, tj): type2rhor[tj · T + ti]).
      const __m256i ai = table_at<Single>(v, v.type2rhor, t.tj, t.ti, a.at, in);
      const __m512d ti_term =
          _mm512_mul_pd(value(coeffs(v.rhor, ai, in, 3, 7, transposed), a.p), scale);
      bad |= in & ~_mm512_cmp_pd_mask(_mm512_andnot_pd(sign, ti_term), range, _CMP_LT_OQ);
      _mm512_storeu_si512(to_i + k, _mm512_maskz_mov_epi64(in, _mm512_cvtpd_epi64(ti_term)));
      if constexpr (!Single) {
        const __m256i aj = table_at<Single>(v, v.type2rhor, t.ti, t.tj, a.at, in);
        const __m512d tj_term =
            _mm512_mul_pd(value(coeffs(v.rhor, aj, in, 3, 7, transposed), a.p), scale);
        bad |= in & ~_mm512_cmp_pd_mask(_mm512_andnot_pd(sign, tj_term), range, _CMP_LT_OQ);
        _mm512_storeu_si512(to_j + k, _mm512_maskz_mov_epi64(in, _mm512_cvtpd_epi64(tj_term)));
      }
    }
    const std::uint32_t* js = b.packed.j.data();
    std::uint32_t k = 0;
    for (int r = 0; r < b.rows; ++r) {
      std::int64_t sum = 0;
      for (; k < b.row_end[r]; ++k) {
        const std::uint32_t j = js[k];
        sum += to_i[k];
        // Full shell (owned_only): no terms to ghosts (their owners compute their own).
        if (j < n_owned) rho[j] += to_j[k];
      }
      rho[b.row_of[r]] += sum;
    }
  });
  return bad == 0;
}

template <bool Single>
EamRowsTotals force_rows(const EamRows& rows, std::size_t begin, std::size_t end, const double* fp,
                         Fix3* f) {
  const Geometry g(rows);
  const EamView& v = rows.v;
  const __m512d cutoff_sq = _mm512_set1_pd(v.cutoff_sq);
  const __m512d scale = _mm512_set1_pd(fixed::kScale);
  const __m512d limit_sq = _mm512_set1_pd(rows.limit_sq);
  const __m512d sign = _mm512_set1_pd(-0.0);
  const __m512d one = _mm512_set1_pd(1.0);
  const bool transposed = !rows.gather;
  EamRowsTotals totals;
  __mmask8 bad = 0;
  // A block of rows at a time (rows_avx512.hpp): F' (and the type) of each packed pair's i
  // beside it, the force terms in vectors, then added to f in scalar code (no gather/scatter
  // of f).
  thread_local Packed packed;
  thread_local std::vector<double> fp_of_i;
  thread_local std::vector<std::uint32_t> ti_of;
  thread_local std::vector<std::int64_t> F;
  for_each_block(rows, g, cutoff_sq, begin, end, packed, [&](const Block& b) {
    const std::uint32_t n = b.packed.n;
    totals.pairs += n;
    const auto [Fx, Fy, Fz] = term_planes(F, n);
    per_row(b, fp_of_i, [&](std::uint32_t i) { return fp[i]; });
    if (!Single) per_row(b, ti_of, [&](std::uint32_t i) { return rows.type[i]; });
    for (std::uint32_t k = 0; k < n; k += 8) {
      const Chunk l = chunk(b.packed, k);
      const __mmask8 in = l.in;
      const __m512d r = _mm512_sqrt_pd(l.r2);
      // The same interval in every table (one grid in r): the offsets differ by the function.
      const Point a = r_point(v, r, 0);
      const PairTypes t = pair_types<Single>(rows, l, ti_of.data(), k);
      __m512d rhoip, rhojp;  // eam_pair: ρ'_i (type2rhor[ti · T + tj]), ρ'_j ([tj · T + ti])
      rhoip = slope(coeffs(v.rhor, table_at<Single>(v, v.type2rhor, t.ti, t.tj, a.at, in), in, 0, 3,
                           transposed),
                    a.p);
      if constexpr (Single)
        rhojp = rhoip;
      else
        rhojp = slope(coeffs(v.rhor, table_at<Single>(v, v.type2rhor, t.tj, t.ti, a.at, in), in, 0,
                             3, transposed),
                      a.p);
      const Coeffs z2r = coeffs(v.z2r, table_at<Single>(v, v.type2z2r, t.ti, t.tj, a.at, in), in, 0,
                                7, transposed);
      const __m512d z2p = slope(z2r, a.p);
      const __m512d z2 = value(z2r, a.p);
      const __m512d recip = _mm512_div_pd(one, r);
      const __m512d phi = _mm512_mul_pd(z2, recip);
      const __m512d phip = _mm512_sub_pd(_mm512_mul_pd(z2p, recip), _mm512_mul_pd(phi, recip));
      const __m512d fp_i = _mm512_maskz_loadu_pd(in, fp_of_i.data() + k);
      const __m512d fp_j = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), in, l.j, fp, 8);
      // fp_i ρ'_j + fp_j ρ'_i + φ' (eam_pair and eam_pair_single alike).
      const __m512d psip = _mm512_add_pd(
          _mm512_add_pd(_mm512_mul_pd(fp_i, rhojp), _mm512_mul_pd(fp_j, rhoip)), phip);
      const __m512d fpair = _mm512_mul_pd(_mm512_xor_pd(psip, sign), recip);
      store_force_terms(fpair, scale, limit_sq, in, l.r2, l.dx, l.dy, l.dz, Fx + k, Fy + k, Fz + k,
                        bad);
    }
    add_terms(b, Fx, Fy, Fz, f);
  });
  totals.overflow = bad != 0;
  return totals;
}

}  // namespace

bool eam_density_avx512(const EamRows& rows, std::size_t begin, std::size_t end,
                        std::int64_t* rho) {
  return rows.v.types == 1 ? density_rows<true>(rows, begin, end, rho)
                           : density_rows<false>(rows, begin, end, rho);
}

EamRowsTotals eam_forces_avx512(const EamRows& rows, std::size_t begin, std::size_t end,
                                const double* fp, Fix3* f) {
  return rows.v.types == 1 ? force_rows<true>(rows, begin, end, fp, f)
                           : force_rows<false>(rows, begin, end, fp, f);
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
