// What the AVX-512 row kernels share (engine/pair_rows_avx512.cpp, engine/eam_rows_avx512.cpp):
// the minimum image, the sum of eight lanes, and the packing of a row's pairs within the
// cutoff (with several species, each pair's own cutoff, and its type pair packed beside it;
// interior rows, engine/interior_rows.hpp, without the minimum-image test: the pair rows pass
// them, the EAM rows do not). Rows is any struct with the CSR list (offsets, neighbors), the wrapped positions x, the box's
// length and half_length, and `gather` (how the positions are read) (PairRows<E>, EamRows).
// Only for files compiled with -mavx512f -mavx512dq -mavx512vl; every operation is the scalar
// loop's, lane by lane.
#pragma once

#if defined(__AVX512DQ__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/box_avx512.hpp"  // minimum_image
#include "base/fixed_point.hpp"
#include "base/vec3.hpp"
#include "engine/interior_rows.hpp"

namespace scanmd::avx512 {

// The sum of the eight lanes (_mm512_reduce_add_epi64 draws a false -Wmaybe-uninitialized
// from GCC 12's header).
inline std::int64_t lane_sum(__m512i v) {
  alignas(64) std::int64_t lanes[8];
  _mm512_store_si512(lanes, v);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// fixed::to_fixed of v's lanes `in` (v·2^40, |.| < 2^62 (false for NaN), rounded to nearest:
// the MXCSR default) added to a 128-bit sum; returns the lanes of `in` out of range (their
// terms left out: the caller reports an overflow).
inline __mmask8 add_fixed_lanes(fixed::Wide& sum, __m512d v, __mmask8 in) {
  const __m512d t = _mm512_mul_pd(v, _mm512_set1_pd(fixed::kScale));
  const __mmask8 ok = _mm512_cmp_pd_mask(t, _mm512_set1_pd(fixed::kLimit), _CMP_LT_OQ) &
                      _mm512_cmp_pd_mask(t, _mm512_set1_pd(-fixed::kLimit), _CMP_GT_OQ);
  alignas(64) std::int64_t lanes[8];
  _mm512_store_si512(lanes, _mm512_cvtpd_epi64(_mm512_maskz_mov_pd(in & ok, t)));
  for (std::int64_t l : lanes) sum += l;
  return in & static_cast<__mmask8>(~ok);
}

// The box as vectors.
struct Geometry {
  __m512d lx, ly, lz, hx, hy, hz, nhx, nhy, nhz;
  template <class Rows>
  explicit Geometry(const Rows& rows)
      : lx(_mm512_set1_pd(rows.length.x)),
        ly(_mm512_set1_pd(rows.length.y)),
        lz(_mm512_set1_pd(rows.length.z)),
        hx(_mm512_set1_pd(rows.half_length.x)),
        hy(_mm512_set1_pd(rows.half_length.y)),
        hz(_mm512_set1_pd(rows.half_length.z)),
        nhx(_mm512_set1_pd(-rows.half_length.x)),
        nhy(_mm512_set1_pd(-rows.half_length.y)),
        nhz(_mm512_set1_pd(-rows.half_length.z)) {}
};

// x[j[a]] and x[j[b]] as four doubles each (the fourth zero), one per half of a vector; lanes
// after `last` read j[last].
[[gnu::always_inline]] inline __m512d two_records(const double* xs, const std::uint32_t* j,
                                                  std::uint32_t a, std::uint32_t b,
                                                  std::uint32_t last) {
  const __m256d lo = _mm256_maskz_loadu_pd(0x7, xs + 3 * std::size_t(j[a < last ? a : last]));
  const __m256d hi = _mm256_maskz_loadu_pd(0x7, xs + 3 * std::size_t(j[b < last ? b : last]));
  return _mm512_maskz_insertf64x4(0xFF, _mm512_maskz_insertf64x4(0xFF, _mm512_setzero_pd(), lo, 0),
                                  hi, 1);
}

// x[j[0..7]] as three vectors (x, y, z): each Vec3 read as four doubles (the fourth masked off:
// no read past the array), two per vector, then transposed in registers. Lanes from `left` on
// read the row's last neighbour again (masked off by the caller). On AMD's cores cheaper than
// gather_positions. Inlined, with the indices read straight from the list: as a call, the three
// vectors went back through the stack, and a copy of the indices through a vector store made each
// index's load wait on that store (on a Zen 4 the call took 17.7 % of a run's samples).
[[gnu::always_inline]] inline void load_positions(const Vec3* x, const std::uint32_t* j,
                                                  std::uint32_t left, __m512d& xj, __m512d& yj,
                                                  __m512d& zj) {
  const double* xs = &x[0].x;
  const std::uint32_t last = left < 8 ? left - 1 : 7;
  const __m512d z01 = two_records(xs, j, 0, 1, last), z23 = two_records(xs, j, 2, 3, last);
  const __m512d z45 = two_records(xs, j, 4, 5, last), z67 = two_records(xs, j, 6, 7, last);
  // [x0 x2 z0 z2 | x1 x3 z1 z3], [y0 y2 0 0 | y1 y3 0 0], and the same for 4..7. (The masked
  // forms with every lane set: GCC 12 warns about the unmasked ones' undefined sources.)
  const __m512d t0 = _mm512_maskz_unpacklo_pd(0xFF, z01, z23),
                t1 = _mm512_maskz_unpackhi_pd(0xFF, z01, z23);
  const __m512d t2 = _mm512_maskz_unpacklo_pd(0xFF, z45, z67),
                t3 = _mm512_maskz_unpackhi_pd(0xFF, z45, z67);
  const __m512i first = _mm512_setr_epi64(0, 4, 1, 5, 8, 12, 9, 13);
  const __m512i second = _mm512_setr_epi64(2, 6, 3, 7, 10, 14, 11, 15);
  xj = _mm512_permutex2var_pd(t0, first, t2);
  yj = _mm512_permutex2var_pd(t1, first, t3);
  zj = _mm512_permutex2var_pd(t0, second, t2);
}

// The same by three gathers of the lanes `lanes` (j: their indices; the others 0): faster on
// Intel's cores (engine/pair_kernel.hpp, PositionLoads).
inline void gather_positions(const Vec3* x, __m256i j, __mmask8 lanes, __m512d& xj, __m512d& yj,
                             __m512d& zj) {
  const double* xs = &x[0].x;
  const __m256i j3 = _mm256_add_epi32(j, _mm256_add_epi32(j, j));  // a Vec3 is three doubles
  xj = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), lanes, j3, xs, 8);
  yj = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), lanes, j3, xs + 1, 8);
  zj = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), lanes, j3, xs + 2, 8);
}

