// Velocity-Verlet NVE integration (two half kicks around a drift), per particle.
//
//   v ← v + (dt / 2m) F        x ← x + dt v, wrapped into [0, L)       (initial_integrate)
//   ... new forces ...
//   v ← v + (dt / 2m) F                                                (final_integrate)
// F is the fixed-point force converted once to double. Each update is a function of the
// particle's own state only, so its bits do not depend on the decomposition.
#pragma once

#include "core/box.hpp"
#include "core/fixed_point.hpp"
#include "core/lj.hpp"
#include "core/particles.hpp"

namespace scanmd {

class VelocityVerlet {
 public:
  VelocityVerlet(double dt, double mass) : dt_(dt), dtf_(0.5 * dt / mass) {}

  void initial_integrate(ParticleStore& p, const Box& box) const {
    for (std::size_t i = 0; i < p.n_owned; ++i) {
      Vec3& v = p.v[i];
      Vec3& x = p.x[i];
      const Fix3 f = p.f[i];
      v.x += dtf_ * fixed::to_double(f.x);
      v.y += dtf_ * fixed::to_double(f.y);
      v.z += dtf_ * fixed::to_double(f.z);
      x.x += dt_ * v.x;
      x.y += dt_ * v.y;
      x.z += dt_ * v.z;
      wrap(x, p.image[i], box.length);
    }
  }

  void final_integrate(ParticleStore& p) const {
    for (std::size_t i = 0; i < p.n_owned; ++i) {
      const Fix3 f = p.f[i];
      p.v[i].x += dtf_ * fixed::to_double(f.x);
      p.v[i].y += dtf_ * fixed::to_double(f.y);
      p.v[i].z += dtf_ * fixed::to_double(f.z);
    }
  }

 private:
  double dt_, dtf_;
};

// Has any owned particle moved more than `limit` since the last neighbour build?
inline bool moved_beyond(const ParticleStore& p, const Box& box, double limit) {
  const double limit_sq = limit * limit;
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const Vec3 d = pair_displacement(p.x[i], p.x_build[i], box.length, box.half_length);
    if (d.x * d.x + d.y * d.y + d.z * d.z > limit_sq) return true;
  }
  return false;
}

}  // namespace scanmd
