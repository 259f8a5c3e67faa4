// The AVX-512 pair kernel (see pair_rows.hpp): a block of rows at a time, their pairs within
// the cutoff packed (engine/rows_avx512.hpp), then eight packed pairs per vector, the pair's
// F/r from the style's evaluator instantiated for simd::F64x8, the terms added to f in scalar
// code. Packing fills the vectors whatever the rows' lengths (a WCA row holds about five
// entries, two within the cutoff), and the adds need no gather or scatter. Compiled with
// -mavx512f -mavx512dq for this file only and called only when the CPU has them
// (engine/pair_kernel.cpp). No fused multiply-add anywhere: the same bits as the scalar loop.
#if defined(__AVX512DQ__)
#include <immintrin.h>
#endif
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "base/fixed_point.hpp"
#include "engine/pair_rows.hpp"
#include "engine/rows_avx512.hpp"
#include "engine/simd.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd {

#if defined(__AVX512DQ__)

template <class E>
RowsTotals pair_rows_avx512(const PairRows<E>& rows, std::size_t begin, std::size_t end, Fix3* f) {
  if constexpr (!E::kVector) {
    throw std::logic_error("pair_rows_avx512: this pair style has no vector kernel");
  } else {
    using namespace avx512;
    const Geometry g(rows);
    const typename E::Params params = rows.params;
    const __m512d cutoff_sq = _mm512_set1_pd(params.cutoff_sq);
    const __m512d scale = _mm512_set1_pd(fixed::kScale);
    const __m512d limit_sq = _mm512_set1_pd(rows.limit_sq);
    RowsTotals totals;
    __mmask8 bad = 0;
    // A block of rows at a time: their pairs within the cutoff packed (whatever the rows'
    // lengths, the pair math then runs full vectors), their force terms computed into F, then
    // added to f row by row in scalar code (no gather/scatter of f; integer sums, so the order
    // of the adds does not matter).
    thread_local Packed packed;
    thread_local std::vector<std::int64_t> F;
    for_each_block(rows, g, cutoff_sq, begin, end, packed, [&](const Block& b) {
      const std::uint32_t n = b.packed.n;
      totals.pairs += n;
      const auto [Fx, Fy, Fz] = term_planes(F, n);
      for (std::uint32_t k = 0; k < n; k += 8) {
        const Chunk c = chunk(b.packed, k);
        // Masked-off lanes compute too (r² = 1, masked below): no traps, IEEE defaults.
        const simd::F64x8 fpair = E::template eval<simd::F64x8>(c.r2, params).fpair;
        const __m512d fs = _mm512_mul_pd(fpair.v, scale);
        const __mmask8 ok =
            _mm512_cmp_pd_mask(_mm512_mul_pd(_mm512_mul_pd(fs, fs), c.r2), limit_sq, _CMP_LT_OQ);
        bad |= c.in & ~ok;
        const __m512d s = _mm512_maskz_mov_pd(c.in & ok, fs);
        _mm512_storeu_si512(Fx + k, _mm512_cvttpd_epi64(_mm512_mul_pd(s, c.dx)));
        _mm512_storeu_si512(Fy + k, _mm512_cvttpd_epi64(_mm512_mul_pd(s, c.dy)));
        _mm512_storeu_si512(Fz + k, _mm512_cvttpd_epi64(_mm512_mul_pd(s, c.dz)));
      }
      add_terms(b, Fx, Fy, Fz, f);
    });
    totals.overflow = bad != 0;
    return totals;
  }
}

#else

template <class E>
RowsTotals pair_rows_avx512(const PairRows<E>&, std::size_t, std::size_t, Fix3*) {
  throw std::logic_error("pair_rows_avx512: not built for this CPU architecture");
}

#endif

// Every style's kernel, instantiated here (the only file compiled for this instruction set): a
// function with external linkage is always emitted, and it takes every instance's address.
namespace {
template <class... E>
auto instantiate(std::tuple<E...>*) {
  return std::tuple{&pair_rows_avx512<E>...};
}
}  // namespace
auto pair_rows_avx512_kernels() {
  return instantiate(static_cast<PairStyles*>(nullptr));
}

}  // namespace scanmd