// One row's entries k .. k+7: the neighbour indices, the lanes in the row, displacements
// (x_i − x_j, minimum image) and r² = (dx² + dy²) + dz².
struct Lanes {
  __m256i j;
  __mmask8 lanes;
  __m512d dx, dy, dz, r2;
};

// Wrapped: the ±L test of each axis (minimum_image); else x_i − x_j as it is, which is the
// minimum image already when the row is interior (InteriorRows: the same bits).
template <bool Wrapped = true, class Rows>
inline Lanes load_lanes(const Rows& rows, const Geometry& g, __m512d xi, __m512d yi, __m512d zi,
                        std::uint32_t k, std::uint32_t row_end) {
  Lanes l;
  const std::uint32_t left = row_end - k;
  l.lanes = left >= 8 ? 0xFF : static_cast<__mmask8>((1u << left) - 1);
  // The row's tail: the missing lanes index particle 0, masked off anyway.
  l.j = _mm256_maskz_loadu_epi32(l.lanes, rows.neighbors + k);
  __m512d xj, yj, zj;
  if (rows.gather)
    gather_positions(rows.x, l.j, l.lanes, xj, yj, zj);
  else
    load_positions(rows.x, rows.neighbors + k, left, xj, yj, zj);
  if constexpr (Wrapped) {
    l.dx = minimum_image(_mm512_sub_pd(xi, xj), g.lx, g.hx, g.nhx);
    l.dy = minimum_image(_mm512_sub_pd(yi, yj), g.ly, g.hy, g.nhy);
    l.dz = minimum_image(_mm512_sub_pd(zi, zj), g.lz, g.hz, g.nhz);
  } else {
    l.dx = _mm512_sub_pd(xi, xj);
    l.dy = _mm512_sub_pd(yi, yj);
    l.dz = _mm512_sub_pd(zi, zj);
  }
  l.r2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(l.dx, l.dx), _mm512_mul_pd(l.dy, l.dy)),
                       _mm512_mul_pd(l.dz, l.dz));
  return l;
}

// Pairs within the cutoff, packed: their j, displacement and r², so that the pair math runs
// full vectors of useful pairs (a third of a list with a skin lies beyond the cutoff, and a WCA
// row holds about five entries). Packed by vcompress in registers and full stores (a
// compress-store to memory is microcoded on some CPUs); the arrays keep 8 entries of slack.
struct Packed {
  std::vector<std::uint32_t> j;
  std::vector<std::uint32_t> pair;  // several species: the pair's entry ti · types + tj
  std::vector<double> dx, dy, dz, r2;
  std::uint32_t n = 0;

  // Room for `more` entries after the n packed (and the slack): a test per row, inlined; the
  // growth, rare, is not.
  [[gnu::always_inline]] void reserve_more(std::size_t more) {
    if (j.size() < n + more + 8) grow(n + more + 8);
  }
  [[gnu::noinline]] void grow(std::size_t need) {
    const std::size_t size = need + need / 2;
    j.resize(size);
    pair.resize(size);
    dx.resize(size);
    dy.resize(size);
    dz.resize(size);
    r2.resize(size);
  }
};

