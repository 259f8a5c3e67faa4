// Cosine angle (LAMMPS angle_style cosine): U(θ) = K (1 + cos θ); θ0 is not used.
#pragma once

#include <string_view>

#include "physics/bonded/angle_geometry.hpp"

namespace scanmd {

struct AngleCosine {
  static constexpr std::string_view kName = "cosine";

  SCANMD_HD static AngleTerms eval(Vec3 d1, Vec3 d2, const AngleCoeff& co) {
    const AngleGeometry g = angle_geometry(d1, d2);
    AngleTerms t;
    t.energy = co.k * (1.0 + g.c);
    angle_forces(d1, d2, g, co.k, t);
    return t;
  }
};

}  // namespace scanmd
