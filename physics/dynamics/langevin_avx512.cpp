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

// Eight consecutive 3-word records (Vec3, Fix3) as they lie in memory: 24 words in three vectors,
// word k of vector j the component (8j + k) mod 3 of particle (8j + k) / 3. The per-component
// operations (kicks, drift, wrap, minimum image) run on this layout as it is; only what is per
// particle (per-type factors, the noise, the sums over x, y and z) is moved between the layouts.
struct Flat {
  __m512d w[3];
};

inline Flat load_flat(const void* p) {
  const double* d = static_cast<const double*>(p);
  return {{_mm512_loadu_pd(d), _mm512_loadu_pd(d + 8), _mm512_loadu_pd(d + 16)}};
}

inline void store_flat(void* p, const Flat& f) {
  double* d = static_cast<double*>(p);
  _mm512_storeu_pd(d, f.w[0]);
  _mm512_storeu_pd(d + 8, f.w[1]);
  _mm512_storeu_pd(d + 16, f.w[2]);
}

// One particle per lane.
struct V3 {
  __m512d x, y, z;
};

// The x, y and z of the eight records.
inline V3 transpose3(const Flat& f) {
  const __m512i ix1 = _mm512_setr_epi64(0, 3, 6, 9, 12, 15, 0, 0);
  const __m512i ix2 = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 10, 13);
  const __m512i iy1 = _mm512_setr_epi64(1, 4, 7, 10, 13, 0, 0, 0);
  const __m512i iy2 = _mm512_setr_epi64(0, 1, 2, 3, 4, 8, 11, 14);
  const __m512i iz1 = _mm512_setr_epi64(2, 5, 8, 11, 14, 0, 0, 0);
  const __m512i iz2 = _mm512_setr_epi64(0, 1, 2, 3, 4, 9, 12, 15);
  const __m512d a = f.w[0], b = f.w[1], c = f.w[2];
  return {_mm512_permutex2var_pd(_mm512_permutex2var_pd(a, ix1, b), ix2, c),
          _mm512_permutex2var_pd(_mm512_permutex2var_pd(a, iy1, b), iy2, c),
          _mm512_permutex2var_pd(_mm512_permutex2var_pd(a, iz1, b), iz2, c)};
}

// The inverse: eight (x, y, z) as records.
inline Flat interleave3(const V3& v) {
  // a = x0 y0 z0 x1 y1 z1 x2 y2, b = z2 x3 y3 z3 x4 y4 z4 x5, c = y5 z5 x6 y6 z6 x7 y7 z7
  const __m512i a1 = _mm512_setr_epi64(0, 8, 0, 1, 9, 0, 2, 10);
  const __m512i a2 = _mm512_setr_epi64(0, 1, 8, 3, 4, 9, 6, 7);
  const __m512i b1 = _mm512_setr_epi64(0, 3, 11, 0, 4, 12, 0, 5);
  const __m512i b2 = _mm512_setr_epi64(10, 1, 2, 11, 4, 5, 12, 7);
  const __m512i c1 = _mm512_setr_epi64(13, 0, 6, 14, 0, 7, 15, 0);
  const __m512i c2 = _mm512_setr_epi64(0, 13, 2, 3, 14, 5, 6, 15);
  return {{_mm512_permutex2var_pd(_mm512_permutex2var_pd(v.x, a1, v.y), a2, v.z),
           _mm512_permutex2var_pd(_mm512_permutex2var_pd(v.x, b1, v.y), b2, v.z),
           _mm512_permutex2var_pd(_mm512_permutex2var_pd(v.x, c1, v.y), c2, v.z)}};
}

// (x + y) + z per particle: the sum over the components in the scalar code's order.
inline __m512d sum3(const Flat& f) {
  const V3 t = transpose3(f);
  return _mm512_add_pd(_mm512_add_pd(t.x, t.y), t.z);
}

// A value per particle (one lane each) repeated for the three words of its record.
inline Flat spread3(__m512d p) {
  return {{_mm512_maskz_permutexvar_pd(0xff, _mm512_setr_epi64(0, 0, 0, 1, 1, 1, 2, 2), p),
           _mm512_maskz_permutexvar_pd(0xff, _mm512_setr_epi64(2, 3, 3, 3, 4, 4, 4, 5), p),
           _mm512_maskz_permutexvar_pd(0xff, _mm512_setr_epi64(5, 5, 6, 6, 6, 7, 7, 7), p)}};
}

// A vector of the box (L or L/2 per axis) in the record layout.
inline Flat box3(Vec3 l) {
  const Vec3 r[8] = {l, l, l, l, l, l, l, l};
  return load_flat(r);
}

// fixed::to_double of int64 words read as doubles.
inline __m512d to_double(__m512d bits) {
  return _mm512_mul_pd(_mm512_cvtepi64_pd(_mm512_castpd_si512(bits)),
                       _mm512_set1_pd(fixed::kInvScale));
}

