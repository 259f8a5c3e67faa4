// AVX-512 candidate compaction (see candidate_runs.hpp): eight candidates per vector, the kept
// ones compressed in order. Compiled with -mavx512f -mavx512dq -mavx512vl for this file
// only, called only when the CPU has them (engine/pair_kernel.cpp). No FMA: the same r² bits.
#if defined(__AVX512VL__)
#include <immintrin.h>
#endif
#include <stdexcept>

#include "engine/candidate_runs.hpp"

namespace scanmd {

#if defined(__AVX512VL__)

namespace {

// The scan of every run, eight candidates per vector, for a rule keep_rule(k, lanes, j) (the
// mask of the candidates at cell-order positions k..k+7, particles j, that the pair rule keeps)
// beside the distance test. The kept ones are compressed in a register and stored whole (8
// entries, the rest overwritten by the next store: the outputs have 8 entries of slack; a
// compress-store to memory is microcoded on some CPUs). No branch on the data: a row's runs are
// short (about one candidate per run in a WCA fluid) and of random length, and each mispredicted
// branch would cost more than the vector.
template <class Rule>
KeptCandidates keep_runs(const CandidateRuns& c, Vec3 qi, double r_sq, double inner_sq,
                         std::uint32_t* near_out, std::uint32_t* far_out, Rule keep_rule) {
  const __m512d xi = _mm512_set1_pd(qi.x), yi = _mm512_set1_pd(qi.y), zi = _mm512_set1_pd(qi.z);
  const __m512d rsq = _mm512_set1_pd(r_sq), inner = _mm512_set1_pd(inner_sq);
  std::uint32_t* at_near = near_out;
  std::uint32_t* at_far = far_out;
  auto eight = [&](std::uint32_t k, __mmask8 lanes) {
    const __m512d dx = _mm512_sub_pd(xi, _mm512_maskz_loadu_pd(lanes, c.qx + k));
    const __m512d dy = _mm512_sub_pd(yi, _mm512_maskz_loadu_pd(lanes, c.qy + k));
    const __m512d dz = _mm512_sub_pd(zi, _mm512_maskz_loadu_pd(lanes, c.qz + k));
    const __m512d d2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                                     _mm512_mul_pd(dz, dz));
    const __mmask8 near = lanes & _mm512_cmp_pd_mask(d2, rsq, _CMP_LT_OQ);
    const __m256i j = _mm256_maskz_loadu_epi32(lanes, c.order + k);
    const __mmask8 keep = near & keep_rule(k, lanes, j);
    const __mmask8 inside = _mm512_cmp_pd_mask(d2, inner, _CMP_LT_OQ);
    const __mmask8 keep_near = keep & inside, keep_far = keep & static_cast<__mmask8>(~inside);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(at_near),
                        _mm256_maskz_compress_epi32(keep_near, j));
    at_near += __builtin_popcount(keep_near);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(at_far),
                        _mm256_maskz_compress_epi32(keep_far, j));
    at_far += __builtin_popcount(keep_far);
  };
  for (int r = 0; r < c.runs; ++r) {
    std::uint32_t k = c.begin[r];
    for (; k + 8 < c.end[r]; k += 8) eight(k, 0xFF);
    eight(k, static_cast<__mmask8>((1u << (c.end[r] - k)) - 1));  // 0 to 8 left
  }
  return {static_cast<std::size_t>(at_near - near_out), static_cast<std::size_t>(at_far - far_out)};
}

// The candidates' positions k..k+7 in the cell order.
__m256i positions(std::uint32_t k) {
  return _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(k)),
                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

}  // namespace

KeptCandidates keep_candidates_avx512(const CandidateRuns& c, Vec3 qi, double r_sq, double inner_sq,
                                      std::uint32_t k_i, std::uint32_t n_owned,
                                      std::uint32_t* near_out, std::uint32_t* far_out) {
  const __m256i ki = _mm256_set1_epi32(static_cast<int>(k_i));
  const __m256i owned_last = _mm256_set1_epi32(static_cast<int>(n_owned) - 1);
  // Indices stay below 2^31 (pair_forces.cpp's bound), so signed compares are exact.
  return keep_runs(c, qi, r_sq, inner_sq, near_out, far_out,
                   [&](std::uint32_t k, __mmask8, __m256i j) -> __mmask8 {
                     return _mm256_cmpgt_epi32_mask(j, owned_last) |
                            _mm256_cmpgt_epi32_mask(positions(k), ki);
                   });
}

KeptCandidates keep_candidates_classes_avx512(const CandidateRuns& c, const RowRuleClasses& rule,
                                              Vec3 qi, double r_sq, double inner_sq,
                                              std::uint32_t k_i, std::uint32_t* near_out,
                                              std::uint32_t* far_out) {
  const __m256i ki = _mm256_set1_epi32(static_cast<int>(k_i));
  const __m256i any = _mm256_set1_epi32(static_cast<int>(rule.any));
  const __m256i after = _mm256_set1_epi32(static_cast<int>(rule.after));
  return keep_runs(
      c, qi, r_sq, inner_sq, near_out, far_out,
      [&](std::uint32_t k, __mmask8 lanes, __m256i) -> __mmask8 {
        const __m256i cls = _mm256_maskz_loadu_epi32(lanes, rule.cls + k);
        return _mm256_test_epi32_mask(cls, any) |
               (_mm256_test_epi32_mask(cls, after) & _mm256_cmpgt_epi32_mask(positions(k), ki));
      });
}

#else

KeptCandidates keep_candidates_classes_avx512(const CandidateRuns&, const RowRuleClasses&, Vec3,
                                              double, double, std::uint32_t, std::uint32_t*,
                                              std::uint32_t*) {
  throw std::logic_error("keep_candidates_classes_avx512: not built for this CPU architecture");
}

KeptCandidates keep_candidates_avx512(const CandidateRuns&, Vec3, double, double, std::uint32_t,
                                      std::uint32_t, std::uint32_t*, std::uint32_t*) {
  throw std::logic_error("keep_candidates_avx512: not built for this CPU architecture");
}

#endif

}  // namespace scanmd
