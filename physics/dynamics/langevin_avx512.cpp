// The fused Langevin pass, eight particles per vector (langevin_avx512.hpp). Compiled with
// -mavx512f -mavx512dq -mavx512vl for this file only (physics/CMakeLists.txt) and called only
// when the CPU has them (fused_kick_avx512_available, which is compiled without them). No FMA
// (-ffp-contract=off): each operation below is the scalar code's, in its order.
#include "physics/dynamics/langevin_avx512.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#include <immintrin.h>

#include <Random123/philox.h>

#include "base/box_avx512.hpp"
#include "physics/dynamics/langevin.hpp"
#endif

namespace scanmd {

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__)

namespace {

// (The masked forms with every lane on: GCC 12 warns of the unmasked forms' uninitialised
// sources in avx512fintrin.h.)
inline __m512i srli(__m512i a, unsigned n) {
  return _mm512_maskz_srli_epi64(0xff, a, n);
}
inline __m512i slli(__m512i a, unsigned n) {
  return _mm512_maskz_slli_epi64(0xff, a, n);
}
inline __m512i mul_epu32(__m512i a, __m512i b) {
  return _mm512_maskz_mul_epu32(0xff, a, b);
}
inline __m512d gather(__m256i index, const double* base) {
  return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xff, index, base, 8);
}

// The low and high 64 bits of a·m for a 64-bit constant m, per lane, from four 32 × 32 → 64-bit
// products (Random123's mulhilo64).
inline void mulhilo64(__m512i a, std::uint64_t m, __m512i& lo, __m512i& hi) {
  const __m512i m_lo = _mm512_set1_epi64(static_cast<long long>(m & 0xffffffffu));
  const __m512i m_hi = _mm512_set1_epi64(static_cast<long long>(m >> 32));
  const __m512i mask = _mm512_set1_epi64(0xffffffffll);
  const __m512i a_hi = srli(a, 32);
  const __m512i ll = mul_epu32(a, m_lo);
  const __m512i lh = mul_epu32(a, m_hi);
  const __m512i hl = mul_epu32(a_hi, m_lo);
  const __m512i hh = mul_epu32(a_hi, m_hi);
  // The middle 32-bit column with its carries, in two steps that cannot overflow 64 bits
  // ((2^32 − 1)² + 2·(2^32 − 1) < 2^64).
  const __m512i t = _mm512_add_epi64(hl, srli(ll, 32));
  const __m512i u = _mm512_add_epi64(lh, _mm512_and_si512(t, mask));
  hi = _mm512_add_epi64(_mm512_add_epi64(hh, srli(t, 32)), srli(u, 32));
  lo = _mm512_or_si512(slli(u, 32), _mm512_and_si512(ll, mask));
}

// Philox4x64-10 of the counters (id[l], step, 0, 0) with key (seed, kLangevinStream): the first
// three words of the output (langevin_noise uses those).
inline void philox8(__m512i id, std::uint64_t step, std::uint64_t seed, __m512i& r0, __m512i& r1,
                    __m512i& r2) {
  constexpr std::uint64_t M0 = PHILOX_M4x64_0, M1 = PHILOX_M4x64_1;
  constexpr std::uint64_t W0 = PHILOX_W64_0, W1 = PHILOX_W64_1;
  std::uint64_t k0 = seed, k1 = kLangevinStream;
  // Round 0 on the counter (id, step, 0, 0): the product of the third word, 0, is 0.
  __m512i lo0, hi0;
  mulhilo64(id, M0, lo0, hi0);
  __m512i c0 = _mm512_set1_epi64(static_cast<long long>(step ^ k0)), c1 = _mm512_setzero_si512(),
          c2 = _mm512_xor_si512(hi0, _mm512_set1_epi64(static_cast<long long>(k1))), c3 = lo0;
#pragma GCC unroll 9
  for (int round = 1; round < 10; ++round) {
    k0 += W0;
    k1 += W1;
    __m512i lo1, hi1;
    mulhilo64(c0, M0, lo0, hi0);
    mulhilo64(c2, M1, lo1, hi1);
    const __m512i n0 =
        _mm512_xor_si512(_mm512_xor_si512(hi1, c1), _mm512_set1_epi64(static_cast<long long>(k0)));
    const __m512i n2 =
        _mm512_xor_si512(_mm512_xor_si512(hi0, c3), _mm512_set1_epi64(static_cast<long long>(k1)));
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  r0 = c0;
  r1 = c1;
  r2 = c2;
}

// u = (r >> 11)·2^-53 − ½ (langevin_noise).
inline __m512d uniform(__m512i r) {
  const __m512d k = _mm512_set1_pd(1.0 / 9007199254740992.0);
  return _mm512_sub_pd(_mm512_mul_pd(_mm512_cvtepu64_pd(srli(r, 11)), k), _mm512_set1_pd(0.5));
}

// The x, y and z of eight consecutive 3-word records (Vec3, Fix3) from 24 words at p.
inline void load3(const double* p, __m512d& x, __m512d& y, __m512d& z) {
  const __m512d a = _mm512_loadu_pd(p), b = _mm512_loadu_pd(p + 8), c = _mm512_loadu_pd(p + 16);
  const __m512i ix1 = _mm512_setr_epi64(0, 3, 6, 9, 12, 15, 0, 0);
  const __m512i ix2 = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 10, 13);
  const __m512i iy1 = _mm512_setr_epi64(1, 4, 7, 10, 13, 0, 0, 0);
  const __m512i iy2 = _mm512_setr_epi64(0, 1, 2, 3, 4, 8, 11, 14);
  const __m512i iz1 = _mm512_setr_epi64(2, 5, 8, 11, 14, 0, 0, 0);
  const __m512i iz2 = _mm512_setr_epi64(0, 1, 2, 3, 4, 9, 12, 15);
  x = _mm512_permutex2var_pd(_mm512_permutex2var_pd(a, ix1, b), ix2, c);
  y = _mm512_permutex2var_pd(_mm512_permutex2var_pd(a, iy1, b), iy2, c);
  z = _mm512_permutex2var_pd(_mm512_permutex2var_pd(a, iz1, b), iz2, c);
}