// Several species: each particle's type (0-based), the number of types and each type pair's r²
// cutoff (entry ti · types + tj). Untyped packing ignores it.
struct Species {
  const std::uint32_t* type = nullptr;
  std::uint32_t types = 1;
  const double* cutoff_sq = nullptr;
};

// Appends row i's pairs within the cutoff to `out` (after its n entries); returns their count.
// Typed: each pair's cutoff is its type pair's (species.cutoff_sq, not `cutoff_sq`), and its
// entry ti · types + tj is packed too (Packed::pair).
// Wrapped: as load_lanes.
template <bool Typed = false, bool Wrapped = true, class Rows>
inline std::uint32_t pack_row(const Rows& rows, const Geometry& g, std::size_t i, __m512d cutoff_sq,
                              Packed& out, const Species& species = {}) {
  const std::uint32_t row_begin = rows.offsets[i], row_end = rows.offsets[i + 1];
  out.reserve_more(row_end - row_begin);
  const __m512d xi = _mm512_set1_pd(rows.x[i].x), yi = _mm512_set1_pd(rows.x[i].y),
                zi = _mm512_set1_pd(rows.x[i].z);
  const std::uint32_t first = out.n;
  std::uint32_t n = first;
  // Raw pointers: the stores below (through __m256i*, which may alias anything) would otherwise
  // make the compiler reload the vectors' data pointers at every entry.
  std::uint32_t* const pj = out.j.data();
  std::uint32_t* const pp = out.pair.data();
  double *const pdx = out.dx.data(), *const pdy = out.dy.data(), *const pdz = out.dz.data(),
                *const pr2 = out.r2.data();
  // Typed: row i's entries of the pair table start at type[i] · types.
  const __m256i row_entry =
      _mm256_set1_epi32(Typed ? static_cast<int>(species.type[i] * species.types) : 0);
  for (std::uint32_t k = row_begin; k < row_end; k += 8) {
    const Lanes l = load_lanes<Wrapped>(rows, g, xi, yi, zi, k, row_end);
    __mmask8 in;
    if constexpr (Typed) {
      // Each lane's type pair and its cutoff (lanes past the row: particle 0's, masked off).
      const __m256i tj = _mm256_mmask_i32gather_epi32(
          _mm256_setzero_si256(), l.lanes, l.j, reinterpret_cast<const int*>(species.type), 4);
      const __m256i pair = _mm256_add_epi32(row_entry, tj);
      const __m512d lane_cutoff_sq =
          _mm512_mask_i32gather_pd(_mm512_setzero_pd(), l.lanes, pair, species.cutoff_sq, 8);
      in = l.lanes & _mm512_cmp_pd_mask(l.r2, lane_cutoff_sq, _CMP_LT_OQ);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(pp + n),
                          _mm256_maskz_compress_epi32(in, pair));
    } else {
      in = l.lanes & _mm512_cmp_pd_mask(l.r2, cutoff_sq, _CMP_LT_OQ);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(pj + n), _mm256_maskz_compress_epi32(in, l.j));
    _mm512_storeu_pd(pdx + n, _mm512_maskz_compress_pd(in, l.dx));
    _mm512_storeu_pd(pdy + n, _mm512_maskz_compress_pd(in, l.dy));
    _mm512_storeu_pd(pdz + n, _mm512_maskz_compress_pd(in, l.dz));
    _mm512_storeu_pd(pr2 + n, _mm512_maskz_compress_pd(in, l.r2));
    n += static_cast<std::uint32_t>(__builtin_popcount(in));
  }
  out.n = n;
  return n - first;
}

// Rows [begin, end) a block at a time: rows are packed (pack_row, Typed with `species`) until
// kBlockPairs pairs within the cutoff are (their terms then stay in the L1 cache), and
// body(block) runs on each block: the packed pairs of its rows, row r's pairs ending at
// row_end[r] (row index row_of[r]). Rows without a pair within the cutoff are left out.
constexpr std::uint32_t kBlockPairs = 512;
constexpr int kBlockRows = 512;

struct Block {
  const Packed& packed;
  const std::uint32_t* row_of;
  const std::uint32_t* row_end;
  int rows;
};

