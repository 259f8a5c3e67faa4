// The geometry every angle style shares, in LAMMPS's order of operations (angle_harmonic.cpp):
// r1, r2, cos θ clamped to [−1, 1], and the forces of a = −dU/d(cos θ)·(…) as
//   a11 = a c / r1², a12 = −a / (r1 r2), a22 = a c / r2²,
//   f1 = a11 d1 + a12 d2,   f3 = a22 d2 + a12 d1.
#pragma once

#include "physics/bonded/bonded_style.hpp"
#include "physics/pair/det_math.hpp"

namespace scanmd {

SCANMD_HD inline AngleGeometry angle_geometry(Vec3 d1, Vec3 d2) {
  AngleGeometry g;
  g.rsq1 = d1.x * d1.x + d1.y * d1.y + d1.z * d1.z;
  g.r1 = det::sqrt_of(g.rsq1);
  g.rsq2 = d2.x * d2.x + d2.y * d2.y + d2.z * d2.z;
  g.r2 = det::sqrt_of(g.rsq2);
  double c = d1.x * d2.x + d1.y * d2.y + d1.z * d2.z;
  c /= g.r1 * g.r2;
  if (c > 1.0) c = 1.0;
  if (c < -1.0) c = -1.0;
  g.c = c;
  return g;
}

SCANMD_HD inline void angle_forces(Vec3 d1, Vec3 d2, const AngleGeometry& g, double a,
                                   AngleTerms& t) {
  const double a11 = a * g.c / g.rsq1;
  const double a12 = -a / (g.r1 * g.r2);
  const double a22 = a * g.c / g.rsq2;
  t.f1 = {a11 * d1.x + a12 * d2.x, a11 * d1.y + a12 * d2.y, a11 * d1.z + a12 * d2.z};
  t.f3 = {a22 * d2.x + a12 * d1.x, a22 * d2.y + a12 * d1.y, a22 * d2.z + a12 * d1.z};
}

}  // namespace scanmd
