// AVX-512 candidate compaction (see candidate_runs.hpp): sixteen candidates per vector (the
// search test in float), the kept ones compressed in order. Compiled with -mavx512f -mavx512dq
// -mavx512vl for this file only, called only when the CPU has them (engine/pair_kernel.cpp).
// No FMA: the scalar version's r² bits.
#if defined(__AVX512VL__)
#include <immintrin.h>
#endif
#include <array>
#include <stdexcept>
#include <utility>

#include "engine/candidate_runs.hpp"

namespace scanmd {

#if defined(__AVX512VL__)

namespace {

// The scan of every run, sixteen candidates per vector (floats), for a rule keep_rule(k, lanes,
// j) (the mask of the candidates at cell-order positions k..k+15, particles j, that the pair
// rule keeps) beside the distance test. The kept ones are compressed in a register and stored
// whole (16 entries, the rest overwritten by the next store: the outputs have kCandidateSlack
// entries of slack; a compress-store to memory is microcoded on some CPUs). No branch on the
// data: a row's runs are short (a run of five cells holds about twelve candidates in a dense
// fluid, one in a WCA fluid) and of random length, and each mispredicted branch would cost more
// than the vector.
template <bool Split, class Rule>
KeptCandidates keep_runs(const CandidateRuns& c, SearchPoint qi, float r_sq, float inner_sq,
                         std::uint32_t* near_out, std::uint32_t* far_out, Rule keep_rule) {
  const __m512 xi = _mm512_set1_ps(qi.x), yi = _mm512_set1_ps(qi.y), zi = _mm512_set1_ps(qi.z);
  const __m512 rsq = _mm512_set1_ps(r_sq), inner = _mm512_set1_ps(inner_sq);
  std::uint32_t* at_near = near_out;
  std::uint32_t* at_far = far_out;
  auto sixteen = [&](std::uint32_t k, __mmask16 lanes) {
    const __m512 dx = _mm512_sub_ps(xi, _mm512_maskz_loadu_ps(lanes, c.qx + k));
    const __m512 dy = _mm512_sub_ps(yi, _mm512_maskz_loadu_ps(lanes, c.qy + k));
    const __m512 dz = _mm512_sub_ps(zi, _mm512_maskz_loadu_ps(lanes, c.qz + k));
    const __m512 d2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                                    _mm512_mul_ps(dz, dz));
    const __mmask16 near = lanes & _mm512_cmp_ps_mask(d2, rsq, _CMP_LT_OQ);
    const __m512i j = _mm512_maskz_loadu_epi32(lanes, c.order + k);
    const __mmask16 keep = near & keep_rule(k, lanes, j);
    if constexpr (Split) {
      const __mmask16 inside = _mm512_cmp_ps_mask(d2, inner, _CMP_LT_OQ);
      const __mmask16 keep_near = keep & inside, keep_far = keep & static_cast<__mmask16>(~inside);
      _mm512_storeu_si512(at_near, _mm512_maskz_compress_epi32(keep_near, j));
      at_near += __builtin_popcount(keep_near);
      _mm512_storeu_si512(at_far, _mm512_maskz_compress_epi32(keep_far, j));
      at_far += __builtin_popcount(keep_far);
    } else {
      _mm512_storeu_si512(at_near, _mm512_maskz_compress_epi32(keep, j));
      at_near += __builtin_popcount(keep);
    }
  };
  for (int r = 0; r < c.runs; ++r) {
    std::uint32_t k = c.begin[r];
    for (; k + 16 < c.end[r]; k += 16) sixteen(k, 0xFFFF);
    sixteen(k, static_cast<__mmask16>((1u << (c.end[r] - k)) - 1));  // 0 to 16 left
  }
  return {static_cast<std::size_t>(at_near - near_out), static_cast<std::size_t>(at_far - far_out)};
}

// The candidates' positions k..k+15 in the cell order.
__m512i positions(std::uint32_t k) {
  return _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(k)),
                          _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

// The rows of CellRows at once (keep_candidate_rows_avx512): each vector of candidates loaded
// once for the M rows, each row's test, rule and compaction as keep_runs' (with inner = R);
// Trim: rows leave out their skipped cells; Classes: neutral territory's rule by classes.
template <int M, bool Trim, bool Classes>
void keep_rows(const CandidateRuns& c, float r_sq, std::uint32_t n_owned, CellRows& rows) {
  __m512 xi[M], yi[M], zi[M];
  __m512i ki[M];
  __mmask16 no_first[M], no_last[M];
  std::uint32_t* at[M];
  for (int m = 0; m < M; ++m) {
    xi[m] = _mm512_set1_ps(rows.q[m].x);
    yi[m] = _mm512_set1_ps(rows.q[m].y);
    zi[m] = _mm512_set1_ps(rows.q[m].z);
    ki[m] = _mm512_set1_epi32(static_cast<int>(rows.k[m]));
    no_first[m] = rows.skip[m] & kSkipFirst ? 0xFFFF : 0;
    no_last[m] = rows.skip[m] & kSkipLast ? 0xFFFF : 0;
    at[m] = rows.out[m];
  }
  const __m512 rsq = _mm512_set1_ps(r_sq);
  const __m512i owned_last = _mm512_set1_epi32(static_cast<int>(n_owned) - 1);
  const __m512i any = _mm512_set1_epi32(static_cast<int>(rows.any));
  const __m512i after_classes = _mm512_set1_epi32(static_cast<int>(rows.after));
  const float *const qx = c.qx, *const qy = c.qy, *const qz = c.qz;
  const std::uint32_t* const order = c.order;
  __m512i first_end = _mm512_setzero_si512(), last_begin = _mm512_setzero_si512();
  auto sixteen = [&](std::uint32_t k, __mmask16 lanes) {
    const __m512 xj = _mm512_maskz_loadu_ps(lanes, qx + k);
    const __m512 yj = _mm512_maskz_loadu_ps(lanes, qy + k);
    const __m512 zj = _mm512_maskz_loadu_ps(lanes, qz + k);
    const __m512i j = _mm512_maskz_loadu_epi32(lanes, order + k);
    // Kept whatever the row's position (always), or when after the row (after).
    __mmask16 always, after;
    if constexpr (Classes) {
      const __m512i cls = _mm512_maskz_loadu_epi32(lanes, rows.cls + k);
      always = _mm512_test_epi32_mask(cls, any);
      after = _mm512_test_epi32_mask(cls, after_classes);
    } else {
      always = _mm512_cmpgt_epi32_mask(j, owned_last);
      after = 0xFFFF;
    }
    const __m512i pos = positions(k);
    __mmask16 in_first = 0, in_last = 0;
    if constexpr (Trim) {
      in_first = _mm512_cmplt_epu32_mask(pos, first_end);
      in_last = _mm512_cmpge_epu32_mask(pos, last_begin);
    }
    for (int m = 0; m < M; ++m) {
      const __m512 dx = _mm512_sub_ps(xi[m], xj);
      const __m512 dy = _mm512_sub_ps(yi[m], yj);
      const __m512 dz = _mm512_sub_ps(zi[m], zj);
      const __m512 d2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                                      _mm512_mul_ps(dz, dz));
      __mmask16 keep = lanes & _mm512_cmp_ps_mask(d2, rsq, _CMP_LT_OQ) &
                       (always | (after & _mm512_cmpgt_epi32_mask(pos, ki[m])));
      if constexpr (Trim)
        keep &= static_cast<__mmask16>(~((in_first & no_first[m]) | (in_last & no_last[m])));
      _mm512_storeu_si512(at[m], _mm512_maskz_compress_epi32(keep, j));
      at[m] += __builtin_popcount(keep);
    }
  };
  for (int r = 0; r < c.runs; ++r) {
    if constexpr (Trim) {
      first_end = _mm512_set1_epi32(static_cast<int>(rows.first_end[r]));
      last_begin = _mm512_set1_epi32(static_cast<int>(rows.last_begin[r]));
    }
    std::uint32_t k = c.begin[r];
    for (; k + 16 < c.end[r]; k += 16) sixteen(k, 0xFFFF);
    sixteen(k, static_cast<__mmask16>((1u << (c.end[r] - k)) - 1));  // 0 to 16 left
  }
  for (int m = 0; m < M; ++m) rows.kept[m] = static_cast<std::size_t>(at[m] - rows.out[m]);
}

