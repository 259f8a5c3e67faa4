// tests/engine/test_simulation.cpp — the Simulation on one rank: LAMMPS step 0, thermo conventions,
// initial velocities, energy conservation and independence of the result from the skin.
//
// Oracles:
//  * LAMMPS bench/in.lj (fcc 0.8442, 20³ cells, T 1.44, r_c 2.5, skin 0.3), step 0 as printed
//    by LAMMPS: pe = -6.773368053, press = -5.019707259, ke = 2.1599325 (= 1.5·1.44·31999/32000).
//  * Thermo definitions written here (LAMMPS `units lj`): T = Σ m v² / (3N − 3),
//    ke = Σ m v² / 2N, pe = U / N, press = (Σ m v² + W) / 3V, in long double.
//  * Physics: NVE velocity Verlet with the shifted potential conserves E to O(dt²)
//    (|ΔE| < 5e-4 per atom over 1000 steps of dt 0.005 at T 1.0 for 864 atoms).
//  * Forces depend only on pairs within r_c, summed in fixed point: a run with skin 0.3 and one
//    with skin 0.6 (different rebuild steps and pair lists) end in the same state hash.
//  * Free flight: a lone particle keeps its velocity, so after n steps its unwrapped position
//    x + image·L is x0 + n·dt·v however many box lengths a step crosses (long double), and the
//    wrapped one lies in [0, L).
//  * A particle whose drift gives a non-finite position, or one beyond the 32-bit image
//    counters, stops the run with an error naming that particle and the step.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "engine/thermo.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

using test::LD;

TEST(LammpsInLj, StepZero) {
  Communicator comm(MPI_COMM_WORLD);
  const SimulationConfig cfg;  // defaults are bench/in.lj
  ASSERT_EQ(cfg.system.cells, (std::array<int, 3>{20, 20, 20}));
  Simulation sim(comm, cfg);
  sim.setup();
  ASSERT_EQ(sim.total_particles(), 32000);
  const ThermoSample s = sim.thermo();
  EXPECT_EQ(s.step, 0);
  EXPECT_NEAR(s.pe, -6.773368053, 1e-9);
  EXPECT_NEAR(s.press, -5.0197073, 1e-6);
  EXPECT_NEAR(s.press, -5.019707259, 2e-9);  // LAMMPS prints 10 digits
  EXPECT_NEAR(s.temp, 1.44, 1e-12);
  EXPECT_NEAR(s.ke, 2.1599325, 1e-7);
  EXPECT_NEAR(s.etotal, s.pe + s.ke, 1e-14);
  RecordProperty("pe", test::sci(s.pe));
  RecordProperty("press", test::sci(s.press));
}

// Regression: the kinetic sum used to truncate every (positive) m·v² to 2^-40, biasing it low by
// ~N·2^-41 and the scaled velocities hot by ~1.8e-12 relative. The velocities themselves, summed
// in long double, must give exactly the target temperature.
TEST(LammpsInLj, StepZeroTemperatureExact) {
  Communicator comm(MPI_COMM_WORLD);
  Simulation sim(comm, SimulationConfig{});
  sim.setup();
  EXPECT_NEAR(sim.thermo().temp, 1.44, 1e-12);
  const ParticleStore& p = sim.particles();
  LD two_ke = 0;
  for (std::size_t i = 0; i < p.n_owned; ++i)
    two_ke += LD(p.v[i].x) * p.v[i].x + LD(p.v[i].y) * p.v[i].y + LD(p.v[i].z) * p.v[i].z;
  EXPECT_NEAR(static_cast<double>(two_ke / (3 * LD(p.n_owned) - 3)), 1.44, 1e-12);
}

