// The minimum image (base/box.hpp's minimum_image) four lanes at a time, for the AVX2 pair
// kernels (engine/pair_rows_avx2.cpp, engine/pair_clusters_avx2.cpp). Only for files compiled
// with -mavx2; each lane does the scalar function's IEEE operations.
#pragma once

#if defined(__AVX2__)
#include <immintrin.h>

namespace scanmd::avx2 {

// d − L where d > L/2, d + L where d < −L/2, else d.
inline __m256d minimum_image(__m256d d, __m256d len, __m256d half, __m256d neg_half) {
  const __m256d above = _mm256_cmp_pd(d, half, _CMP_GT_OQ);
  const __m256d below = _mm256_cmp_pd(d, neg_half, _CMP_LT_OQ);
  d = _mm256_blendv_pd(d, _mm256_sub_pd(d, len), above);
  return _mm256_blendv_pd(d, _mm256_add_pd(d, len), below);
}

}  // namespace scanmd::avx2

#endif
