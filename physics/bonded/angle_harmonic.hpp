// Harmonic angle (LAMMPS angle_style harmonic): U(θ) = K (θ − θ0)², no ½, as LAMMPS writes it;
// θ0 is given in degrees and held in radians. θ from det::acos; near 0 and π, 1/sin θ is
// bounded by LAMMPS's SMALL = 0.001.
#pragma once

#include <string_view>

#include "physics/bonded/angle_geometry.hpp"
#include "physics/bonded/det_acos.hpp"

namespace scanmd {

struct AngleHarmonic {
  static constexpr std::string_view kName = "harmonic";

  SCANMD_HD static AngleTerms eval(Vec3 d1, Vec3 d2, const AngleCoeff& co) {
    const AngleGeometry g = angle_geometry(d1, d2);
    double s = det::sqrt_of(1.0 - g.c * g.c);
    if (s < 0.001) s = 0.001;
    s = 1.0 / s;
    const double dtheta = det::acos(g.c) - co.theta0;
    const double tk = co.k * dtheta;
    AngleTerms t;
    t.energy = tk * dtheta;
    const double a = -2.0 * tk * s;
    angle_forces(d1, d2, g, a, t);
    return t;
  }
};

}  // namespace scanmd
