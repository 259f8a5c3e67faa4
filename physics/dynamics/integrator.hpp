// Velocity-Verlet NVE integration (two half kicks around a drift), per particle.
//
//   v ← v + (dt / 2m) F        x ← x + dt v, wrapped into [0, L)       (initial_integrate)
//   ... new forces ...
//   v ← v + (dt / 2m) F                                                (final_integrate)
// F is the fixed-point force converted once to double. Each update is a function of the
// particle's own state only, so its bits do not depend on the decomposition.
//
// The per-particle updates (verlet_initial, verlet_final, moved_beyond_limit) are SCANMD_HD:
// the host loops below and the CUDA kernels (engine/cuda/integrate.cu) run the same code, so
// both backends produce the same bits (no FMA contraction on either side, DESIGN.md §5).
//
// After the drift every position must lie in [0, L): the wrap brings back a particle however
// far it moved (base/box.hpp), so only a non-finite position or velocity, or a move of more
// than 2^31 box lengths (the image counter's range), fails the test. Both backends then stop
// with bad_position_message (physics/dynamics/step_errors.hpp) naming the particle (the host at once, the CUDA backend through
// its flags); the caller adds the step and the rank.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/box.hpp"
#include "base/fixed_point.hpp"
#include "base/particles.hpp"
#include "base/units.hpp"
#include "physics/dynamics/langevin.hpp"
#include "physics/dynamics/langevin_avx512.hpp"
#include "physics/dynamics/step_errors.hpp"

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

// The same with the Langevin force (physics/dynamics/langevin.hpp) in the kick, for the noise u
// of (seed, id, step); returns the thermostat's work of the kick.
SCANMD_HD inline double verlet_initial_langevin_with(Vec3& x, Vec3& v, Int3& image, Fix3 f,
                                                     double dt, double dtf, const Vec3& length,
                                                     const LangevinView& l, std::uint32_t type,
                                                     Vec3 u) {
  const double work = langevin_kick_with(v, f, dtf, 0.5 * dt, l, type, u);
  x.x += dt * v.x;
  x.y += dt * v.y;
  x.z += dt * v.z;
  wrap(x, image, length);
  return work;
}

SCANMD_HD inline double verlet_initial_langevin(Vec3& x, Vec3& v, Int3& image, Fix3 f, double dt,
                                                double dtf, const Vec3& length,
                                                const LangevinView& l, std::uint32_t type,
                                                std::uint64_t id, std::uint64_t step) {
  return verlet_initial_langevin_with(x, v, image, f, dt, dtf, length, l, type,
                                      langevin_noise(l.seed, id, step));
}

// Second half kick of one particle.
SCANMD_HD inline void verlet_final(Vec3& v, Fix3 f, double dtf) {
  v.x += dtf * fixed::to_double(f.x);
  v.y += dtf * fixed::to_double(f.y);
  v.z += dtf * fixed::to_double(f.z);
}

// Nosé–Hoover's velocity scaling of one particle.
SCANMD_HD inline void scale_velocity(Vec3& v, double factor) {
  v.x *= factor;
  v.y *= factor;
  v.z *= factor;
}

// Has a particle at x moved farther than sqrt(limit_sq) from x_build (minimum image)? With
// explicit pair images, a wrap counts as a move (raw difference: it jumps by L > skin), so the
// list is rebuilt before the build's image shifts go stale.
SCANMD_HD inline bool moved_beyond_limit(Vec3 x, Vec3 x_build, const Box& box, double limit_sq,
                                         PairImages images) {
  const Vec3 d = images == PairImages::Explicit
                     ? Vec3{x.x - x_build.x, x.y - x_build.y, x.z - x_build.z}
                     : pair_displacement(x, x_build, box.length, box.half_length);
  return d.x * d.x + d.y * d.y + d.z * d.z > limit_sq;
}

