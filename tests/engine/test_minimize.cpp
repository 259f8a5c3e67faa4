// tests/engine/test_minimize.cpp — what Simulation::minimize (engine/minimize.cpp) hands to the
// dynamics: the relaxed positions, the velocities of the start, and every State field of every
// particle (molecule ids, topology, the DPD pair velocity: whatever a compute keeps per particle)
// as it was, found again by id after the particles were rebuilt. Oracle: the start's own values.
// The pair velocity of dpd/tstat is the State field used here (the deck refuses [minimize] with
// DPD; the API does not, so the field's path can be checked).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "engine/force_compute.hpp"
#include "engine/simulation.hpp"

namespace scanmd {
namespace {

struct Saved {
  Vec3 x, v;
  std::vector<std::uint64_t> state;
};

std::map<std::uint64_t, Saved> by_id(const ParticleStore& p) {
  std::map<std::uint64_t, Saved> out;
  const std::size_t width = p.fields.state_words();
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    Saved s{p.x[i], p.v[i], std::vector<std::uint64_t>(width)};
    p.fields.pack_state(i, s.state.data());
    out[p.id[i]] = s;
  }
  return out;
}

TEST(Minimize, KeepsVelocitiesAndStateFields) {
  Communicator comm(MPI_COMM_WORLD);
  SimulationConfig cfg;
  cfg.system.cells = {4, 4, 4};
  cfg.system.temperature = 1.5;
  cfg.run.steps = 0;
  cfg.thermostat.style = ThermostatStyle::DpdTstat;  // a State field: the pair velocity
  cfg.thermostat.temperature = 1.0;
  cfg.thermostat.gamma = 4.5;
  cfg.minimize.ftol = 0.0;
  cfg.minimize.max_steps = 30;
  Simulation sim(comm, cfg);
  sim.setup();
  const std::map<std::uint64_t, Saved> before = by_id(sim.particles());
  ASSERT_GT(sim.particles().fields.state_words(), 0u);
  const MinimizeResult r = sim.minimize(nullptr, 0);
  EXPECT_EQ(r.iterations, 30);
  const std::map<std::uint64_t, Saved> after = by_id(sim.particles());
  ASSERT_EQ(after.size(), before.size());
  int moved = 0;
  for (const auto& [id, b] : before) {
    const Saved& a = after.at(id);
    if (a.x.x != b.x.x || a.x.y != b.x.y || a.x.z != b.x.z) ++moved;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a.v.x), std::bit_cast<std::uint64_t>(b.v.x)) << id;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a.v.z), std::bit_cast<std::uint64_t>(b.v.z)) << id;
    EXPECT_EQ(a.state, b.state) << "particle " << id << ": its State words changed";
  }
  EXPECT_GT(moved, 0);  // the minimiser moved them (the dpd/tstat forces are not zero)
}

}  // namespace
}  // namespace scanmd
