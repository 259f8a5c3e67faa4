// Vectors of doubles for the pair evaluators (physics/pair/*.hpp): an evaluator's eval<R> is
// written once for R = double and instantiated for these in the vector kernels
// (core/pair_rows_avx*.cpp). Each operator is one IEEE instruction per lane — add, subtract,
// multiply, divide, square root, all correctly rounded, never fused (no FMA intrinsics, and
// -ffp-contract=off) — so every lane gets the scalar bits. A double converts implicitly
// (broadcast), so `R(p.lj1) * r6inv` reads as in the scalar code.
//
// Only for files compiled with the instruction set (-mavx512f / -mavx2): each type exists when
// its macro is defined.
#pragma once

#include <immintrin.h>

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
inline F64x8 operator-(F64x8 a) {
  return _mm512_xor_pd(a.v, _mm512_set1_pd(-0.0));
}  // sign bit
inline F64x8 sqrt(F64x8 a) {
  return _mm512_sqrt_pd(a.v);
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
}  // sign bit
inline F64x4 sqrt(F64x4 a) {
  return _mm256_sqrt_pd(a.v);
}
#endif

}  // namespace scanmd::simd
