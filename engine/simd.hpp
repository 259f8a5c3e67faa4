// Vectors of doubles for the pair evaluators (physics/pair/*.hpp): an evaluator's eval<R> is
// written once for R = double and instantiated for these in the vector kernels
// (engine/pair_rows_avx*.cpp). Each operator is one IEEE instruction per lane — add, subtract,
// multiply, divide, square root, all correctly rounded, never fused (no FMA intrinsics, and
// -ffp-contract=off) — so every lane gets the scalar bits. A double converts implicitly
// (broadcast), so `R(p.lj1) * r6inv` reads as in the scalar code.
//
// Only for files compiled with the instruction set (-mavx512f / -mavx2): each type exists when
// its macro is defined.
#pragma once

#include <immintrin.h>

#include "physics/pair/det_math.hpp"
#include "physics/pair/mixed.hpp"

namespace scanmd::simd {

#if defined(__AVX512F__)
struct F64x8 {
  __m512d v;
  F64x8() = default;
  F64x8(__m512d x) : v(x) {}                 // NOLINT: implicit by design
  F64x8(double s) : v(_mm512_set1_pd(s)) {}  // NOLINT: broadcast
};
inline F64x8 operator+(F64x8 a, F64x8 b) {
  return _mm512_add_pd(a.v, b.v);
}
inline F64x8 operator-(F64x8 a, F64x8 b) {
  return _mm512_sub_pd(a.v, b.v);
}
inline F64x8 operator*(F64x8 a, F64x8 b) {
  return _mm512_mul_pd(a.v, b.v);
}
inline F64x8 operator/(F64x8 a, F64x8 b) {
  return _mm512_div_pd(a.v, b.v);
}
// The sign bit flipped, as the scalar −x (0 − x would turn −0 into +0).
inline F64x8 operator-(F64x8 a) {
  return _mm512_xor_pd(a.v, _mm512_set1_pd(-0.0));
}
// The exact operations of physics/pair/det_math.hpp.
// (The masked forms with every lane set: GCC 12 warns about the unmasked ones'
// _mm512_undefined_pd() source. The same instructions and results.)
inline F64x8 sqrt_of(F64x8 a) {
  return _mm512_mask_sqrt_pd(a.v, 0xFF, a.v);
}
inline F64x8 floor_of(F64x8 a) {
  return _mm512_mask_roundscale_pd(a.v, 0xFF, a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
// a·2^k for integral k (exact for normal results).
inline F64x8 scale_of(F64x8 a, F64x8 k) {
  return _mm512_mask_scalef_pd(a.v, 0xFF, a.v, k.v);
}
// b < a ? b : a and b > a ? b : a, lane by lane: a NaN in a goes through, as det::min_of/max_of.
inline F64x8 min_of(F64x8 a, F64x8 b) {
  return _mm512_mask_min_pd(a.v, 0xFF, b.v, a.v);
}
inline F64x8 max_of(F64x8 a, F64x8 b) {
  return _mm512_mask_max_pd(a.v, 0xFF, b.v, a.v);
}
inline F64x8 select_gt(F64x8 a, F64x8 b, F64x8 x, F64x8 y) {
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a.v, b.v, _CMP_GT_OQ), y.v, x.v);
}
// x = m·2^e, m in [1, 2), x normal and positive (exact: the exponent and the significand).
inline void split_of(F64x8 x, F64x8& e, F64x8& m) {
  e = _mm512_mask_getexp_pd(x.v, 0xFF, x.v);
  m = _mm512_mask_getmant_pd(x.v, 0xFF, x.v, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
}
// Table lookups (det::index_of, det::gather): eight 32-bit indices, x truncated as
// static_cast<int> does (x in [0, 2^31)), and the eight table entries they name.
struct I32x8 {
  __m256i v;
};
inline I32x8 index_of(F64x8 x) {
  return {_mm512_maskz_cvttpd_epi32(0xFF, x.v)};
}
// (The masked forms with every lane set, from zero: GCC 12 warns about the unmasked ones'
// undefined source. The same instructions and results.)
inline F64x8 gather(const double* table, I32x8 i) {
  return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xFF, i.v, table, 8);
}
#endif

#if defined(__AVX2__)
struct F64x4 {
  __m256d v;
  F64x4() = default;
  F64x4(__m256d x) : v(x) {}                 // NOLINT: implicit by design
  F64x4(double s) : v(_mm256_set1_pd(s)) {}  // NOLINT: broadcast
};
inline F64x4 operator+(F64x4 a, F64x4 b) {
  return _mm256_add_pd(a.v, b.v);
}
inline F64x4 operator-(F64x4 a, F64x4 b) {
  return _mm256_sub_pd(a.v, b.v);
}
inline F64x4 operator*(F64x4 a, F64x4 b) {
  return _mm256_mul_pd(a.v, b.v);
}
inline F64x4 operator/(F64x4 a, F64x4 b) {
  return _mm256_div_pd(a.v, b.v);
}
inline F64x4 operator-(F64x4 a) {
  return _mm256_xor_pd(a.v, _mm256_set1_pd(-0.0));
}
inline F64x4 sqrt_of(F64x4 a) {
  return _mm256_sqrt_pd(a.v);
}
inline F64x4 floor_of(F64x4 a) {
  return _mm256_round_pd(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
// a·2^k for integral k in [−1022, 1023] (det::exp keeps k there): 2^k from its exponent bits.
inline F64x4 scale_of(F64x4 a, F64x4 k) {
  const __m256i e = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k.v));
  const __m256i bits = _mm256_slli_epi64(_mm256_add_epi64(e, _mm256_set1_epi64x(1023)), 52);
  return _mm256_mul_pd(a.v, _mm256_castsi256_pd(bits));
}
inline F64x4 min_of(F64x4 a, F64x4 b) {
  return _mm256_min_pd(b.v, a.v);
}
inline F64x4 max_of(F64x4 a, F64x4 b) {
  return _mm256_max_pd(b.v, a.v);
}
inline F64x4 select_gt(F64x4 a, F64x4 b, F64x4 x, F64x4 y) {
  return _mm256_blendv_pd(y.v, x.v, _mm256_cmp_pd(a.v, b.v, _CMP_GT_OQ));
}
// x = m·2^e, m in [1, 2), x normal and positive: the exponent bits as an integer made exact
// double through 2^52 (|e| < 2^11), the significand with the exponent of 1.
inline void split_of(F64x4 x, F64x4& e, F64x4& m) {
  const __m256i bits = _mm256_castpd_si256(x.v);
  const __m256i two52 = _mm256_set1_epi64x(0x4330000000000000LL);
  const __m256d biased =
      _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(bits, 52), two52)),
                    _mm256_castsi256_pd(two52));
  e = _mm256_sub_pd(biased, _mm256_set1_pd(1023.0));
  m = _mm256_castsi256_pd(
      _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000FFFFFFFFFFFFFLL)),
                      _mm256_set1_epi64x(0x3FF0000000000000LL)));
}
// Table lookups: four 32-bit indices (truncated) and the four entries they name.
struct I32x4 {
  __m128i v;
};
inline I32x4 index_of(F64x4 x) {
  return {_mm256_cvttpd_epi32(x.v)};
}
inline F64x4 gather(const double* table, I32x4 i) {
  const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), table, i.v, all, 8);
}
#endif

