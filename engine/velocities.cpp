#include "engine/velocities.hpp"

#include <algorithm>
#include <cmath>

#include "base/fixed_point.hpp"
#include "engine/thermo.hpp"

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

namespace {

// The scale 2^e of the momentum sum: each term m·v·2^e is truncated to an integer and summed in
// 128 bits, exact and order-independent. 2^64 as long as the largest term keeps at least 52
// integer bits and n of them fit (masses from about 1e-7 to 1e26 at a million particles): the
// sum is then exact for every draw; lighter species get a finer scale, heavier a coarser one,
// so the momentum is removed to the rounding of the subtraction whatever the mass.
int momentum_exponent(const std::vector<double>& mass, long long n_total) {
  double largest = 0.0;  // |m v| < m · ½ · m^-1/2 (1 + 2^-52)
  for (const double m : mass) largest = std::max(largest, 0.5 * m / std::sqrt(m));
  const double n = static_cast<double>(std::max(n_total, 1LL));
  int e = 64;
  while (e > -2000 && std::ldexp(largest * n, e) >= 0x1p124) --e;
  while (e < 2000 && std::ldexp(largest, e) < 0x1p52 && std::ldexp(largest * n, e + 1) < 0x1p124)
    ++e;
  return e;
}

}  // namespace

void create_velocities(ParticleStore& p, const Communicator& comm, std::uint64_t seed,
                       double temperature, const std::vector<double>& mass, long long n_total,
                       const UnitConstants& units) {
  // The momentum is summed in 2^-e units (2^-64 for ordinary masses, momentum_exponent) in
  // 128-bit integers: exact and order-independent, and fine enough that the centre-of-mass
  // velocity it gives leaves a net momentum at the rounding level of the subtraction (~1e-14
  // for 10^4..10^5 particles). The total mass comes from the particle count of each type.
  const int e = momentum_exponent(mass, n_total);
  const std::size_t types = mass.size();
  std::vector<fixed::Wide> sums(3 + types, 0);  // momentum x, y, z; then particles per type
  std::vector<double> inv_sqrt_mass;
  for (const double m : mass) inv_sqrt_mass.push_back(1.0 / std::sqrt(m));
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const std::uint64_t id = p.id[i];
    const double m = mass[p.type[i]], s = inv_sqrt_mass[p.type[i]];
    // Heavier species start slower, as in LAMMPS `velocity create` (factor 1/√m; 1 for m = 1).
    p.v[i] = {(counter_uniform(seed, id, 0) - 0.5) * s, (counter_uniform(seed, id, 1) - 0.5) * s,
              (counter_uniform(seed, id, 2) - 0.5) * s};
    sums[0] += static_cast<fixed::Wide>(std::ldexp(m * p.v[i].x, e));
    sums[1] += static_cast<fixed::Wide>(std::ldexp(m * p.v[i].y, e));
    sums[2] += static_cast<fixed::Wide>(std::ldexp(m * p.v[i].z, e));
    ++sums[3 + p.type[i]];
  }
  comm.sum(std::span<fixed::Wide>(sums));
  // One species: m·N; several: Σ N_t m_t over the types in order (exact counts, one rounding per
  // product). Should it overflow (masses near 1e308), everything is taken relative to the
  // heaviest species.
  double total_mass = 0.0, unit = 1.0;
  auto mass_sum = [&] {
    double sum = 0.0;
    for (std::size_t t = 0; t < types; ++t)
      sum += static_cast<double>(sums[3 + t]) * (mass[t] / unit);
    return types == 1 ? (mass[0] / unit) * static_cast<double>(n_total) : sum;
  };
  total_mass = mass_sum();
  if (!std::isfinite(total_mass)) {
    unit = *std::max_element(mass.begin(), mass.end());
    total_mass = mass_sum();
  }
  const Vec3 vcm{std::ldexp(static_cast<double>(sums[0]), -e) / unit / total_mass,
                 std::ldexp(static_cast<double>(sums[1]), -e) / unit / total_mass,
                 std::ldexp(static_cast<double>(sums[2]), -e) / unit / total_mass};
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    p.v[i].x -= vcm.x;
    p.v[i].y -= vcm.y;
    p.v[i].z -= vcm.z;
  }
  if (n_total < 2) return;
  const double t_now = kinetic_temperature(p, comm, mass, n_total, units);
  const double scale = t_now > 0.0 ? std::sqrt(temperature / t_now) : 0.0;
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    p.v[i].x *= scale;
    p.v[i].y *= scale;
    p.v[i].z *= scale;
  }
}

}  // namespace scanmd
