// Velocity-Verlet NVE integration (two half kicks around a drift), per particle.
//
//   v ← v + (dt / 2m) F        x ← x + dt v, wrapped into [0, L)       (initial_integrate)
//   ... new forces ...
//   v ← v + (dt / 2m) F                                                (final_integrate)
// F is the fixed-point force converted once to double. Each update is a function of the
// particle's own state only, so its bits do not depend on the decomposition.
//
// The per-particle updates (verlet_initial, verlet_final, moved_beyond_limit) are SCANMD_HD:
// the host loops below and the CUDA kernels (core/cuda/integrate.cu) run the same code, so
// both backends produce the same bits (no FMA contraction on either side, DESIGN.md §5).
#pragma once

#include <vector>

#include "base/box.hpp"
#include "base/fixed_point.hpp"
#include "core/lj.hpp"
#include "base/particles.hpp"

namespace scanmd {

// Half kick, drift and wrap of one particle. dtf = dt / 2m.
SCANMD_HD inline void verlet_initial(Vec3& x, Vec3& v, Int3& image, Fix3 f, double dt, double dtf,
                                     const Vec3& length) {
  v.x += dtf * fixed::to_double(f.x);
  v.y += dtf * fixed::to_double(f.y);
  v.z += dtf * fixed::to_double(f.z);
  x.x += dt * v.x;
  x.y += dt * v.y;
  x.z += dt * v.z;
  wrap(x, image, length);
}

// Second half kick of one particle.
SCANMD_HD inline void verlet_final(Vec3& v, Fix3 f, double dtf) {
  v.x += dtf * fixed::to_double(f.x);
  v.y += dtf * fixed::to_double(f.y);
  v.z += dtf * fixed::to_double(f.z);
}

// Has a particle at x moved farther than sqrt(limit_sq) from x_build (minimum image)?
SCANMD_HD inline bool moved_beyond_limit(Vec3 x, Vec3 x_build, const Box& box, double limit_sq) {
  const Vec3 d = pair_displacement(x, x_build, box.length, box.half_length);
  return d.x * d.x + d.y * d.y + d.z * d.z > limit_sq;
}

// dt / 2m of each type (0-based), the per-particle factor of both half kicks.
inline std::vector<double> half_kick_factors(double dt, const std::vector<double>& mass) {
  std::vector<double> dtf;
  for (const double m : mass) dtf.push_back(0.5 * dt / m);
  return dtf;
}

class VelocityVerlet {
 public:
  VelocityVerlet(double dt, const std::vector<double>& mass)
      : dt_(dt), dtf_(half_kick_factors(dt, mass)) {}

  double dt() const { return dt_; }
  const std::vector<double>& dtf() const { return dtf_; }

  void initial_integrate(ParticleStore& p, const Box& box) const {
    for (std::size_t i = 0; i < p.n_owned; ++i)
      verlet_initial(p.x[i], p.v[i], p.image[i], p.f[i], dt_, dtf_[p.type[i]], box.length);
  }

  void final_integrate(ParticleStore& p) const {
    for (std::size_t i = 0; i < p.n_owned; ++i) verlet_final(p.v[i], p.f[i], dtf_[p.type[i]]);
  }

 private:
  double dt_;
  std::vector<double> dtf_;
};

// Has any owned particle moved more than `limit` since the last neighbour build?
inline bool moved_beyond(const ParticleStore& p, const Box& box, double limit) {
  const double limit_sq = limit * limit;
  for (std::size_t i = 0; i < p.n_owned; ++i)
    if (moved_beyond_limit(p.x[i], p.x_build[i], box, limit_sq)) return true;
  return false;
}

}  // namespace scanmd
