// AVX2 candidate compaction (see candidate_runs.hpp): eight candidates per vector (the search
// test in float), the kept ones packed in order by a permutation from a table (AVX2 has no
// compress) and stored whole. Compiled with -mavx2 for this file only, called only when the CPU
// has it (engine/pair_kernel.cpp). No FMA: the scalar version's r² bits.
#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <array>
#include <stdexcept>

#include "engine/candidate_runs.hpp"

namespace scanmd {

#if defined(__AVX2__)

namespace {

// For each 8-bit mask, the positions of its set bits in order, one byte each (the rest 0): the
// permutation that packs the kept lanes to the front.
constexpr std::array<std::uint64_t, 256> pack_table() {
  std::array<std::uint64_t, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    std::uint64_t v = 0;
    int at = 0;
    for (unsigned b = 0; b < 8; ++b)
      if ((m >> b) & 1u) v |= static_cast<std::uint64_t>(b) << (8 * at++);
    t[m] = v;
  }
  return t;
}
constexpr std::array<std::uint64_t, 256> kPack = pack_table();

// The lanes of `v` set in `mask`, packed to the front and stored whole (8 entries; those past
// the kept ones are overwritten by the next store); returns the pointer advanced past the kept.
inline std::uint32_t* pack_store(std::uint32_t* out, __m256i v, unsigned mask) {
  const __m256i order =
      _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kPack[mask])));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(v, order));
  return out + __builtin_popcount(mask);
}

// Lanes 0 .. n−1 of eight (n <= 8), as a load mask.
inline __m256i first_lanes(std::uint32_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The candidates' positions k..k+7 in the cell order.
inline __m256i positions(std::uint32_t k) {
  return _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(k)),
                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline unsigned bits_of(__m256i m) {
  return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(m)));
}

// The scan of every run, eight candidates per vector, for a rule keep_rule(k, load, j) (the
// bits of the candidates at cell-order positions k..k+7, particles j, that the pair rule keeps;
// `load` masks the loads to the run) beside the distance test. No branch on the data (as the
// AVX-512 scan: candidate_runs_avx512.cpp).
template <class Rule>
KeptCandidates keep_runs(const CandidateRuns& c, SearchPoint qi, float r_sq, float inner_sq,
                         std::uint32_t* near_out, std::uint32_t* far_out, Rule keep_rule) {
  const __m256 xi = _mm256_set1_ps(qi.x), yi = _mm256_set1_ps(qi.y), zi = _mm256_set1_ps(qi.z);
  const __m256 rsq = _mm256_set1_ps(r_sq), inner = _mm256_set1_ps(inner_sq);
  std::uint32_t* at_near = near_out;
  std::uint32_t* at_far = far_out;
  auto eight = [&](std::uint32_t k, __m256i load) {
    const __m256 dx = _mm256_sub_ps(xi, _mm256_maskload_ps(c.qx + k, load));
    const __m256 dy = _mm256_sub_ps(yi, _mm256_maskload_ps(c.qy + k, load));
    const __m256 dz = _mm256_sub_ps(zi, _mm256_maskload_ps(c.qz + k, load));
    const __m256 d2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                                    _mm256_mul_ps(dz, dz));
    const __m256i j = _mm256_maskload_epi32(reinterpret_cast<const int*>(c.order + k), load);
    const unsigned near =
        bits_of(load) &
        static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(d2, rsq, _CMP_LT_OQ)));
    const unsigned keep = near & keep_rule(k, load, j);
    const unsigned inside =
        static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(d2, inner, _CMP_LT_OQ)));
    at_near = pack_store(at_near, j, keep & inside);
    at_far = pack_store(at_far, j, keep & ~inside & 0xFFu);
  };
  const __m256i all = _mm256_set1_epi32(-1);
  for (int r = 0; r < c.runs; ++r) {
    std::uint32_t k = c.begin[r];
    for (; k + 8 < c.end[r]; k += 8) eight(k, all);
    eight(k, first_lanes(c.end[r] - k));  // 0 to 8 left
  }
  return {static_cast<std::size_t>(at_near - near_out), static_cast<std::size_t>(at_far - far_out)};
}

}  // namespace

KeptCandidates keep_candidates_avx2(const CandidateRuns& c, SearchPoint qi, float r_sq,
                                    float inner_sq, std::uint32_t k_i, std::uint32_t n_owned,
                                    std::uint32_t* near_out, std::uint32_t* far_out) {
  const __m256i ki = _mm256_set1_epi32(static_cast<int>(k_i));
  const __m256i owned_last = _mm256_set1_epi32(static_cast<int>(n_owned) - 1);
  // Indices stay below 2^31 (pair_forces.cpp's bound), so signed compares are exact.
  return keep_runs(c, qi, r_sq, inner_sq, near_out, far_out,
                   [&](std::uint32_t k, __m256i, __m256i j) {
                     return bits_of(_mm256_or_si256(_mm256_cmpgt_epi32(j, owned_last),
                                                    _mm256_cmpgt_epi32(positions(k), ki)));
                   });
}

KeptCandidates keep_candidates_classes_avx2(const CandidateRuns& c, const RowRuleClasses& rule,
                                            SearchPoint qi, float r_sq, float inner_sq,
                                            std::uint32_t k_i, std::uint32_t* near_out,
                                            std::uint32_t* far_out) {
  const __m256i ki = _mm256_set1_epi32(static_cast<int>(k_i));
  const __m256i any = _mm256_set1_epi32(static_cast<int>(rule.any));
  const __m256i after = _mm256_set1_epi32(static_cast<int>(rule.after));
  const __m256i zero = _mm256_setzero_si256();
  return keep_runs(
      c, qi, r_sq, inner_sq, near_out, far_out, [&](std::uint32_t k, __m256i load, __m256i) {
        const __m256i cls = _mm256_maskload_epi32(reinterpret_cast<const int*>(rule.cls + k), load);
        const unsigned in_any =
            ~bits_of(_mm256_cmpeq_epi32(_mm256_and_si256(cls, any), zero)) & 0xFFu;
        const unsigned in_after =
            ~bits_of(_mm256_cmpeq_epi32(_mm256_and_si256(cls, after), zero)) & 0xFFu;
        return in_any | (in_after & bits_of(_mm256_cmpgt_epi32(positions(k), ki)));
      });
}

#else

KeptCandidates keep_candidates_classes_avx2(const CandidateRuns&, const RowRuleClasses&,
                                            SearchPoint, float, float, std::uint32_t,
                                            std::uint32_t*, std::uint32_t*) {
  throw std::logic_error("keep_candidates_classes_avx2: not built for this CPU architecture");
}

KeptCandidates keep_candidates_avx2(const CandidateRuns&, SearchPoint, float, float, std::uint32_t,
                                    std::uint32_t, std::uint32_t*, std::uint32_t*) {
  throw std::logic_error("keep_candidates_avx2: not built for this CPU architecture");
}

#endif

}  // namespace scanmd