// Vectors of floats for run.precision = "mixed" (physics/pair/mixed.hpp): the same one IEEE
// instruction per lane, in single precision, and the exact operations det::exp needs in single
// precision (scale_of by 2^k built from its exponent bits: k in [−126, 127] there, so the result
// is the one correctly rounded product x·2^k, as ldexpf gives).
#if defined(__AVX2__)
struct F32x4 {
  __m128 v;
  F32x4() = default;
  F32x4(__m128 x) : v(x) {}                                   // NOLINT: implicit by design
  F32x4(double s) : v(_mm_set1_ps(static_cast<float>(s))) {}  // NOLINT: broadcast
};
inline F32x4 operator+(F32x4 a, F32x4 b) {
  return _mm_add_ps(a.v, b.v);
}
inline F32x4 operator-(F32x4 a, F32x4 b) {
  return _mm_sub_ps(a.v, b.v);
}
inline F32x4 operator*(F32x4 a, F32x4 b) {
  return _mm_mul_ps(a.v, b.v);
}
inline F32x4 operator/(F32x4 a, F32x4 b) {
  return _mm_div_ps(a.v, b.v);
}
inline F32x4 operator-(F32x4 a) {
  return _mm_xor_ps(a.v, _mm_set1_ps(-0.0f));
}
inline F32x4 sqrt_of(F32x4 a) {
  return _mm_sqrt_ps(a.v);
}
inline F32x4 floor_of(F32x4 a) {
  return _mm_round_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
inline F32x4 scale_of(F32x4 a, F32x4 k) {
  const __m128i bits = _mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(k.v), _mm_set1_epi32(127)), 23);
  return _mm_mul_ps(a.v, _mm_castsi128_ps(bits));
}
inline F32x4 min_of(F32x4 a, F32x4 b) {
  return _mm_min_ps(b.v, a.v);
}
inline F32x4 max_of(F32x4 a, F32x4 b) {
  return _mm_max_ps(b.v, a.v);
}