TEST(Thermo, TemperatureUsesThreeNMinusThreeDof) {
  Communicator comm(MPI_COMM_WORLD);
  test::Rng rng(3);
  ParticleStore p;
  const double mass = 2.5;
  LD two_ke = 0;
  const int n = 37;
  for (int i = 0; i < n; ++i) {
    const Vec3 v{rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-2, 2)};
    p.push_owned(i + 1, 0, {rng.uniform(), rng.uniform(), rng.uniform()}, v, {0, 0, 0}, {0, 0, 0});
    two_ke += LD(mass) * (LD(v.x) * v.x + LD(v.y) * v.y + LD(v.z) * v.z);
  }
  const double t = kinetic_temperature(p, comm, {mass}, n);
  const LD want_t = two_ke / (3 * n - 3);
  EXPECT_NEAR(t, static_cast<double>(want_t), 1e-11 * static_cast<double>(want_t));
  // 3N dof would differ by 3/(3N) ≈ 3%: far outside the tolerance.

  bool ovf = false;
  const fixed::Wide energy = fixed::to_fixed(-123.456, ovf), virial = fixed::to_fixed(78.9, ovf);
  ASSERT_FALSE(ovf);
  const double volume = 321.0;
  const ThermoSample s = thermo_sample(17, p, comm, {mass}, n, volume, energy, virial);
  EXPECT_EQ(s.step, 17);
  EXPECT_NEAR(s.temp, static_cast<double>(want_t), 1e-11 * static_cast<double>(want_t));
  EXPECT_NEAR(s.ke, static_cast<double>(two_ke / (2 * n)), 1e-11);
  EXPECT_NEAR(s.pe, -123.456 / n, 1e-11);
  EXPECT_NEAR(s.etotal, s.pe + s.ke, 1e-13);
  EXPECT_NEAR(s.press, static_cast<double>((two_ke + LD(78.9)) / (3 * LD(volume))), 1e-11);
}

TEST(Thermo, InitialVelocitiesHaveZeroMomentumAndExactTemperature) {
  Communicator comm(MPI_COMM_WORLD);
  for (double temperature : {1.44, 0.7}) {
    SimulationConfig cfg;
    cfg.system.cells = {6, 6, 6};
    cfg.system.temperature = temperature;
    cfg.system.mass = {temperature == 1.44 ? 1.0 : 2.0};
    const LD m = cfg.system.mass[0];
    Simulation sim(comm, cfg);
    sim.setup();
    const ParticleStore& p = sim.particles();
    const long long n = sim.total_particles();
    ASSERT_EQ(n, 864);
    LD px = 0, py = 0, pz = 0, two_ke = 0, vmax = 0;
    for (std::size_t i = 0; i < p.n_owned; ++i) {
      const Vec3 v = p.v[i];
      px += m * v.x, py += m * v.y, pz += m * v.z;
      two_ke += m * (LD(v.x) * v.x + LD(v.y) * v.y + LD(v.z) * v.z);
      vmax = std::max({vmax, std::fabs(LD(v.x)), std::fabs(LD(v.y)), std::fabs(LD(v.z))});
    }
    // Net momentum per particle (mean momentum) vanishes.
    EXPECT_LT(static_cast<double>(std::fabs(px) / n), 1e-12);
    EXPECT_LT(static_cast<double>(std::fabs(py) / n), 1e-12);
    EXPECT_LT(static_cast<double>(std::fabs(pz) / n), 1e-12);
    RecordProperty("net_momentum_" + std::to_string(temperature),
                   test::sci(static_cast<double>(std::sqrt(px * px + py * py + pz * pz))));
    // Temperature with 3N − 3 dof, from the velocities (oracle) and from thermo().
    EXPECT_NEAR(static_cast<double>(two_ke / (3 * n - 3)), temperature, 1e-12 * temperature);
    EXPECT_NEAR(sim.thermo().temp, temperature, 1e-12 * temperature);
    EXPECT_GT(vmax, 0.1L);  // not degenerate
  }
}

// Zero net momentum, total (not per atom), to 1e-12: the centre-of-mass velocity comes from a
// 2^-64-resolution integer sum, so only the rounding of the subtraction remains.
TEST(Thermo, TotalMomentumBelow1em12) {
  Communicator comm(MPI_COMM_WORLD);
  SimulationConfig cfg;
  cfg.system.cells = {6, 6, 6};
  Simulation sim(comm, cfg);
  sim.setup();
  const ParticleStore& p = sim.particles();
  LD px = 0, py = 0, pz = 0;
  for (std::size_t i = 0; i < p.n_owned; ++i) px += p.v[i].x, py += p.v[i].y, pz += p.v[i].z;
  EXPECT_LT(static_cast<double>(std::sqrt(px * px + py * py + pz * pz)), 1e-12);
}