// langevin_kick_with: v += dtf (F + F_L), F_L = γ1 v + γ2 u; returns the kick's work
// F_L · (v + v')/2 · half_dt, one lane per particle.
inline __m512d kick(Flat& v, const Flat& f, const Flat& u, const Flat& dtf, const Flat& g1,
                    const Flat& g2, __m512d half_dt) {
  Flat terms;
  for (int j = 0; j < 3; ++j) {
    const __m512d fl =
        _mm512_add_pd(_mm512_mul_pd(g1.w[j], v.w[j]), _mm512_mul_pd(g2.w[j], u.w[j]));
    const __m512d v0 = v.w[j];
    v.w[j] = _mm512_add_pd(v0, _mm512_mul_pd(dtf.w[j], _mm512_add_pd(f.w[j], fl)));
    terms.w[j] = _mm512_mul_pd(fl, _mm512_add_pd(v0, v.w[j]));
  }
  return _mm512_mul_pd(_mm512_mul_pd(sum3(terms), _mm512_set1_pd(0.5)), half_dt);
}

// fixed::to_fixed without the flag: false when a lane is out of range (or NaN).
inline bool to_fixed(__m512d w, __m512i& out) {
  const __m512d t = _mm512_mul_pd(w, _mm512_set1_pd(fixed::kScale));
  const __mmask8 ok = _mm512_cmp_pd_mask(t, _mm512_set1_pd(fixed::kLimit), _CMP_LT_OQ) &
                      _mm512_cmp_pd_mask(t, _mm512_set1_pd(-fixed::kLimit), _CMP_GT_OQ);
  out = _mm512_cvtpd_epi64(t);  // the current rounding mode (to nearest), as llrint
  return ok == 0xff;
}

// wrap_coordinate's one-box-length paths on eight words with their box lengths L: x in [L, 2L) →
// x − L (image + 1), x in [−L, 0) → x + L (image − 1, or x = 0 with the image kept where the sum
// rounds to L). `up` and `down` get the words whose image counter changes. False when a word
// needs wrap_far_coordinate or is NaN.
inline bool wrap8(__m512d& x, __m512d L, __mmask8& up, __mmask8& down) {
  const __m512d zero = _mm512_setzero_pd();
  const __mmask8 above = _mm512_cmp_pd_mask(x, L, _CMP_GE_OQ);
  const __mmask8 below = _mm512_cmp_pd_mask(x, zero, _CMP_LT_OQ);
  const __mmask8 inside = _mm512_cmp_pd_mask(x, L, _CMP_LT_OQ) & static_cast<__mmask8>(~below);
  const __mmask8 near_above = above & _mm512_cmp_pd_mask(x, _mm512_add_pd(L, L), _CMP_LT_OQ);
  const __mmask8 near_below =
      below & _mm512_cmp_pd_mask(x, _mm512_sub_pd(zero, L), _CMP_GE_OQ);  // 2L, −L: exact
  if (static_cast<__mmask8>(inside | near_above | near_below) != 0xff) return false;
  x = _mm512_mask_sub_pd(x, near_above, x, L);
  x = _mm512_mask_add_pd(x, near_below, x, L);
  const __mmask8 at_length = near_below & _mm512_cmp_pd_mask(x, L, _CMP_GE_OQ);
  x = _mm512_mask_mov_pd(x, at_length, zero);
  up = near_above;
  down = near_below & static_cast<__mmask8>(~at_length);
  return true;
}

// The 24 image counters of eight particles (Int3 records), stepped by the wrap's masks (word k
// of mask j: counter 8j + k). False when a counter at the end of its range would step beyond it
// (wrap_far_coordinate's path).
struct Images {
  __m512i lo;  // counters 0 .. 15
  __m256i hi;  // counters 16 .. 23
};

inline bool step_images(const Int3* image, const __mmask8 up[3], const __mmask8 down[3],
                        Images& out) {
  const int* p = &image->x;
  const __m512i lo = _mm512_loadu_si512(p);
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 16));
  const auto up_lo = static_cast<__mmask16>(up[0] | (up[1] << 8));
  const auto down_lo = static_cast<__mmask16>(down[0] | (down[1] << 8));
  const __m512i max = _mm512_set1_epi32(2147483647), min = _mm512_set1_epi32(-2147483647 - 1);
  if ((_mm512_mask_cmpeq_epi32_mask(up_lo, lo, max) |
       _mm512_mask_cmpeq_epi32_mask(down_lo, lo, min)) != 0 ||
      (_mm256_mask_cmpeq_epi32_mask(up[2], hi, _mm256_set1_epi32(2147483647)) |
       _mm256_mask_cmpeq_epi32_mask(down[2], hi, _mm256_set1_epi32(-2147483647 - 1))) != 0)
    return false;
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i lo_up = _mm512_mask_add_epi32(lo, up_lo, lo, one);
  out.lo = _mm512_mask_sub_epi32(lo_up, down_lo, lo_up, one);
  const __m256i one8 = _mm256_set1_epi32(1);
  const __m256i hi_up = _mm256_mask_add_epi32(hi, up[2], hi, one8);
  out.hi = _mm256_mask_sub_epi32(hi_up, down[2], hi_up, one8);
  return true;
}

