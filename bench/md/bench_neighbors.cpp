// bench/md/bench_neighbors.cpp — the CUDA neighbour-list build, segmented-scan placement vs
// atomic row counters (engine/cuda/neighbors.cu), on one rank and one GPU.
//
// Configuration: fcc lattice at density ρ (default the MDPairLJ deck: 1.0, cells 20×20×40 =
// 64 000), every site displaced uniformly in ±0.15 (counter-based, so reproducible), R = 2.9
// (r_cut 2.5 + buffer 0.4), half shell. The host builds the halo exactly as a rebuild does
// (Domain::redistribute: migrate, cell order, ghosts), uploads it once (DeviceParticles), and
// each placement variant builds cells (DeviceCellList) and list (DeviceNeighborList) `reps`
// times; the device time of the binning and of the list build (CUDA events, BuildTimer) is
// reported as the median over the repetitions, with the entry counts of both variants (they
// must agree). Without a usable GPU it prints why and exits 0.
//
// Usage: bench_md_neighbors [nx ny nz] [reps] [density]
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/communicator.hpp"
#include "base/particles.hpp"
#include "decomposition/rank_grid.hpp"
#include "engine/cuda/device_cell_list.hpp"
#include "engine/cuda/device_flags.hpp"
#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/device_neighbor_list.hpp"
#include "engine/cuda/device_particles.hpp"
#include "engine/cuda/device_selection.hpp"
#include "engine/cuda/device_timing.hpp"
#include "engine/domain.hpp"
#include "engine/lattice.hpp"
#include "engine/velocities.hpp"

namespace {

using namespace scanmd;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

int run(int argc, char** argv) {
  std::array<int, 3> cells{20, 20, 40};
  int reps = 20;
  double density = 1.0;
  if (argc >= 4)
    for (int a = 0; a < 3; ++a) cells[a] = std::atoi(argv[1 + a]);
  if (argc >= 5) reps = std::max(1, std::atoi(argv[4]));
  if (argc >= 6) density = std::atof(argv[5]);
  const double R = 2.5 + 0.4;  // cutoff + skin

  Communicator comm;
  if (comm.size() != 1) {
    std::fprintf(stderr, "bench_md_neighbors runs on one rank\n");
    return 2;
  }
  std::string why;
  if (!select_device(comm, &why)) {
    std::printf("bench_md_neighbors: skipped, no CUDA device: %s\n", why.c_str());
    return 0;
  }
  if (std::getenv("SCANMD_CUDA_NL_FILL")) unsetenv("SCANMD_CUDA_NL_FILL");  // compare both

  const FccLattice lattice = FccLattice::from_density(density, cells);
  const Box box = lattice.box();
  const RankGrid grid({1, 1, 1}, box);
  Domain domain(comm, grid, box, Method::HalfShell, R);
  ParticleStore p;
  const Int3 c{0, 0, 0};
  lattice.for_each_site(
      grid.lo(c), grid.hi(c), [](Vec3) { return true; },
      [&](std::uint64_t id, Vec3 x) {
        Vec3 q{x.x + 0.3 * (counter_uniform(7, id, 0) - 0.5),
               x.y + 0.3 * (counter_uniform(7, id, 1) - 0.5),
               x.z + 0.3 * (counter_uniform(7, id, 2) - 0.5)};
        Int3 image{0, 0, 0};
        wrap(q, image, box.length);
        p.push_owned(id, 0, q, {0, 0, 0}, image, c);
      });
  domain.take_census(p);
  Timers host_timers;
  domain.redistribute(p, 0, host_timers);
  const PairRule rule{Method::HalfShell, c, grid.cuts()};

  using namespace cuda_step;
  Stream stream;
  DeviceFlagsMirror flags;
  Scratch scratch;
  DeviceParticles particles;
  particles.upload(p, stream.get());

  std::printf(
      "bench_md_neighbors: %zu particles (%zu owned + %zu ghosts), R = %.2f, density %g, "
      "%d repetitions\n",
      p.size(), p.n_owned, p.n_ghost(), R, density, reps);
  double best = 0;
  const char* best_name = "";
  std::uint64_t entries[2] = {0, 0};
  int k = 0;
  for (NeighborFill fill : {NeighborFill::SegmentedScan, NeighborFill::AtomicCounters}) {
    DeviceCellList cell_list(domain.cell_grid(), box.length);
    DeviceNeighborList list(fill);
    BuildTimer timer;
    auto build = [&] {
      timer.mark(0, stream.get());
      cell_list.build(particles, scratch, flags.device(), stream.get());
      timer.mark(1, stream.get());
      list.build(particles, cell_list, rule, R, scratch, flags.device(), stream.get());
      timer.mark(2, stream.get());
      flags.fetch(stream.get());
      return timer.read(list.size());
    };
    build();  // warm-up: allocations, first touch
    std::vector<double> cells_ms, nl_ms;
    for (int r = 0; r < reps; ++r) {
      const BuildTimes t = build();
      cells_ms.push_back(t.cells_ms);
      nl_ms.push_back(t.neighbors_ms);
      entries[k] = t.entries;
    }
    const char* name = fill == NeighborFill::SegmentedScan ? "segmented-scan" : "atomic";
    const double nl = median(nl_ms);
    std::printf("  %-15s neighbour list %8.3f ms   (binning %7.3f ms)   %llu entries\n", name, nl,
                median(cells_ms), static_cast<unsigned long long>(entries[k]));
    if (k == 0 || nl < best) best = nl, best_name = name;
    ++k;
  }
  std::printf("  faster placement: %s%s\n", best_name,
              entries[0] == entries[1] ? "" : "   MISMATCH: entry counts differ");
  return entries[0] == entries[1] ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanmd::MpiRuntime mpi(argc, argv);
  int rc = 1;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_md_neighbors: %s\n", e.what());
    rc = 1;
  }
  return rc;
}