struct F32x8 {
  __m256 v;
  F32x8() = default;
  F32x8(__m256 x) : v(x) {}                                      // NOLINT: implicit by design
  F32x8(double s) : v(_mm256_set1_ps(static_cast<float>(s))) {}  // NOLINT: broadcast
};
inline F32x8 operator+(F32x8 a, F32x8 b) {
  return _mm256_add_ps(a.v, b.v);
}
inline F32x8 operator-(F32x8 a, F32x8 b) {
  return _mm256_sub_ps(a.v, b.v);
}
inline F32x8 operator*(F32x8 a, F32x8 b) {
  return _mm256_mul_ps(a.v, b.v);
}
inline F32x8 operator/(F32x8 a, F32x8 b) {
  return _mm256_div_ps(a.v, b.v);
}
inline F32x8 operator-(F32x8 a) {
  return _mm256_xor_ps(a.v, _mm256_set1_ps(-0.0f));
}
inline F32x8 sqrt_of(F32x8 a) {
  return _mm256_sqrt_ps(a.v);
}
inline F32x8 floor_of(F32x8 a) {
  return _mm256_round_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
inline F32x8 scale_of(F32x8 a, F32x8 k) {
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k.v), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(a.v, _mm256_castsi256_ps(bits));
}
inline F32x8 min_of(F32x8 a, F32x8 b) {
  return _mm256_min_ps(b.v, a.v);
}
inline F32x8 max_of(F32x8 a, F32x8 b) {
  return _mm256_max_ps(b.v, a.v);
}
#endif

#if defined(__AVX512F__)
struct F32x16 {
  __m512 v;
  F32x16() = default;
  F32x16(__m512 x) : v(x) {}                                      // NOLINT: implicit by design
  F32x16(double s) : v(_mm512_set1_ps(static_cast<float>(s))) {}  // NOLINT: broadcast
};
inline F32x16 operator+(F32x16 a, F32x16 b) {
  return _mm512_add_ps(a.v, b.v);
}
inline F32x16 operator-(F32x16 a, F32x16 b) {
  return _mm512_sub_ps(a.v, b.v);
}
inline F32x16 operator*(F32x16 a, F32x16 b) {
  return _mm512_mul_ps(a.v, b.v);
}
inline F32x16 operator/(F32x16 a, F32x16 b) {
  return _mm512_div_ps(a.v, b.v);
}
inline F32x16 operator-(F32x16 a) {
  return _mm512_castsi512_ps(
      _mm512_xor_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(static_cast<int>(0x80000000u))));
}
inline F32x16 sqrt_of(F32x16 a) {
  return _mm512_mask_sqrt_ps(a.v, 0xFFFF, a.v);
}
inline F32x16 floor_of(F32x16 a) {
  return _mm512_mask_roundscale_ps(a.v, 0xFFFF, a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
inline F32x16 scale_of(F32x16 a, F32x16 k) {
  // (The masked forms with every lane set, as above: the same instructions and results.)
  const __m512i bits = _mm512_maskz_slli_epi32(
      0xFFFF, _mm512_add_epi32(_mm512_maskz_cvtps_epi32(0xFFFF, k.v), _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(a.v, _mm512_castsi512_ps(bits));
}
inline F32x16 min_of(F32x16 a, F32x16 b) {
  return _mm512_mask_min_ps(a.v, 0xFFFF, b.v, a.v);
}
inline F32x16 max_of(F32x16 a, F32x16 b) {
  return _mm512_mask_max_ps(a.v, 0xFFFF, b.v, a.v);
}
#endif

}  // namespace scanmd::simd

namespace scanmd {

#if defined(__AVX2__)
template <>
inline constexpr bool det::kSingle<simd::F32x4> = true;
template <>
inline constexpr bool det::kSingle<simd::F32x8> = true;
template <>
struct SingleOf<simd::F64x4> {
  using type = simd::F32x4;
  static simd::F32x4 narrow(simd::F64x4 x) { return _mm256_cvtpd_ps(x.v); }
  static simd::F64x4 widen(simd::F32x4 x) { return _mm256_cvtps_pd(x.v); }
};
#endif
#if defined(__AVX512F__)
template <>
inline constexpr bool det::kSingle<simd::F32x16> = true;
template <>
struct SingleOf<simd::F64x8> {
  using type = simd::F32x8;
  static simd::F32x8 narrow(simd::F64x8 x) { return _mm512_maskz_cvtpd_ps(0xFF, x.v); }
  static simd::F64x8 widen(simd::F32x8 x) { return _mm512_maskz_cvtps_pd(0xFF, x.v); }
};
#endif

}  // namespace scanmd