inline std::int64_t lane(__m512i v, int l) {
  alignas(64) std::int64_t w[8];
  _mm512_store_si512(w, v);
  return w[l];
}

// The eight particles' per-type factor from coeff, in the record layout (broadcast for one type,
// else gathered).
inline Flat per_type(const FusedKickArgs& a, const double* coeff, __m256i types) {
  if (a.one_type) {
    const __m512d c = _mm512_set1_pd(coeff[0]);
    return {{c, c, c}};
  }
  return spread3(gather(types, coeff));
}

// The state of one block in the record layout: the force (converted as fixed::to_double),
// velocity and position of eight particles, their types and dt/2m.
struct Block {
  __m256i types;  // 8 × uint32
  Flat dtf, f, v, x;
};

[[gnu::always_inline]] inline Block load_block(const FusedKickArgs& a, std::size_t i) {
  static_assert(sizeof(Vec3) == 24 && sizeof(Fix3) == 24 && sizeof(Int3) == 12);
  Block b;
  b.types = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.type + i));
  b.dtf = per_type(a, a.dtf, b.types);
  b.f = load_flat(a.f + i);
  for (__m512d& w : b.f.w) w = to_double(w);
  b.v = load_flat(a.v + i);
  b.x = load_flat(a.x + i);
  return b;
}

// After the kicks: the drift x += dt v, the wrap (wrap_coordinate), the skin test
// (moved_beyond_limit, skipped once `moved` is set: an OR) and the write-back of x, v and the
// image counters. False, with nothing written, when a particle needs the scalar path (a wrap
// beyond one box length, an image counter at the end of its range, a value that is not finite).
[[gnu::always_inline]] inline bool drift_wrap_store(const FusedKickArgs& a, std::size_t i, Block& b,
                                                    bool& moved) {
  const __m512d dt = _mm512_set1_pd(a.dt);
  const Flat length = box3(a.box.length);
  __mmask8 up[3], down[3];
  for (int j = 0; j < 3; ++j) {
    b.x.w[j] = _mm512_add_pd(b.x.w[j], _mm512_mul_pd(dt, b.v.w[j]));
    if (!wrap8(b.x.w[j], length.w[j], up[j], down[j])) return false;
  }
  const __mmask8 wrapped = up[0] | up[1] | up[2] | down[0] | down[1] | down[2];
  Images images{_mm512_setzero_si512(), _mm256_setzero_si256()};
  if (wrapped != 0 && !step_images(a.image + i, up, down, images)) return false;

  if (a.skin && !moved) {
    const Flat half = box3(a.box.half_length);
    const Flat xb = load_flat(a.x_build + i);
    Flat sq;
    for (int j = 0; j < 3; ++j) {
      __m512d d = _mm512_sub_pd(b.x.w[j], xb.w[j]);
      if (!a.explicit_images)
        d = avx512::minimum_image(d, length.w[j], half.w[j],
                                  _mm512_sub_pd(_mm512_setzero_pd(), half.w[j]));
      sq.w[j] = _mm512_mul_pd(d, d);
    }
    moved = _mm512_cmp_pd_mask(sum3(sq), _mm512_set1_pd(a.limit_sq), _CMP_GT_OQ) != 0;
  }

  // Every particle took the fast path: write back.
  store_flat(a.v + i, b.v);
  store_flat(a.x + i, b.x);
  if (wrapped != 0) {
    int* p = &a.image[i].x;
    _mm512_storeu_si512(p, images.lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 16), images.hi);
  }
  return true;
}

}  // namespace

bool fused_kick_avx512(const FusedKickArgs& a, std::size_t i, fixed::Wide& work, bool& moved) {
  Block b = load_block(a, i);
  const Flat g1 = per_type(a, a.drag, b.types);
  const Flat g2 = per_type(a, a.noise, b.types);
  const __m512d half_dt = _mm512_set1_pd(0.5 * a.dt);

  // langevin_noise(seed, id, step)
  __m512i r0, r1, r2;
  philox8(_mm512_loadu_si512(a.id + i), a.step, a.seed, r0, r1, r2);
  const Flat u = interleave3({uniform(r0), uniform(r1), uniform(r2)});

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
  for (int kick = 0; kick < 2; ++kick)
    for (int j = 0; j < 3; ++j)
      b.v.w[j] = _mm512_add_pd(b.v.w[j], _mm512_mul_pd(b.dtf.w[j], b.f.w[j]));
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
