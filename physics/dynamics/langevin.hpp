// The Langevin thermostat's force on one particle, shared by the host and CUDA backends.
//
//   F = γ1 v + γ2 (u − ½) per axis,   γ1 = −m/τ,   γ2 = √(24 m T / (τ dt))
// as LAMMPS `fix langevin T T τ seed` (uniform noise with the variance of 2 m T / (τ dt)).
// u ∈ [0, 1) are the top 53 bits of Philox4x64-10 (Random123) with counter (id, step, 0, 0) and
// key (seed, "scanmd-L"), scaled by 2^-53 (exact): a pure function of (seed, id, step), so the
// trajectory is the same bits whatever the rank count, decomposition, backend or restart.
//
// Where it acts: in the two half kicks of velocity Verlet, with the velocity at hand —
//   v(n+½) = v(n) + dt/2m [F_pair(n) + F_L(v(n), n)]          first half kick (counter n)
//   v(n+1) = v(n+½) + dt/2m [F_pair(n+1) + F_L(v(n+½), n+1)]  second half kick (counter n+1)
// The random part of one step is the same in both kicks, as in LAMMPS; the drag uses the
// velocity the kick starts from (LAMMPS keeps the second kick's force for the next first kick).
// Nothing but (x, v) carries over between steps, so a restart continues bit for bit.
// The thermostat's work W = Σ F_L·(v + v')/2 · dt/2 per kick (exactly its share of the kinetic
// energy change) is summed in fixed point: econs = etotal − W/N is conserved.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include <Random123/philox.h>

#include "base/fixed_point.hpp"
#include "base/units.hpp"
#include "base/vec3.hpp"

namespace scanmd {

// γ1 and γ2 of each type for masses m_t, target T, damping τ and time step dt, in force units
// as LAMMPS FixLangevin: γ1 = −m/τ/ftm2v, γ2 = √m √(24 k_B T/(τ dt mvv2e)) / ftm2v (every
// constant 1 in lj: the same bits as without them).
inline void langevin_coefficients(const std::vector<double>& mass, double temperature,
                                  double damping, double dt, std::vector<double>& drag,
                                  std::vector<double>& noise, const UnitConstants& u = {}) {
  drag.clear();
  noise.clear();
  for (const double m : mass) {
    drag.push_back(-m / damping / u.ftm2v);
    noise.push_back(std::sqrt(m) *
                    std::sqrt(24.0 * u.boltz * temperature / damping / dt / u.mvv2e) / u.ftm2v);
  }
}

// Per-type coefficients (device or host arrays) and the seed. Inactive when drag is null.
struct LangevinView {
  const double* drag = nullptr;   // γ1 = −m/τ per type
  const double* noise = nullptr;  // γ2 = √(24 m T / (τ dt)) per type
  std::uint64_t seed = 0;
  SCANMD_HD bool active() const { return drag != nullptr; }
};

inline constexpr std::uint64_t kLangevinStream = 0x7363616e6d642d4cull;  // "scanmd-L"

// Three uniforms in [−½, ½) for (seed, id, step).
SCANMD_HD inline Vec3 langevin_noise(std::uint64_t seed, std::uint64_t id, std::uint64_t step) {
  r123::Philox4x64 rng;
  const r123::Philox4x64::ctr_type ctr = {{id, step, 0, 0}};
  const r123::Philox4x64::key_type key = {{seed, kLangevinStream}};
  const r123::Philox4x64::ctr_type r = rng(ctr, key);
  constexpr double k = 1.0 / 9007199254740992.0;  // 2^-53
  return {static_cast<double>(r[0] >> 11) * k - 0.5, static_cast<double>(r[1] >> 11) * k - 0.5,
          static_cast<double>(r[2] >> 11) * k - 0.5};
}

// The force for the noise u of (seed, id, step) (langevin_noise).
SCANMD_HD inline Vec3 langevin_force_of(const LangevinView& l, std::uint32_t type, Vec3 u, Vec3 v) {
  const double g1 = l.drag[type], g2 = l.noise[type];
  return {g1 * v.x + g2 * u.x, g1 * v.y + g2 * u.y, g1 * v.z + g2 * u.z};
}

SCANMD_HD inline Vec3 langevin_force(const LangevinView& l, std::uint32_t type, std::uint64_t id,
                                     std::uint64_t step, Vec3 v) {
  return langevin_force_of(l, type, langevin_noise(l.seed, id, step), v);
}

// One half kick with the Langevin force for the noise u of (seed, id, step): v += dtf (F + F_L),
// dtf = dt·ftm2v/2m. Returns the thermostat's work F_L · (v + v')/2 · half_dt of this kick
// (half_dt = dt/2).
SCANMD_HD inline double langevin_kick_with(Vec3& v, Fix3 f, double dtf, double half_dt,
                                           const LangevinView& l, std::uint32_t type, Vec3 u) {
  const Vec3 fl = langevin_force_of(l, type, u, v);
  const Vec3 v0 = v;
  v.x += dtf * (fixed::to_double(f.x) + fl.x);
  v.y += dtf * (fixed::to_double(f.y) + fl.y);
  v.z += dtf * (fixed::to_double(f.z) + fl.z);
  return (fl.x * (v0.x + v.x) + fl.y * (v0.y + v.y) + fl.z * (v0.z + v.z)) * 0.5 * half_dt;
}

// The same with the noise of (l.seed, id, step).
SCANMD_HD inline double langevin_kick(Vec3& v, Fix3 f, double dtf, double half_dt,
                                      const LangevinView& l, std::uint32_t type, std::uint64_t id,
                                      std::uint64_t step) {
  return langevin_kick_with(v, f, dtf, half_dt, l, type, langevin_noise(l.seed, id, step));
}

}  // namespace scanmd
