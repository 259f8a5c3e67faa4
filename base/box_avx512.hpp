// The minimum image (base/box.hpp's minimum_image) eight lanes at a time, for the AVX-512 code
// of every layer: the pair and EAM rows (engine/rows_avx512.hpp), the FENE bonds
// (engine/bond_fene_avx512.cpp) and the fused Langevin kick
// (physics/dynamics/langevin_avx512.cpp). Only for files compiled with -mavx512f; each lane does
// the scalar function's IEEE operations.
#pragma once

#if defined(__AVX512F__)
#include <immintrin.h>

namespace scanmd::avx512 {

// d − L where d > L/2, d + L where d < −L/2, else d.
inline __m512d minimum_image(__m512d d, __m512d len, __m512d half, __m512d neg_half) {
  const __mmask8 above = _mm512_cmp_pd_mask(d, half, _CMP_GT_OQ);
  const __mmask8 below = _mm512_cmp_pd_mask(d, neg_half, _CMP_LT_OQ);
  d = _mm512_mask_sub_pd(d, above, d, len);
  return _mm512_mask_add_pd(d, below, d, len);
}

// The same with the box's length and half length of one axis.
inline __m512d minimum_image(__m512d d, double length, double half_length) {
  return minimum_image(d, _mm512_set1_pd(length), _mm512_set1_pd(half_length),
                       _mm512_set1_pd(-half_length));
}

}  // namespace scanmd::avx512

#endif