TEST(Dynamics, EnergyConservationShiftedLJ) {
  Communicator comm(MPI_COMM_WORLD);
  SimulationConfig cfg;
  cfg.system.cells = {6, 6, 6};
  cfg.system.density = 0.8442;
  cfg.system.temperature = 1.0;
  cfg.potential.shift = true;
  cfg.run.dt = 0.005;
  cfg.run.steps = 1000;
  cfg.output.thermo_every = 100;
  Simulation sim(comm, cfg);
  sim.setup();
  ASSERT_EQ(sim.total_particles(), 864);
  std::vector<ThermoSample> samples;
  sim.run([&](const ThermoSample& s) { samples.push_back(s); });
  ASSERT_EQ(samples.size(), 11u);
  ASSERT_EQ(samples.front().step, 0);
  ASSERT_EQ(samples.back().step, 1000);
  const double e0 = samples.front().etotal;
  double worst = 0;
  for (const ThermoSample& s : samples) {
    ASSERT_TRUE(std::isfinite(s.etotal));
    worst = std::max(worst, std::fabs(s.etotal - e0));
  }
  const double drift = std::fabs(samples.back().etotal - e0);
  RecordProperty("energy_drift_per_atom", test::sci(drift));
  RecordProperty("max_energy_deviation_per_atom", test::sci(worst));
  std::printf("energy drift per atom over 1000 steps: %.3e (max deviation %.3e), rebuilds %lld\n",
              drift, worst, sim.rebuilds());
  EXPECT_LT(drift, 5e-4);
  // The system did evolve: the lattice melts, so the potential energy moved a lot.
  EXPECT_GT(std::fabs(samples.back().pe - samples.front().pe), 0.1);
  EXPECT_GT(sim.rebuilds(), 5);
}

TEST(Dynamics, StateHashIndependentOfSkin) {
  Communicator comm(MPI_COMM_WORLD);
  auto run = [&](double skin, long long& rebuilds) {
    SimulationConfig cfg;
    cfg.system.cells = {8, 8, 8};
    cfg.neighbor.skin = skin;
    cfg.run.steps = 100;
    Simulation sim(comm, cfg);
    sim.setup();
    sim.run(nullptr);
    rebuilds = sim.rebuilds();
    return sim.state_hash();
  };
  long long r3 = 0, r6 = 0;
  const std::uint64_t h3 = run(0.3, r3);
  const std::uint64_t h6 = run(0.6, r6);
  EXPECT_EQ(h3, h6) << "skin changed the trajectory";
  EXPECT_NE(r3, r6) << "the two runs should rebuild on different steps";
  // And the hash does see the trajectory: a different step count differs.
  SimulationConfig cfg;
  cfg.system.cells = {8, 8, 8};
  cfg.run.steps = 99;
  Simulation sim(comm, cfg);
  sim.setup();
  sim.run(nullptr);
  EXPECT_NE(sim.state_hash(), h3);
}

}  // namespace
}  // namespace scanmd