// dt·ftm2v / 2m of each type (0-based), the per-particle factor of both half kicks (LAMMPS
// FixNVE: dtf = ½ dt ftm2v, dtfm = dtf / m). ftm2v = 1 in lj: the same bits as dt / 2m.
inline double half_kick_factor(double dt, double m, double ftm2v = 1.0) {
  return 0.5 * dt * ftm2v / m;
}
inline std::vector<double> half_kick_factors(double dt, const std::vector<double>& mass,
                                             double ftm2v = 1.0) {
  std::vector<double> dtf;
  for (const double m : mass) dtf.push_back(half_kick_factor(dt, m, ftm2v));
  return dtf;
}

// Velocity Verlet over the owned particles, with the Langevin force in the kicks when it is
// switched on (langevin()); `step` is the counter of the kick's random numbers.
class VelocityVerlet {
 public:
  VelocityVerlet(double dt, const std::vector<double>& mass, const UnitConstants& units = {})
      : dt_(dt), units_(units), mass_(mass), dtf_(half_kick_factors(dt, mass, units.ftm2v)) {}

  void langevin(double temperature, double damping, std::uint64_t seed) {
    langevin_coefficients(mass_, temperature, damping, dt_, drag_, noise_, units_);
    seed_ = seed;
    kept_.step = kNoStep;
  }

  double dt() const { return dt_; }
  const std::vector<double>& dtf() const { return dtf_; }
  // The fused pass (final_then_initial, with or without the Langevin force) in AVX-512 blocks
  // where the CPU has it (default), or scalar only (the tests' oracle): the same bits.
  void use_vector(bool on) { vector_ = on && fused_kick_avx512_available(); }
  bool vector() const { return vector_; }

  // Returns the Langevin work of the kick (0 without it), fixed point. Throws
  // std::runtime_error (bad_position_message) when a particle cannot be wrapped into the box.
  // Both passes run on the rank's OpenMP threads (physics/dynamics/integrator.cpp); per particle they are
  // independent, and the work is summed in fixed point, so the bits do not depend on threads.
  fixed::Wide initial_integrate(ParticleStore& p, const Box& box, std::uint64_t step) const;
  fixed::Wide final_integrate(ParticleStore& p, std::uint64_t step) const;
  // final_integrate(p, step) and then initial_integrate(p, box, step) in one pass over the
  // particles (the same bits: each particle's two kicks and drift in the same order, the
  // Langevin noise of `step` drawn once for both, each kick's work converted on its own).
  // With `moved`: the skin test of moved_beyond(p, box, limit, images) too, in the same pass
  // (*moved set to its result; left unset when the pass throws).
  fixed::Wide final_then_initial(ParticleStore& p, const Box& box, std::uint64_t step,
                                 bool* moved = nullptr, double limit = 0.0,
                                 PairImages images = PairImages::Minimum) const;

 private:
  LangevinView view() const { return {drag_.data(), noise_.data(), seed_}; }
  static void check_positions(const ParticleStore& p, std::size_t bad) {
    if (bad < p.n_owned)
      throw std::runtime_error(bad_position_message(p.id[bad], p.x[bad], p.v[bad]));
  }
  static fixed::Wide checked(fixed::Wide w, bool overflow) {
    if (overflow)
      throw std::overflow_error("Langevin thermostat work overflow: velocities blew up");
    return w;
  }

  double dt_;
  UnitConstants units_;
  std::vector<double> mass_, dtf_;
  std::vector<double> drag_, noise_;  // Langevin γ1, γ2 per type; empty: off
  std::uint64_t seed_ = 0;
  bool vector_ = fused_kick_avx512_available();

  // The noise of the second kick, kept for the first kick of the next step, which draws the
  // same numbers (counter step + 1 both): u of the particle with id[i] at `step`. The first
  // kick takes u[i] where the particle at i still has that id (none moved between the two
  // kicks), and draws the rest: the numbers are a pure function of (seed, id, step) either way.
  static constexpr std::uint64_t kNoStep = ~std::uint64_t{0};
  struct KeptNoise {
    std::uint64_t step = kNoStep;
    std::vector<std::uint64_t> id;
    std::vector<Vec3> u;
  };
  mutable KeptNoise kept_;
};

// Has any owned particle moved more than `limit` since the last neighbour build?
bool moved_beyond(const ParticleStore& p, const Box& box, double limit, PairImages images);

}  // namespace scanmd