// keep_rows<M, Trim> for M = 1 .. kCellRows, by M − 1.
template <bool Trim, bool Classes, int... M>
constexpr auto row_kernels(std::integer_sequence<int, M...>) {
  return std::array{&keep_rows<M + 1, Trim, Classes>...};
}

}  // namespace

void keep_candidate_rows_avx512(const CandidateRuns& c, float r_sq, std::uint32_t n_owned,
                                CellRows& rows) {
  bool trim = false;
  for (int m = 0; m < rows.rows; ++m) trim = trim || rows.skip[m] != 0;
  if (trim && (rows.first_end == nullptr || rows.last_begin == nullptr))
    throw std::logic_error("keep_candidate_rows_avx512: rows skip cells of runs without bounds");
  using Rows = std::make_integer_sequence<int, kCellRows>;
  static constexpr auto trimmed = row_kernels<true, false>(Rows{});
  static constexpr auto whole = row_kernels<false, false>(Rows{});
  static constexpr auto trimmed_classes = row_kernels<true, true>(Rows{});
  static constexpr auto whole_classes = row_kernels<false, true>(Rows{});
  if (rows.rows < 1 || rows.rows > kCellRows)
    throw std::logic_error("keep_candidate_rows_avx512: 1 to kCellRows rows");
  const auto& kernels =
      rows.cls != nullptr ? (trim ? trimmed_classes : whole_classes) : (trim ? trimmed : whole);
  kernels[static_cast<std::size_t>(rows.rows - 1)](c, r_sq, n_owned, rows);
}

