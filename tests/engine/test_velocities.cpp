// tests/engine/test_velocities.cpp — the initial velocities (engine/velocities.hpp) for any mass.
//
// Oracles, in long double from the velocities themselves:
//  * temperature Σ m v² / (3N − 3) equals the one asked for (to 1e-11 relative);
//  * the net momentum |Σ m v| vanishes relative to Σ |m v| (to 1e-12): the centre-of-mass
//    velocity was removed, whatever the masses (issue 17, item 2: masses of 1e-13 gave T = 0 or
//    a kinetic overflow, the per-type total mass being summed in 2^-40 units).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/communicator.hpp"
#include "base/particles.hpp"
#include "engine/velocities.hpp"

namespace scanmd {
namespace {

using LD = long double;

TEST(Velocities, ExactTemperatureAndZeroMomentumForAnyMass) {
  Communicator comm(MPI_COMM_WORLD);
  const std::vector<std::vector<double>> cases{
      {1.0},          {2.0},      {1e-13},      {1e-12},         {1e-30},
      {1e-300},       {1e40},     {1e300},      {1e-13, 1e-13},  {1e-12, 1e-12},
      {1e-13, 3e-13}, {1.0, 2.0}, {1.0, 1e-30}, {1e300, 1e-300}, {0.3, 7.0, 1e-9}};
  const double temperature = 1.44;
  const int n = 500;
  for (const std::vector<double>& mass : cases) {
    testing::Message name;
    for (const double m : mass) name << m << " ";
    SCOPED_TRACE(name << "(masses)");
    ParticleStore p;
    for (int i = 0; i < n; ++i)
      p.push_owned(i + 1, static_cast<std::uint32_t>(i % mass.size()), {0, 0, 0}, {0, 0, 0},
                   {0, 0, 0}, {0, 0, 0});
    ASSERT_NO_THROW(create_velocities(p, comm, 87287, temperature, mass, n));
    LD P[3] = {0, 0, 0}, A[3] = {0, 0, 0}, two_ke = 0;
    for (int i = 0; i < n; ++i) {
      const LD m = mass[p.type[i]];
      const LD v[3] = {p.v[i].x, p.v[i].y, p.v[i].z};
      for (int a = 0; a < 3; ++a) {
        ASSERT_TRUE(std::isfinite(static_cast<double>(v[a])));
        P[a] += m * v[a];
        A[a] += std::fabs(m * v[a]);
        two_ke += m * v[a] * v[a];
      }
    }
    EXPECT_NEAR(static_cast<double>(two_ke / (3 * n - 3)), temperature, 1e-11 * temperature);
    for (int a = 0; a < 3; ++a) {
      ASSERT_GT(A[a], 0);
      EXPECT_LT(static_cast<double>(std::fabs(P[a]) / A[a]), 1e-12) << "axis " << a;
    }
  }
}

}  // namespace
}  // namespace scanmd