template <bool Typed = false, class Rows, class Body>
inline void for_each_block(const Rows& rows, const Geometry& g, __m512d cutoff_sq,
                           std::size_t begin, std::size_t end, Packed& packed, Body&& body,
                           const Species& species = {}, const InteriorRows& interior = {}) {
  std::uint32_t row_of[kBlockRows];
  std::uint32_t row_end[kBlockRows];
  std::size_t i = begin;
  while (i < end) {
    packed.n = 0;
    int rows_in = 0;
    for (; i < end && rows_in < kBlockRows && packed.n < kBlockPairs; ++i) {
      if (rows.offsets[i] == rows.offsets[i + 1]) continue;
      const std::uint32_t kept =
          interior.holds(i) ? pack_row<Typed, false>(rows, g, i, cutoff_sq, packed, species)
                            : pack_row<Typed, true>(rows, g, i, cutoff_sq, packed, species);
      if (kept == 0) continue;
      row_of[rows_in] = static_cast<std::uint32_t>(i);
      row_end[rows_in] = packed.n;
      ++rows_in;
    }
    if (packed.n > 0) body(Block{packed, row_of, row_end, rows_in});
  }
}

// The three planes of a block's n force terms (x, then y, then z), each padded by one vector for
// the last chunk's full stores, in `F` (grown as needed, kept across blocks).
struct TermPlanes {
  std::int64_t *x, *y, *z;
};
inline TermPlanes term_planes(std::vector<std::int64_t>& F, std::uint32_t n) {
  const std::size_t plane = std::size_t(n) + 8;
  if (F.size() < 3 * plane) F.resize(3 * plane * 3 / 2);
  return {F.data(), F.data() + plane, F.data() + 2 * plane};
}

// The force terms F of a block's packed pairs added to f: F to each row's i, −F to each j, in
// scalar code (integer sums: any order gives the same bits).
inline void add_terms(const Block& b, const std::int64_t* __restrict Fx,
                      const std::int64_t* __restrict Fy, const std::int64_t* __restrict Fz,
                      Fix3* __restrict f) {
  const std::uint32_t* __restrict js = b.packed.j.data();
  std::uint32_t k = 0;
  for (int r = 0; r < b.rows; ++r) {
    std::int64_t fx = 0, fy = 0, fz = 0;
    for (; k < b.row_end[r]; ++k) {
      const std::int64_t tx = Fx[k], ty = Fy[k], tz = Fz[k];
      Fix3& fj = f[js[k]];
      fj.x -= tx;
      fj.y -= ty;
      fj.z -= tz;
      fx += tx;
      fy += ty;
      fz += tz;
    }
    Fix3& fi = f[b.row_of[r]];
    fi.x += fx;
    fi.y += fy;
    fi.z += fz;
  }
}

// The scalar loop's pair_force_fixed (engine/fixed_terms.hpp) for eight pairs: fs = (F/r)·2^40,
// the |F| < limit test (a lane within the cutoff that fails it is added to `bad`), and
// F = trunc(fs·d) of the lanes `in` (0 elsewhere) stored at Fx, Fy, Fz.
inline void store_force_terms(__m512d fpair, __m512d scale, __m512d limit_sq, __mmask8 in,
                              __m512d r2, __m512d dx, __m512d dy, __m512d dz, std::int64_t* Fx,
                              std::int64_t* Fy, std::int64_t* Fz, __mmask8& bad) {
  const __m512d fs = _mm512_mul_pd(fpair, scale);
  const __mmask8 ok =
      _mm512_cmp_pd_mask(_mm512_mul_pd(_mm512_mul_pd(fs, fs), r2), limit_sq, _CMP_LT_OQ);
  bad |= in & ~ok;
  const __m512d s = _mm512_maskz_mov_pd(in & ok, fs);
  _mm512_storeu_si512(Fx, _mm512_cvttpd_epi64(_mm512_mul_pd(s, dx)));
  _mm512_storeu_si512(Fy, _mm512_cvttpd_epi64(_mm512_mul_pd(s, dy)));
  _mm512_storeu_si512(Fz, _mm512_cvttpd_epi64(_mm512_mul_pd(s, dz)));
}

// Packed entries k .. k+7 (the tail masked).
struct Chunk {
  __m256i j;
  __mmask8 in;
  __m512d dx, dy, dz, r2;
};

[[gnu::always_inline]] inline Chunk chunk(const Packed& b, std::uint32_t k) {
  const std::uint32_t left = b.n - k;
  Chunk c;
  c.in = left >= 8 ? 0xFF : static_cast<__mmask8>((1u << left) - 1);
  c.j = _mm256_maskz_loadu_epi32(c.in, b.j.data() + k);
  c.dx = _mm512_maskz_loadu_pd(c.in, b.dx.data() + k);
  c.dy = _mm512_maskz_loadu_pd(c.in, b.dy.data() + k);
  c.dz = _mm512_maskz_loadu_pd(c.in, b.dz.data() + k);
  // Masked-off lanes: r² = 1 (no division by zero; nothing of them is used).
  c.r2 = _mm512_mask_loadu_pd(_mm512_set1_pd(1.0), c.in, b.r2.data() + k);
  return c;
}

}  // namespace scanmd::avx512

#endif
