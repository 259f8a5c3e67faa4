// The virtual decomposition (`scanmd model`) against real runs, under mpiexec -n P.
//
// Oracle 1: the real run. For every method, P ranks set up the same fcc melt; each rank's
// import count at the first rebuild (Simulation::imports()) and its pair count within the
// cutoff (Simulation::local_pairs()) must equal, rank by rank, what model_decomposition()
// computes for P virtual ranks in one process from the same positions.
// The bytes each rank sends per step too (the run's halo plan: ImportCounts::bytes_per_step).
// Oracle 2: the analytic column equals ρ·V from the DESIGN.md §4 formulas, written out here
// independently of decomposition/rank_grid.cpp (balanced: the mean over the boxes of each's own).
// Oracle 3: balanced by particles and by pairs (a slab, the grid left to choose), the model
// picks the real run's grid and cut planes, and its imports and pairs per rank equal the real
// run's after its setup balance step.
#include <mpi.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "base/communicator.hpp"
#include "engine/lattice.hpp"
#include "engine/simulation.hpp"
#include "model/virtual_decomposition.hpp"

namespace scanmd {
namespace {

double oracle_volume(Method m, Vec3 b, double R) {
  constexpr double pi = std::numbers::pi;
  const double faces = b.x * b.y + b.y * b.z + b.z * b.x, edges = b.x + b.y + b.z;
  switch (m) {
    case Method::HalfShell:
      return R * faces + pi / 2 * R * R * edges + 2.0 / 3 * pi * R * R * R;
    case Method::NeutralTerritory:
      return 2 * R * b.x * b.y + R * (b.x + b.y) * b.z + pi / 2 * R * R * b.z;
    case Method::FullShell:
      return 2 * R * faces + pi * R * R * edges + 4.0 / 3 * pi * R * R * R;
    case Method::EighthShell:
    case Method::Midpoint:
      return R * faces + pi / 4 * R * R * edges + pi / 6 * R * R * R;
  }
  return -1;
}

TEST(ModelVsRun, ImportsAndPairsPerRankEqualTheRealRun) {
  Communicator comm(MPI_COMM_WORLD);
  SimulationConfig config;
  config.system.cells = {8, 8, 8};  // 2048 particles, L = 13.4 ≥ 2R
  config.run.steps = 0;
  const FccLattice lattice = FccLattice::from_density(config.system.density, config.system.cells);
  std::vector<Vec3> positions(lattice.site_count());
  lattice.for_each_site(
      {0, 0, 0}, lattice.box().length, [](Vec3) { return true; },
      [&](std::uint64_t id, Vec3 x) { positions[id - 1] = x; });
  for (Method m : kAllMethods) {
    config.decomposition.method = m;
    Simulation sim(comm, config);
    sim.setup();
    ASSERT_FALSE(sim.imports().empty());
    const std::vector<long long>& imports = sim.imports().front().per_rank;
    const std::vector<long long> pairs = comm.all_gather(sim.local_pairs());

    const ModelResult model = model_decomposition(positions, sim.box(), m, config.potential.cutoff,
                                                  config.neighbor.skin, comm.size());
    EXPECT_EQ(model.grid, sim.grid().dims()) << method_name(m);
    ASSERT_EQ(model.imports_per_rank.size(), imports.size());
    const std::vector<ImportCounts>& counts = sim.imports().front().per_rank_counts;
    ASSERT_EQ(counts.size(), imports.size());
    for (std::size_t r = 0; r < imports.size(); ++r) {
      EXPECT_EQ(model.imports_per_rank[r], imports[r]) << method_name(m) << " rank " << r;
      EXPECT_EQ(model.pairs_per_rank[r], pairs[r]) << method_name(m) << " rank " << r;
      // The bytes the rank sends per step (positions forward, forces back where the method
      // has a reverse exchange), as the run's halo plan counts them.
      EXPECT_EQ(model.bytes_per_rank[r], counts[r].bytes_per_step)
          << method_name(m) << " rank " << r;
    }
    const double density = static_cast<double>(positions.size()) / sim.box().volume();
    const double R = config.potential.cutoff + config.neighbor.skin;
    EXPECT_NEAR(model.analytic, density * oracle_volume(m, model.box_edge, R),
                1e-9 * model.analytic)
        << method_name(m);
  }
}

TEST(ModelVsRun, BalancedModelEqualsTheRealRunsSetupBalance) {
  Communicator comm(MPI_COMM_WORLD);
  SimulationConfig config;
  config.system.density = 0.73;
  config.system.cells = {6, 6, 16};  // box 10.6 x 10.6 x 28.2, a slab 8 <= z < 20
  config.region.style = RegionStyle::Slab;
  config.region.axis = 2;
  config.region.lo = 8.0;
  config.region.hi = 20.0;
  config.potential.shift = true;
  config.run.steps = 0;
  const FccLattice lattice = FccLattice::from_density(config.system.density, config.system.cells);
  auto in_region = [&](Vec3 x) { return config.region.contains(x); };
  std::vector<Vec3> positions(lattice.count_in(in_region));
  lattice.for_each_site_in(
      in_region, {0, 0, 0}, lattice.box().length, [](Vec3) { return true; },
      [&](std::uint64_t id, Vec3 x) { positions[id - 1] = x; });
  const double R = config.potential.cutoff + config.neighbor.skin;
  for (Method m : kAllMethods)
    for (Balance b : {Balance::Particles, Balance::Pairs}) {
      SCOPED_TRACE(std::string(method_name(m)) + " balance " +
                   std::string(name_of<Balance>(kBalanceNames, b)));
      config.decomposition.method = m;
      config.decomposition.balance = b;
      Simulation sim(comm, config);
      sim.setup();
      const std::vector<long long>& imports = sim.imports().back().per_rank;
      const std::vector<long long> pairs = comm.all_gather(sim.local_pairs());
      ModelOptions options;
      options.balance = b;
      options.tolerance = config.decomposition.balance_tolerance;
      const ModelResult model =
          model_decomposition(positions, sim.box(), m, config.potential.cutoff,
                              config.neighbor.skin, comm.size(), options);
      EXPECT_EQ(model.grid, sim.grid().dims());
      EXPECT_TRUE(model.cuts == sim.grid().cuts()) << "cut planes";
      ASSERT_EQ(model.imports_per_rank.size(), imports.size());
      for (std::size_t r = 0; r < imports.size(); ++r) {
        EXPECT_EQ(model.imports_per_rank[r], imports[r]) << "rank " << r;
        EXPECT_EQ(model.pairs_per_rank[r], pairs[r]) << "rank " << r;
      }
      double analytic = 0;
      for (int r = 0; r < sim.grid().size(); ++r)
        analytic += oracle_volume(m, sim.grid().box_length(sim.grid().coord_of(r)), R);
      analytic *= static_cast<double>(positions.size()) / sim.box().volume() / sim.grid().size();
      EXPECT_NEAR(model.analytic, analytic, 1e-9 * analytic);
      if (comm.size() > 1 && b == Balance::Pairs) {
        EXPECT_LE(static_cast<double>(model.pairs.max) / model.pairs.mean, 1.10)
            << "the slab balanced";
      }
    }
}

}  // namespace
}  // namespace scanmd
