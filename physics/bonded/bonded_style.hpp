// The evaluator contract of the bonded styles (one header per style, as the pair styles of
// physics/pair/): a per-type coefficient struct made once from the deck, and a SCANMD_HD
// `eval` the host and CUDA drivers template over, written with +, −, ×, /, IEEE sqrt and the
// deterministic det::log / det::acos only, so every backend gets the same bits.
//
//   bond   eval(r², coeff, with_energy = true) → {fbond, energy, bad}: the force on i is fbond·d
//          with d = x_i − x_j (LAMMPS's sign: F_i = delx·fbond), −fbond·d on j; `bad` when the
//          bond has stretched beyond what the style can hold (FENE: r ≥ 2 R0, LAMMPS's "Bad
//          FENE bond"); without energy the style may skip it (FENE's log), fbond the same bits
//   angle  eval(d1, d2, coeff) with d1 = x_i − x_j, d2 = x_k − x_j (j the vertex) → {f1, f3,
//          energy}: F_i = f1, F_k = f3, F_j = −(f1 + f3), as LAMMPS angle styles
#pragma once

#include "base/vec3.hpp"
#include "kernels/hd.hpp"

namespace scanmd {

// The coefficients of one bond type (each style reads those it names).
struct BondCoeff {
  double k = 0.0, r0 = 0.0, epsilon = 0.0, sigma = 0.0;
};

struct BondTerms {
  double fbond = 0.0;
  double energy = 0.0;
  bool bad = false;
};

// The coefficients of one angle type: k, and theta0 in radians (the deck gives degrees).
struct AngleCoeff {
  double k = 0.0, theta0 = 0.0;
};

struct AngleTerms {
  Vec3 f1{}, f3{};
  double energy = 0.0;
};

// cos θ of the angle between d1 and d2, clamped to [−1, 1], with r1, r2 (LAMMPS's order of
// operations).
struct AngleGeometry {
  double rsq1, rsq2, r1, r2, c;
};

}  // namespace scanmd
