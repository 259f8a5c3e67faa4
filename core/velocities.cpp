#include "core/velocities.hpp"

#include <cmath>

#include "base/fixed_point.hpp"
#include "core/thermo.hpp"

namespace scanmd {

namespace {
std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

double counter_uniform(std::uint64_t seed, std::uint64_t id, std::uint64_t stream) {
  const std::uint64_t h = splitmix(splitmix(splitmix(seed) ^ id) ^ stream);
  return static_cast<double>(h >> 11) * 0x1p-53;
}

void create_velocities(ParticleStore& p, const Communicator& comm, std::uint64_t seed,
                       double temperature, const std::vector<double>& mass, long long n_total) {
  // The momentum is summed in 2^-64 units in 128-bit integers: exact and order-independent,
  // and fine enough that the centre-of-mass velocity it gives leaves a net momentum at the
  // rounding level of the subtraction (~1e-14 for 10^4..10^5 particles), not of 2^-40 terms.
  constexpr double kMomentumScale = 18446744073709551616.0;  // 2^64
  fixed::Wide momentum[3] = {0, 0, 0};
  fixed::Wide mass_sum = 0;  // Σ m in 2^-40 units
  std::vector<double> inv_sqrt_mass;
  for (const double m : mass) inv_sqrt_mass.push_back(1.0 / std::sqrt(m));
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const std::uint64_t id = p.id[i];
    const double m = mass[p.type[i]], s = inv_sqrt_mass[p.type[i]];
    // Heavier species start slower, as in LAMMPS `velocity create` (factor 1/√m; 1 for m = 1).
    p.v[i] = {(counter_uniform(seed, id, 0) - 0.5) * s, (counter_uniform(seed, id, 1) - 0.5) * s,
              (counter_uniform(seed, id, 2) - 0.5) * s};
    // |m v| < 2^62 for any sane mass: the scaled terms fit 128 bits with room for 10^9 of them.
    momentum[0] += static_cast<fixed::Wide>(m * p.v[i].x * kMomentumScale);
    momentum[1] += static_cast<fixed::Wide>(m * p.v[i].y * kMomentumScale);
    momentum[2] += static_cast<fixed::Wide>(m * p.v[i].z * kMomentumScale);
    mass_sum += static_cast<fixed::Wide>(m * fixed::kScale);
  }
  comm.sum(std::span<fixed::Wide>(momentum, 3));
  // One species: m·N exactly as before (the sum would round m to 2^-40).
  const double total_mass = mass.size() == 1 ? mass[0] * static_cast<double>(n_total)
                                             : fixed::to_double(comm.sum(mass_sum));
  const Vec3 vcm{static_cast<double>(momentum[0]) / kMomentumScale / total_mass,
                 static_cast<double>(momentum[1]) / kMomentumScale / total_mass,
                 static_cast<double>(momentum[2]) / kMomentumScale / total_mass};
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    p.v[i].x -= vcm.x;
    p.v[i].y -= vcm.y;
    p.v[i].z -= vcm.z;
  }
  if (n_total < 2) return;
  const double t_now = kinetic_temperature(p, comm, mass, n_total);
  const double scale = t_now > 0.0 ? std::sqrt(temperature / t_now) : 0.0;
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    p.v[i].x *= scale;
    p.v[i].y *= scale;
    p.v[i].z *= scale;
  }
}

}  // namespace scanmd
