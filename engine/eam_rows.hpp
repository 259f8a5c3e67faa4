// The AVX-512 rows of the EAM compute's two passes (engine/eam_forces.hpp): a block of rows at a
// time, their pairs within the cutoff packed, eight pairs per vector, any number of atom types
// (alloys: each lane's tables by its pair of types), minimum-image boxes, no energy (thermo
// steps run the scalar loop). Every operation is the scalar loop's, lane by lane (no fused multiply-add; IEEE square
// root and division; to_fixed rounding by the default rounding mode as llrint), so the two give
// the same bits. eam_rows_avx512.cpp is compiled with -mavx512f -mavx512dq and called only when
// the CPU has them (PairKernel::Avx512).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/vec3.hpp"
#include "physics/manybody/eam.hpp"

namespace scanmd {

struct EamRows {
  const std::uint32_t* offsets;
  const std::uint32_t* neighbors;
  const Vec3* x;
  const std::uint32_t* type;  // per particle (read with several types)
  Vec3 length, half_length;
  EamView v;
  double limit_sq;      // the force term bound (pair_term_limit_sq)
  std::size_t n_owned;  // with owned_only (full shell): no density terms to ghosts
  bool owned_only;
  bool gather = false;  // the positions by gathers (PositionLoads, engine/pair_kernel.hpp)
};

// Density terms of rows [begin, end) added to rho. False when a term is beyond the vector
// path's range (|ρ| · 2^40 ≥ 2^52): the caller reruns the scalar loop.
bool eam_density_avx512(const EamRows& rows, std::size_t begin, std::size_t end, std::int64_t* rho);

struct EamRowsTotals {
  long long pairs = 0;
  bool overflow = false;  // a force term out of range: the caller reruns the scalar loop
};

// Forces of rows [begin, end) added to f (F to i, −F to j).
EamRowsTotals eam_forces_avx512(const EamRows& rows, std::size_t begin, std::size_t end,
                                const double* fp, Fix3* f);

}  // namespace scanmd