namespace scanmd {
namespace {

// ---- particles that cross several box lengths in one step (issue 17, item 1) ----------------

TEST(Dynamics, FastParticleIsWrappedByTheFullCount) {
  Communicator comm(MPI_COMM_WORLD);
  const double L = 10.0, dt = 0.005;
  // Per step: +3.3, −2.6 and +0.41 box lengths.
  const Vec3 v{3.3 * L / dt, -2.6 * L / dt, 0.41 * L / dt};
  const Vec3 x0{1.0, 2.0, 3.0};
  SimulationConfig cfg;
  cfg.system.box = Vec3{L, L, L};
  cfg.run.dt = dt;
  cfg.run.steps = 4;
  Simulation sim(comm, cfg);
  sim.setup({{1, x0, v, {0, 0, 0}}}, 0);
  sim.run(std::function<void(const ThermoSample&)>{});
  ASSERT_EQ(sim.total_particles(), 1);
  const ParticleStore& p = sim.particles();
  ASSERT_EQ(p.n_owned, 1u);
  const double x[3] = {p.x[0].x, p.x[0].y, p.x[0].z};
  const int image[3] = {p.image[0].x, p.image[0].y, p.image[0].z};
  const double start[3] = {x0.x, x0.y, x0.z}, vel[3] = {v.x, v.y, v.z};
  for (int a = 0; a < 3; ++a) {
    SCOPED_TRACE(a);
    const LD want = LD(start[a]) + 4 * LD(dt) * LD(vel[a]);  // free flight
    EXPECT_GE(x[a], 0.0);
    EXPECT_LT(x[a], L);
    EXPECT_EQ(image[a], static_cast<int>(std::floor(want / L)));
    EXPECT_NEAR(static_cast<double>(LD(x[a]) + LD(image[a]) * L - want), 0.0, 1e-9);
  }
}

// Issue 17, item 3: positions given far outside the box (data files, restarts) are wrapped by
// the full count of box lengths, which goes into the image flags: the unwrapped position
// x + image·L is the one given, exactly (__float128 oracle), and 0 <= x < L. One whose image
// flag would leave the 32-bit range stops the setup naming the particle.
TEST(Setup, FarCoordinatesAreWrappedExactly) {
  Communicator comm(MPI_COMM_WORLD);
  const double L = 10.07757715;
  SimulationConfig cfg;
  cfg.system.box = Vec3{L, L, L};
  const std::vector<InitialParticle> given{
      {1, {2.0e10, -1.0e9, 5.0e8 + 0.25}, {0, 0, 0}, {1, -2, 0}},
      {2, {-2.1e10, 7.5, 1.0e4}, {0, 0, 0}, {-7, 3, 2000000000}},
      {3, {5.0, 5.0, 5.0}, {0, 0, 0}, {0, 0, 0}}};
  Simulation sim(comm, cfg);
  sim.setup(given, 0);
  const ParticleStore& p = sim.particles();
  ASSERT_EQ(p.n_owned, 3u);
  using Q = __float128;
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const InitialParticle& g = given[p.id[i] - 1];
    const double x[3] = {p.x[i].x, p.x[i].y, p.x[i].z}, x0[3] = {g.x.x, g.x.y, g.x.z};
    const int im[3] = {p.image[i].x, p.image[i].y, p.image[i].z},
              im0[3] = {g.image.x, g.image.y, g.image.z};
    for (int a = 0; a < 3; ++a) {
      SCOPED_TRACE(testing::Message() << "id " << p.id[i] << " axis " << a);
      EXPECT_GE(x[a], 0.0);
      EXPECT_LT(x[a], L);
      const Q residual = (Q(x[a]) + Q(im[a]) * Q(L)) - (Q(x0[a]) + Q(im0[a]) * Q(L));
      // Exact for positive coordinates (fmod); one rounding of L − |remainder| below 0.
      EXPECT_LE(std::fabs(static_cast<double>(residual)), x0[a] >= 0 ? 0.0 : std::ldexp(L, -52));
    }
  }
  for (const Vec3 bad : {Vec3{1e20, 1, 1}, Vec3{1, 2.2e10, 1}}) {
    Simulation s2(comm, cfg);
    try {
      s2.setup({{1, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}}, {2, bad, {0, 0, 0}, {0, 0, 0}}}, 0);
      ADD_FAILURE() << "no error for x = " << bad.x << " " << bad.y;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("particle 2 at x = "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("image flag would leave the 32-bit range"),
                std::string::npos)
          << e.what();
    }
  }
}

// The message of the error `sim.run()` stops with, or "no error".
std::string run_error(Simulation& sim) {
  try {
    sim.run(std::function<void(const ThermoSample&)>{});
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Dynamics, ParticleThatCannotBeWrappedStopsTheRunNamingItAndTheStep) {
  Communicator comm(MPI_COMM_WORLD);
  const double huge = std::numeric_limits<double>::max();
  struct Case {
    double dt;
    Vec3 v;  // of particle 2
    std::string expect;
  };
  for (const Case& c :
       {Case{0.005, {1e300, 0, 0}, "step 1: particle 2 moved too far to be wrapped"},
        Case{10.0, {0, -huge, 0}, "step 1: particle 2 has a non-finite position or velocity"}}) {
    SimulationConfig cfg;
    cfg.system.box = Vec3{10.0, 10.0, 10.0};
    cfg.run.dt = c.dt;
    cfg.run.steps = 3;
    Simulation sim(comm, cfg);
    sim.setup({{1, {1.0, 1.0, 1.0}, {0, 0, 0}, {0, 0, 0}}, {2, {6.0, 6.0, 6.0}, c.v, {0, 0, 0}}},
              0);
    const std::string msg = run_error(sim);
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace scanmd
