// Lennard-Jones 12-6 pair math, the one source shared by the host and CUDA backends.
//
//   U(r)   = 4ε[(σ/r)^12 − (σ/r)^6] − U_shift,        r < r_c
//   F(r)/r = 24ε[2(σ/r)^12 − (σ/r)^6] / r²           (the "fpair" of LAMMPS)
// With lj1 = 48εσ^12, lj2 = 24εσ^6, lj3 = 4εσ^12, lj4 = 4εσ^6 (LAMMPS' names):
//   r6inv = 1/r^6,  fpair = r6inv (lj1 r6inv − lj2) / r²,  U = r6inv (lj3 r6inv − lj4) − shift.
// Only +, −, × and one IEEE division: no sqrt, no transcendental function, so host and
// device agree to the bit when nvcc is told --fmad=false (DESIGN.md §5).
//
// Pair displacement: d = x_a − x_b from wrapped coordinates in [0, L), then one conditional
// ±L per axis (minimum image). Both terms are exact negations when a and b swap, so every
// rank that computes a pair gets the same bits for it, whichever particle it holds as "i".
// In a box shorter than 2R along an axis (PairImages::Explicit) a pair can interact through
// several images, so the shift of the listed images is used instead: x_a − x_b − (S_b − S_a)·L,
// the same bits as the minimum image whenever that is the listed image (|S_b − S_a| <= 1).
#pragma once

#include <cstdint>

#include "base/vec3.hpp"

namespace scanmd {

struct LJParams {
  double lj1, lj2, lj3, lj4;
  double cutoff_sq;
  double energy_shift;  // U_LJ(r_c) when the potential is shifted, else 0

  static LJParams make(double epsilon, double sigma, double cutoff, bool shift) {
    LJParams p{};
    const double s6 = sigma * sigma * sigma * sigma * sigma * sigma;
    p.lj1 = 48.0 * epsilon * s6 * s6;
    p.lj2 = 24.0 * epsilon * s6;
    p.lj3 = 4.0 * epsilon * s6 * s6;
    p.lj4 = 4.0 * epsilon * s6;
    p.cutoff_sq = cutoff * cutoff;
    p.energy_shift = 0.0;
    if (shift) {
      const double r2inv = 1.0 / p.cutoff_sq;
      const double r6inv = r2inv * r2inv * r2inv;
      p.energy_shift = r6inv * (p.lj3 * r6inv - p.lj4);
    }
    return p;
  }
};

// The LJ constants of every pair of types: entry ti · types + tj (0-based types, symmetric).
// Device code gets the same struct with a device pointer.
struct PairTable {
  const LJParams* params;
  std::uint32_t types;
  SCANMD_HD const LJParams& of(std::uint32_t ti, std::uint32_t tj) const {
    return params[ti * types + tj];
  }
};

struct PairTerms {
  double fpair;   // F(r)/r
  double energy;  // U(r)
};

SCANMD_HD inline PairTerms lj_pair(double r2, const LJParams& p) {
  const double r2inv = 1.0 / r2;
  const double r6inv = r2inv * r2inv * r2inv;
  const double forcelj = r6inv * (p.lj1 * r6inv - p.lj2);
  return {forcelj * r2inv, r6inv * (p.lj3 * r6inv - p.lj4) - p.energy_shift};
}

// Minimum image of one component of x_a − x_b, with both in [0, L): |d| < L, so one
// correction suffices.
SCANMD_HD inline double minimum_image(double d, double length, double half_length) {
  if (d > half_length) return d - length;
  if (d < -half_length) return d + length;
  return d;
}

SCANMD_HD inline Vec3 pair_displacement(Vec3 a, Vec3 b, Vec3 length, Vec3 half_length) {
  return {minimum_image(a.x - b.x, length.x, half_length.x),
          minimum_image(a.y - b.y, length.y, half_length.y),
          minimum_image(a.z - b.z, length.z, half_length.z)};
}

// The displacement of the images x_a + S_a·L and x_b + S_b·L (PairImages::Explicit).
SCANMD_HD inline Vec3 image_displacement(Vec3 a, Vec3 b, Int3 shift_a, Int3 shift_b, Vec3 length) {
  return {(a.x - b.x) - (shift_b.x - shift_a.x) * length.x,
          (a.y - b.y) - (shift_b.y - shift_a.y) * length.y,
          (a.z - b.z) - (shift_b.z - shift_a.z) * length.z};
}

}  // namespace scanmd