inline void store3(double* p, __m512d x, __m512d y, __m512d z) {
  // a = x0 y0 z0 x1 y1 z1 x2 y2, b = z2 x3 y3 z3 x4 y4 z4 x5, c = y5 z5 x6 y6 z6 x7 y7 z7
  const __m512i a1 = _mm512_setr_epi64(0, 8, 0, 1, 9, 0, 2, 10);
  const __m512i a2 = _mm512_setr_epi64(0, 1, 8, 3, 4, 9, 6, 7);
  const __m512i b1 = _mm512_setr_epi64(0, 3, 11, 0, 4, 12, 0, 5);
  const __m512i b2 = _mm512_setr_epi64(10, 1, 2, 11, 4, 5, 12, 7);
  const __m512i c1 = _mm512_setr_epi64(13, 0, 6, 14, 0, 7, 15, 0);
  const __m512i c2 = _mm512_setr_epi64(0, 13, 2, 3, 14, 5, 6, 15);
  _mm512_storeu_pd(p, _mm512_permutex2var_pd(_mm512_permutex2var_pd(x, a1, y), a2, z));
  _mm512_storeu_pd(p + 8, _mm512_permutex2var_pd(_mm512_permutex2var_pd(x, b1, y), b2, z));
  _mm512_storeu_pd(p + 16, _mm512_permutex2var_pd(_mm512_permutex2var_pd(x, c1, y), c2, z));
}

// fixed::to_double of int64 words read as doubles by load3.
inline __m512d to_double(__m512d bits) {
  return _mm512_mul_pd(_mm512_cvtepi64_pd(_mm512_castpd_si512(bits)),
                       _mm512_set1_pd(fixed::kInvScale));
}

struct V3 {
  __m512d x, y, z;
};

// langevin_kick_with: v += dtf (F + F_L), F_L = γ1 v + γ2 u; returns the kick's work
// F_L · (v + v')/2 · half_dt.
inline __m512d kick(V3& v, const V3& f, const V3& u, __m512d dtf, __m512d g1, __m512d g2,
                    __m512d half_dt) {
  const __m512d flx = _mm512_add_pd(_mm512_mul_pd(g1, v.x), _mm512_mul_pd(g2, u.x));
  const __m512d fly = _mm512_add_pd(_mm512_mul_pd(g1, v.y), _mm512_mul_pd(g2, u.y));
  const __m512d flz = _mm512_add_pd(_mm512_mul_pd(g1, v.z), _mm512_mul_pd(g2, u.z));
  const V3 v0 = v;
  v.x = _mm512_add_pd(v.x, _mm512_mul_pd(dtf, _mm512_add_pd(f.x, flx)));
  v.y = _mm512_add_pd(v.y, _mm512_mul_pd(dtf, _mm512_add_pd(f.y, fly)));
  v.z = _mm512_add_pd(v.z, _mm512_mul_pd(dtf, _mm512_add_pd(f.z, flz)));
  const __m512d s = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(flx, _mm512_add_pd(v0.x, v.x)),
                                                _mm512_mul_pd(fly, _mm512_add_pd(v0.y, v.y))),
                                  _mm512_mul_pd(flz, _mm512_add_pd(v0.z, v.z)));
  return _mm512_mul_pd(_mm512_mul_pd(s, _mm512_set1_pd(0.5)), half_dt);
}

