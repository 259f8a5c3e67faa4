// FENE bonds of the force-only pass, eight per AVX-512 vector (engine/bond_fene_avx512.cpp):
// the same IEEE operations in the same order as BondFene::eval, bond_geometry and bond_fixed
// (no FMA), so the same bits as the scalar loop of engine/bonded_forces.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/vec3.hpp"
#include "physics/bonded/bonded_style.hpp"
#include "physics/bonded/bonded_terms.hpp"

namespace scanmd {

// The fixed-point force on the first atom of each of the `count` (1..8) bonds `terms` (the
// second atom's is its negation), into fx, fy, fz[0..count). `coeff`: the bond types' FENE
// coefficients (type t at coeff[t − 1]; every type of the terms has one). Returns false, with
// nothing defined in the outputs, when a bond of the block needs the scalar path: a bad bond
// (rlogarg <= −3) or a force beyond the fixed point's range; the caller then computes the block
// with the scalar loop, which reports it.
bool fene_forces_avx512(const Vec3* x, const BondedTerm* terms, std::size_t count,
                        const BondCoeff* coeff, Vec3 length, Vec3 half_length, std::int64_t* fx,
                        std::int64_t* fy, std::int64_t* fz);

}  // namespace scanmd