KeptCandidates keep_candidates_avx512(const CandidateRuns& c, SearchPoint qi, float r_sq,
                                      float inner_sq, std::uint32_t k_i, std::uint32_t n_owned,
                                      std::uint32_t* near_out, std::uint32_t* far_out) {
  const __m512i ki = _mm512_set1_epi32(static_cast<int>(k_i));
  const __m512i owned_last = _mm512_set1_epi32(static_cast<int>(n_owned) - 1);
  // Indices stay below 2^31 (pair_forces.cpp's bound), so signed compares are exact.
  const auto rule = [&](std::uint32_t k, __mmask16, __m512i j) -> __mmask16 {
    return _mm512_cmpgt_epi32_mask(j, owned_last) | _mm512_cmpgt_epi32_mask(positions(k), ki);
  };
  // inner_sq >= r_sq: every kept candidate is near (no second compress).
  return inner_sq < r_sq ? keep_runs<true>(c, qi, r_sq, inner_sq, near_out, far_out, rule)
                         : keep_runs<false>(c, qi, r_sq, inner_sq, near_out, far_out, rule);
}

KeptCandidates keep_candidates_classes_avx512(const CandidateRuns& c, const RowRuleClasses& rule,
                                              SearchPoint qi, float r_sq, float inner_sq,
                                              std::uint32_t k_i, std::uint32_t* near_out,
                                              std::uint32_t* far_out) {
  const __m512i ki = _mm512_set1_epi32(static_cast<int>(k_i));
  const __m512i any = _mm512_set1_epi32(static_cast<int>(rule.any));
  const __m512i after = _mm512_set1_epi32(static_cast<int>(rule.after));
  const auto by_class = [&](std::uint32_t k, __mmask16 lanes, __m512i) -> __mmask16 {
    const __m512i cls = _mm512_maskz_loadu_epi32(lanes, rule.cls + k);
    return _mm512_test_epi32_mask(cls, any) |
           (_mm512_test_epi32_mask(cls, after) & _mm512_cmpgt_epi32_mask(positions(k), ki));
  };
  return inner_sq < r_sq ? keep_runs<true>(c, qi, r_sq, inner_sq, near_out, far_out, by_class)
                         : keep_runs<false>(c, qi, r_sq, inner_sq, near_out, far_out, by_class);
}

#else

void keep_candidate_rows_avx512(const CandidateRuns&, float, std::uint32_t, CellRows&) {
  throw std::logic_error("keep_candidate_rows_avx512: not built for this CPU architecture");
}

KeptCandidates keep_candidates_classes_avx512(const CandidateRuns&, const RowRuleClasses&,
                                              SearchPoint, float, float, std::uint32_t,
                                              std::uint32_t*, std::uint32_t*) {
  throw std::logic_error("keep_candidates_classes_avx512: not built for this CPU architecture");
}

KeptCandidates keep_candidates_avx512(const CandidateRuns&, SearchPoint, float, float,
                                      std::uint32_t, std::uint32_t, std::uint32_t*,
                                      std::uint32_t*) {
  throw std::logic_error("keep_candidates_avx512: not built for this CPU architecture");
}

#endif

}  // namespace scanmd