// fixed::to_fixed without the flag: false when a lane is out of range (or NaN).
inline bool to_fixed(__m512d w, __m512i& out) {
  const __m512d t = _mm512_mul_pd(w, _mm512_set1_pd(fixed::kScale));
  const __mmask8 ok = _mm512_cmp_pd_mask(t, _mm512_set1_pd(fixed::kLimit), _CMP_LT_OQ) &
                      _mm512_cmp_pd_mask(t, _mm512_set1_pd(-fixed::kLimit), _CMP_GT_OQ);
  out = _mm512_cvtpd_epi64(t);  // the current rounding mode (to nearest), as llrint
  return ok == 0xff;
}

// wrap_coordinate's one-box-length paths: x in [L, 2L) → x − L (image + 1), x in [−L, 0) →
// x + L (image − 1, or x = 0 with the image kept where the sum rounds to L). `up` and `down` get
// the lanes whose image counter changes. False when a lane needs wrap_far_coordinate or is NaN.
inline bool wrap8(__m512d& x, double length, __mmask8& up, __mmask8& down) {
  const __m512d L = _mm512_set1_pd(length);
  const __mmask8 above = _mm512_cmp_pd_mask(x, L, _CMP_GE_OQ);
  const __mmask8 below = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ);
  const __mmask8 inside = _mm512_cmp_pd_mask(x, L, _CMP_LT_OQ) & static_cast<__mmask8>(~below);
  const __mmask8 near_above =
      above & _mm512_cmp_pd_mask(x, _mm512_set1_pd(2.0 * length), _CMP_LT_OQ);
  const __mmask8 near_below = below & _mm512_cmp_pd_mask(x, _mm512_set1_pd(-length), _CMP_GE_OQ);
  if (static_cast<__mmask8>(inside | near_above | near_below) != 0xff) return false;
  x = _mm512_mask_sub_pd(x, near_above, x, L);
  x = _mm512_mask_add_pd(x, near_below, x, L);
  const __mmask8 at_length = near_below & _mm512_cmp_pd_mask(x, L, _CMP_GE_OQ);
  x = _mm512_mask_mov_pd(x, at_length, _mm512_setzero_pd());
  up = near_above;
  down = near_below & static_cast<__mmask8>(~at_length);
  return true;
}

inline int& component(Int3& a, int c) {
  return c == 0 ? a.x : c == 1 ? a.y : a.z;
}

inline std::int64_t lane(__m512i v, int l) {
  alignas(64) std::int64_t w[8];
  _mm512_store_si512(w, v);
  return w[l];
}

// The eight particles' per-type factor from coeff (broadcast for one type, else gathered).
inline __m512d per_type(const FusedKickArgs& a, const double* coeff, __m256i types) {
  return a.one_type ? _mm512_set1_pd(coeff[0]) : gather(types, coeff);
}

// The state of one block: the force (converted as fixed::to_double), velocity and position of
// eight particles, their types and dt/2m.
struct Block {
  __m256i types;  // 8 × uint32
  __m512d dtf;
  V3 f, v, x;
};

inline Block load_block(const FusedKickArgs& a, std::size_t i) {
  static_assert(sizeof(Vec3) == 24 && sizeof(Fix3) == 24 && sizeof(Int3) == 12);
  Block b;
  b.types = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.type + i));
  b.dtf = per_type(a, a.dtf, b.types);
  load3(reinterpret_cast<const double*>(a.f + i), b.f.x, b.f.y, b.f.z);
  b.f = {to_double(b.f.x), to_double(b.f.y), to_double(b.f.z)};
  load3(&a.v[i].x, b.v.x, b.v.y, b.v.z);
  load3(&a.x[i].x, b.x.x, b.x.y, b.x.z);
  return b;
}

