// One bonded term's fixed-point results, shared by the host compute (engine/bonded_forces.cpp)
// and the CUDA kernel (engine/cuda/bonded.cu), so that both do the same IEEE operations in the
// same order (SCANMD_HD; nvcc --fmad=false) and get the same bits:
//
//   BondedTerm    a listed term: its atoms' indices (owned, then ghosts), type, and which of its
//                 atoms' forces and whether its energy are added on this rank (the listing of
//                 engine/bonded_forces.hpp)
//   bond_terms    the canonical displacement d = x_i − x_j (base/box.hpp) and the style's
//                 {fbond, energy, bad}; the caller may add a special_bonds pair share to fbond
//   bond_fixed    the force on i in fixed point (−F on j), energy and virial r·F = fbond r²
//   angle_fixed   the forces on the two ends in fixed point, the vertex's −(F1 + F3) (momentum
//                 exact), energy and virial d1·f1 + d2·f3
// Every conversion is fixed::to_fixed (truncated, overflow reported in `overflow`).
#pragma once

#include <cstdint>

#include "base/box.hpp"
#include "base/fixed_point.hpp"
#include "base/vec3.hpp"
#include "kernels/hd.hpp"
#include "physics/bonded/bonded_style.hpp"

namespace scanmd {

struct BondedTerm {
  std::uint32_t at[3];  // bond: lower id first; angle: end, vertex, end
  std::uint32_t type;   // 1-based
  std::uint8_t atoms;   // 2 or 3
  std::uint8_t apply;   // bit n: add the force of atom n here
  bool energy;          // add its energy and virial here
};

struct BondGeometry {
  Vec3 d;      // x_i − x_j, minimum image
  double rsq;  // |d|²
};

SCANMD_HD inline Fix3 to_fixed3(Vec3 v, bool& overflow) {
  return Fix3{fixed::to_fixed(v.x, overflow), fixed::to_fixed(v.y, overflow),
              fixed::to_fixed(v.z, overflow)};
}

SCANMD_HD inline BondGeometry bond_geometry(Vec3 xi, Vec3 xj, Vec3 length, Vec3 half_length) {
  const Vec3 d = pair_displacement(xi, xj, length, half_length);
  return {d, d.x * d.x + d.y * d.y + d.z * d.z};
}

struct BondFixed {
  Fix3 f;  // on i (−f on j)
  std::int64_t energy = 0, virial = 0;
};

// `b`: the style's terms (fbond possibly with a special_bonds pair share added).
SCANMD_HD inline BondFixed bond_fixed(const BondGeometry& g, const BondTerms& b, bool with_energy,
                                      bool& overflow) {
  BondFixed out;
  out.f = to_fixed3({b.fbond * g.d.x, b.fbond * g.d.y, b.fbond * g.d.z}, overflow);
  if (with_energy) {
    out.energy = fixed::to_fixed(b.energy, overflow);
    out.virial = fixed::to_fixed(b.fbond * g.rsq, overflow);
  }
  return out;
}

struct AngleFixed {
  Fix3 f1, f2, f3;  // ends and vertex
  std::int64_t energy = 0, virial = 0;
};

template <class Angle>
SCANMD_HD inline AngleFixed angle_fixed(Vec3 xi, Vec3 xj, Vec3 xk, Vec3 length, Vec3 half_length,
                                        const AngleCoeff& coeff, bool with_energy, bool& overflow) {
  const Vec3 d1 = pair_displacement(xi, xj, length, half_length);
  const Vec3 d2 = pair_displacement(xk, xj, length, half_length);
  const AngleTerms a = Angle::eval(d1, d2, coeff);
  AngleFixed out;
  out.f1 = to_fixed3(a.f1, overflow);
  out.f3 = to_fixed3(a.f3, overflow);
  out.f2 = Fix3{-(out.f1.x + out.f3.x), -(out.f1.y + out.f3.y), -(out.f1.z + out.f3.z)};
  if (with_energy) {
    out.energy = fixed::to_fixed(a.energy, overflow);
    const double w = d1.x * a.f1.x + d1.y * a.f1.y + d1.z * a.f1.z + d2.x * a.f3.x + d2.y * a.f3.y +
                     d2.z * a.f3.z;
    out.virial = fixed::to_fixed(w, overflow);
  }
  return out;
}

}  // namespace scanmd
