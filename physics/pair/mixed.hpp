// run.precision = "mixed": a pair style's evaluator in single precision (float32), as GROMACS's
// mixed-precision build computes its pair terms, yet bitwise reproducible on every backend.
//
// Mixed<E> is style E with its eval replaced: the driver's r² (formed in double from the
// canonical displacement, as the cutoff test already does) is rounded once to float, E's own
// eval<F> runs with F the single-precision counterpart of the driver's number type (float on
// the host's scalar loop and on the device, simd::F32x8 / F32x4 / F32x16 in the vector kernels),
// so every coefficient is rounded once to float and every operation is a float IEEE operation
// (+, −, ×, /, sqrt; no FMA: -ffp-contract=off, nvcc --fmad=false), and F/r and U are widened
// back to double (exact). From there the drivers do what they do for E: the force factor
// F/r·2^40, the overflow test, the truncation of F/r·d (d the double displacement) into the
// 64-bit fixed point, the energy and virial (F/r·r², in double) likewise. So a mixed run has its
// own state hash, the same on any rank count, method, thread count, host kernel and backend.
//
// Everything else is E's (coefficients, checks, mixing, the shift U(r_c), made in double and
// rounded to float when subtracted). Which styles have a float variant is physics/pair/styles.hpp's
// MixedPairStyles: their eval<R> is generic in R and uses only the operations above and the
// deterministic functions of det_math.hpp, which have float versions.
#pragma once

#include "kernels/hd.hpp"
#include "physics/pair/pair_style.hpp"

namespace scanmd {

// The single-precision counterpart of a driver's number type R: `type`, narrow (R → type,
// rounded to nearest) and widen (type → R, exact). double ↔ float here; the vector types of
// engine/simd.hpp specialise it (F64x8 ↔ F32x8, F64x4 ↔ F32x4).
template <class R>
struct SingleOf;

template <>
struct SingleOf<double> {
  using type = float;
  SCANMD_HD static float narrow(double x) { return static_cast<float>(x); }
  SCANMD_HD static double widen(float x) { return static_cast<double>(x); }
};

template <class E>
struct Mixed : E {
  using Double = E;  // the style in double precision (its eval<F> runs here with F single)
  static constexpr bool kMixedPrecision = true;

  template <class R>
  SCANMD_HD static PairTerms<R> eval(R r2, const typename E::Params& p) {
    using S = SingleOf<R>;
    const PairTerms<typename S::type> t = E::template eval<typename S::type>(S::narrow(r2), p);
    return {S::widen(t.fpair), S::widen(t.energy)};
  }
};

// Whether E is a Mixed<...> (the AVX-512 kernel runs its float terms 16 lanes wide).
template <class E>
concept MixedPrecisionStyle = requires {
  requires E::kMixedPrecision;
};

}  // namespace scanmd