// After the kicks: the drift x += dt v, the wrap (wrap_coordinate), the skin test
// (moved_beyond_limit, skipped once `moved` is set: an OR) and the write-back of x, v and the
// image counters. False, with nothing written, when a lane needs the scalar path (a wrap beyond
// one box length, an image counter at the end of its range, a value that is not finite).
inline bool drift_wrap_store(const FusedKickArgs& a, std::size_t i, Block& b, bool& moved) {
  const __m512d dt = _mm512_set1_pd(a.dt);
  V3& x = b.x;
  x.x = _mm512_add_pd(x.x, _mm512_mul_pd(dt, b.v.x));
  x.y = _mm512_add_pd(x.y, _mm512_mul_pd(dt, b.v.y));
  x.z = _mm512_add_pd(x.z, _mm512_mul_pd(dt, b.v.z));
  __mmask8 up[3], down[3];
  if (!wrap8(x.x, a.box.length.x, up[0], down[0]) || !wrap8(x.y, a.box.length.y, up[1], down[1]) ||
      !wrap8(x.z, a.box.length.z, up[2], down[2]))
    return false;
  const __mmask8 wrapped = up[0] | up[1] | up[2] | down[0] | down[1] | down[2];
  // An image counter at the end of its range takes wrap_far_coordinate's path.
  if (wrapped != 0)
    for (int l = 0; l < 8; ++l) {
      Int3& img = a.image[i + static_cast<std::size_t>(l)];
      for (int c = 0; c < 3; ++c)
        if ((((up[c] >> l) & 1) && component(img, c) == 2147483647) ||
            (((down[c] >> l) & 1) && component(img, c) == -2147483647 - 1))
          return false;
    }

  bool any_moved = false;
  if (a.skin && !moved) {
    V3 xb;
    load3(&a.x_build[i].x, xb.x, xb.y, xb.z);
    __m512d dx = _mm512_sub_pd(x.x, xb.x), dy = _mm512_sub_pd(x.y, xb.y),
            dz = _mm512_sub_pd(x.z, xb.z);
    if (!a.explicit_images) {
      dx = avx512::minimum_image(dx, a.box.length.x, a.box.half_length.x);
      dy = avx512::minimum_image(dy, a.box.length.y, a.box.half_length.y);
      dz = avx512::minimum_image(dz, a.box.length.z, a.box.half_length.z);
    }
    const __m512d rsq = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                                      _mm512_mul_pd(dz, dz));
    any_moved = _mm512_cmp_pd_mask(rsq, _mm512_set1_pd(a.limit_sq), _CMP_GT_OQ) != 0;
  }

  // Every lane took the fast path: write back.
  store3(&a.v[i].x, b.v.x, b.v.y, b.v.z);
  store3(&a.x[i].x, x.x, x.y, x.z);
  if (wrapped != 0)
    for (int l = 0; l < 8; ++l) {
      Int3& img = a.image[i + static_cast<std::size_t>(l)];
      for (int c = 0; c < 3; ++c) component(img, c) += ((up[c] >> l) & 1) - ((down[c] >> l) & 1);
    }
  moved = moved || any_moved;
  return true;
}

}  // namespace

bool fused_kick_avx512(const FusedKickArgs& a, std::size_t i, fixed::Wide& work, bool& moved) {
  Block b = load_block(a, i);
  const __m512d g1 = per_type(a, a.drag, b.types);
  const __m512d g2 = per_type(a, a.noise, b.types);
  const __m512d half_dt = _mm512_set1_pd(0.5 * a.dt);

  // langevin_noise(seed, id, step)
  __m512i r0, r1, r2;
  philox8(_mm512_loadu_si512(a.id + i), a.step, a.seed, r0, r1, r2);
  const V3 u{uniform(r0), uniform(r1), uniform(r2)};

  // The second half kick of the last step, then this step's first half kick (the drift follows).
  const __m512d w_final = kick(b.v, b.f, u, b.dtf, g1, g2, half_dt);
  const __m512d w_initial = kick(b.v, b.f, u, b.dtf, g1, g2, half_dt);
  __m512i fixed_final, fixed_initial;
  if (!to_fixed(w_final, fixed_final) || !to_fixed(w_initial, fixed_initial)) return false;
  if (!drift_wrap_store(a, i, b, moved)) return false;
  // Two terms per lane below 2^62 each: their int64 sum cannot overflow.
  const __m512i sum = _mm512_add_epi64(fixed_final, fixed_initial);
  fixed::Wide block = 0;
  for (int l = 0; l < 8; ++l) block += lane(sum, l);
  work += block;
  return true;
}

bool fused_verlet_avx512(const FusedKickArgs& a, std::size_t i, bool& moved) {
  Block b = load_block(a, i);
  // verlet_final, then verlet_initial's kick: v += dtf·F twice (the drift follows).
  for (int kick = 0; kick < 2; ++kick) {
    b.v.x = _mm512_add_pd(b.v.x, _mm512_mul_pd(b.dtf, b.f.x));
    b.v.y = _mm512_add_pd(b.v.y, _mm512_mul_pd(b.dtf, b.f.y));
    b.v.z = _mm512_add_pd(b.v.z, _mm512_mul_pd(b.dtf, b.f.z));
  }
  return drift_wrap_store(a, i, b, moved);
}

#else

bool fused_kick_avx512(const FusedKickArgs&, std::size_t, fixed::Wide&, bool&) {
  return false;
}

bool fused_verlet_avx512(const FusedKickArgs&, std::size_t, bool&) {
  return false;
}

#endif

}  // namespace scanmd
