// FENE bonds, eight per vector (see bond_fene_avx512.hpp). Compiled with -mavx512f -mavx512dq
// -mavx512vl for this file only, called only when the CPU has them (the AVX-512 force kernel
// chosen: engine/pair_kernel.cpp). No FMA: the same bits as the scalar BondFene::eval.
#if defined(__AVX512VL__)
#include <immintrin.h>
#endif
#include <stdexcept>

#include "base/box_avx512.hpp"
#include "base/fixed_point.hpp"
#include "engine/bond_fene_avx512.hpp"

namespace scanmd {

#if defined(__AVX512VL__)

bool fene_forces_avx512(const Vec3* x, const BondedTerm* terms, std::size_t count,
                        const BondCoeff* coeff, Vec3 length, Vec3 half_length, std::int64_t* fx,
                        std::int64_t* fy, std::int64_t* fz) {
  static_assert(sizeof(Vec3) == 3 * sizeof(double) && sizeof(BondCoeff) == 4 * sizeof(double));
  alignas(32) std::int32_t xi[8], xj[8], ct[8];
  bool one_type = true;
  for (std::size_t l = 0; l < 8; ++l) {
    const BondedTerm& t = terms[l < count ? l : 0];
    xi[l] = static_cast<std::int32_t>(3 * t.at[0]);
    xj[l] = static_cast<std::int32_t>(3 * t.at[1]);
    ct[l] = static_cast<std::int32_t>(4 * (t.type - 1));
    one_type = one_type && t.type == terms[0].type;
  }
  const __mmask8 lanes = static_cast<__mmask8>((1u << count) - 1u);
  const __m256i vi = _mm256_load_si256(reinterpret_cast<const __m256i*>(xi));
  const __m256i vj = _mm256_load_si256(reinterpret_cast<const __m256i*>(xj));
  const __m256i vc = _mm256_load_si256(reinterpret_cast<const __m256i*>(ct));
  const double* xd = &x[0].x;
  auto gather = [](__m256i index, const double* base) {
    // (Masked, from zeros: GCC 12 warns of the unmasked form's uninitialised source.)
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xff, index, base, 8);
  };
  // bond_geometry: d = x_i − x_j at the minimum image, r² = (dx² + dy²) + dz².
  const __m512d dx =
      avx512::minimum_image(_mm512_sub_pd(gather(vi, xd), gather(vj, xd)), length.x, half_length.x);
  const __m512d dy = avx512::minimum_image(_mm512_sub_pd(gather(vi, xd + 1), gather(vj, xd + 1)),
                                           length.y, half_length.y);
  const __m512d dz = avx512::minimum_image(_mm512_sub_pd(gather(vi, xd + 2), gather(vj, xd + 2)),
                                           length.z, half_length.z);
  const __m512d rsq = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                                    _mm512_mul_pd(dz, dz));
  // BondFene::eval without the energy.
  // The coefficients of each lane's type (broadcast when the block has one type: in.chain's).
  const double* cd = &coeff[0].k;
  const BondCoeff& c0 = coeff[terms[0].type - 1];
  const __m512d k = one_type ? _mm512_set1_pd(c0.k) : gather(vc, cd);
  const __m512d r0 = one_type ? _mm512_set1_pd(c0.r0) : gather(vc, cd + 1);
  const __m512d epsilon = one_type ? _mm512_set1_pd(c0.epsilon) : gather(vc, cd + 2);
  const __m512d sigma = one_type ? _mm512_set1_pd(c0.sigma) : gather(vc, cd + 3);
  const __m512d r0sq = _mm512_mul_pd(r0, r0);
  __m512d rlogarg = _mm512_sub_pd(_mm512_set1_pd(1.0), _mm512_div_pd(rsq, r0sq));
  const __mmask8 held = _mm512_cmp_pd_mask(rlogarg, _mm512_set1_pd(0.1), _CMP_LT_OQ);
  if (held & lanes & _mm512_cmp_pd_mask(rlogarg, _mm512_set1_pd(-3.0), _CMP_LE_OQ)) return false;
  rlogarg = _mm512_mask_mov_pd(rlogarg, held, _mm512_set1_pd(0.1));
  // −k / rlogarg (−k: the sign bit flipped, as the scalar negation).
  __m512d fbond = _mm512_div_pd(_mm512_xor_pd(k, _mm512_set1_pd(-0.0)), rlogarg);
  constexpr double two_1_3 = 1.2599210498948732;
  const __mmask8 lj = _mm512_cmp_pd_mask(
      rsq, _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(two_1_3), sigma), sigma), _CMP_LT_OQ);
  if (lj) {
    const __m512d sr2 = _mm512_div_pd(_mm512_mul_pd(sigma, sigma), rsq);
    const __m512d sr6 = _mm512_mul_pd(_mm512_mul_pd(sr2, sr2), sr2);
    const __m512d term = _mm512_div_pd(
        _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(48.0), epsilon), sr6),
                      _mm512_sub_pd(sr6, _mm512_set1_pd(0.5))),
        rsq);
    fbond = _mm512_mask_add_pd(fbond, lj, fbond, term);
  }
  // bond_fixed: to_fixed of fbond·d, each in range.
  const __m512d scale = _mm512_set1_pd(fixed::kScale), limit = _mm512_set1_pd(fixed::kLimit),
                neg_limit = _mm512_set1_pd(-fixed::kLimit);
  const __m512d t[3] = {_mm512_mul_pd(_mm512_mul_pd(fbond, dx), scale),
                        _mm512_mul_pd(_mm512_mul_pd(fbond, dy), scale),
                        _mm512_mul_pd(_mm512_mul_pd(fbond, dz), scale)};
  std::int64_t* out[3] = {fx, fy, fz};
  for (int a = 0; a < 3; ++a) {
    const __mmask8 ok = _mm512_cmp_pd_mask(t[a], limit, _CMP_LT_OQ) &
                        _mm512_cmp_pd_mask(t[a], neg_limit, _CMP_GT_OQ);
    if ((ok & lanes) != lanes) return false;
    // Rounded in the default mode (to nearest, ties to even), as std::llrint.
    _mm512_mask_storeu_epi64(out[a], lanes, _mm512_cvtpd_epi64(t[a]));
  }
  return true;
}

#else

bool fene_forces_avx512(const Vec3*, const BondedTerm*, std::size_t, const BondCoeff*, Vec3, Vec3,
                        std::int64_t*, std::int64_t*, std::int64_t*) {
  throw std::logic_error("fene_forces_avx512: built without AVX-512");
}

#endif

}  // namespace scanmd
