// tests/gpu/test_cuda_backend.cpp — the CUDA time step against the host one (label `gpu`).
//
// Oracle: the host backend of the same Simulation, same deck, same communicator. DESIGN.md §5
// promises the same bits, so everything is compared exactly: state hash, every thermo sample
// (temp, pe, ke, press as doubles), rebuild and pair counts, ghost counts per rebuild, and the
// fixed-point forces of every particle. Both rebuild paths of the CUDA backend (on the device,
// and through the host: SCANMD_CUDA_REBUILD=host) are compared. The neighbour list must hold the same
// entries as the host list (a set of (row, neighbour) index pairs; row order may differ).
// Error paths: overlapping particles (at setup, and arising mid-run: the same message as the
// host's, distance included, at the step of the force call), a particle that cannot be wrapped
// (the host's message), a kinetic overflow name the particle ids; a particle crossing several
// box lengths per step is wrapped by the full count, as on the host. Every test skips with "no CUDA device: <reason>" without a usable GPU, except
// WithoutDeviceFailsCleanly, which checks exactly that case. The same binary runs on one rank
// (ctest, gpu_sim) and on two under mpiexec (gpu_sim.np2, the tests that make sense there);
// CudaSanitize.* is the short run tests/gpu/sanitize.sh hands to compute-sanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "engine/cuda/device_selection.hpp"
#if defined(SCANMD_TEST_DEVICE_API)  // the backend's internals: a build with CUDA, or the emulator
#include "decomposition/census.hpp"
#include "decomposition/export_selection.hpp"
#include "engine/cuda/device_flags.hpp"
#include "engine/cuda/device_halo.hpp"
#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/device_migration.hpp"
#include "engine/cuda/device_particles.hpp"
#include "engine/domain.hpp"
#endif
#if defined(SCANMD_TEST_EMU)
namespace scanmd_emu {  // tests/emu/cuda_emu.hpp: what the emulated device was asked to do
struct OpCounts {
  unsigned long long launches = 0, memsets = 0, copies = 0;
};
OpCounts op_counts();
}  // namespace scanmd_emu
#endif
#include "engine/simulation.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

// Where the EAM files are: $LAMMPS_POTENTIALS (as the deck reader looks, so a GPU machine
// without Debian's lammps-data can be given them: scripts/gpu-check.sh does), else Debian's
// /usr/share/lammps/potentials.
std::string potentials_dir() {
  if (const char* env = std::getenv("LAMMPS_POTENTIALS");
      env != nullptr && std::filesystem::exists(std::string(env) + "/Cu_u3.eam"))
    return env;
  return "/usr/share/lammps/potentials";
}

std::string no_gpu_reason() {
  std::string why;
  return device_usable(&why) ? std::string() : why.empty() ? "unknown reason" : why;
}

// Order-independent checksum of the owned particles' fixed-point forces, keyed by id, summed
// over ranks (wrapping uint64 sums).
std::uint64_t force_checksum(const Communicator& comm, const Simulation& sim) {
  const ParticleStore& p = sim.particles();
  std::uint64_t local = 0;
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    std::uint64_t h = p.id[i] * 0x9e3779b97f4a7c15ull;
    for (std::int64_t c : {p.f[i].x, p.f[i].y, p.f[i].z}) {
      h ^= static_cast<std::uint64_t>(c) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    }
    local += h;
  }
  std::uint64_t total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, comm.get());
  return total;
}

struct RunResult {
  std::uint64_t hash = 0;
  std::uint64_t forces = 0;
  std::vector<ThermoSample> thermo;
  long long rebuilds = 0;
  long long pairs = 0;
  std::vector<std::array<long long, 4>> imports;  // step, ghosts, tower, plate of this rank
};

std::vector<std::array<long long, 4>> import_record(const Communicator& comm,
                                                    const Simulation& sim) {
  std::vector<std::array<long long, 4>> out;
  for (const ImportSnapshot& s : sim.imports()) {
    const ImportCounts& c = s.per_rank_counts[comm.rank()];
    out.push_back({s.step, c.ghosts, c.tower, c.plate});
  }
  return out;
}

RunResult run(const Communicator& comm, SimulationConfig cfg, Backend backend) {
  cfg.run.backend = backend;
  Simulation sim(comm, cfg);
  sim.setup();
  RunResult r;
  sim.run([&](const ThermoSample& s) { r.thermo.push_back(s); });
  r.hash = sim.state_hash();
  r.forces = force_checksum(comm, sim);
  r.rebuilds = sim.rebuilds();
  r.pairs = comm.sum(sim.local_pairs());
  r.imports = import_record(comm, sim);
  return r;
}

void expect_same_run(const RunResult& host, const RunResult& cuda) {
  EXPECT_EQ(cuda.hash, host.hash);
  EXPECT_EQ(cuda.forces, host.forces);
  EXPECT_EQ(cuda.rebuilds, host.rebuilds);
  EXPECT_EQ(cuda.pairs, host.pairs);
  EXPECT_TRUE(cuda.imports == host.imports) << "ghost counts per rebuild differ";
  ASSERT_EQ(cuda.thermo.size(), host.thermo.size());
  for (std::size_t k = 0; k < host.thermo.size(); ++k) {
    const ThermoSample &h = host.thermo[k], &c = cuda.thermo[k];
    EXPECT_EQ(c.step, h.step);
    // Bitwise: the same integers were summed.
    EXPECT_EQ(std::bit_cast<std::uint64_t>(c.temp), std::bit_cast<std::uint64_t>(h.temp))
        << "step " << h.step << ": temp " << c.temp << " vs " << h.temp;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(c.pe), std::bit_cast<std::uint64_t>(h.pe))
        << "step " << h.step << ": pe " << c.pe << " vs " << h.pe;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(c.press), std::bit_cast<std::uint64_t>(h.press))
        << "step " << h.step << ": press " << c.press << " vs " << h.press;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(c.econs), std::bit_cast<std::uint64_t>(h.econs))
        << "step " << h.step << ": econs " << c.econs << " vs " << h.econs;
  }
}

// The Kob–Andersen pair table (types 1 and 2, no mixing) with masses 1 and 2, at density 1.2.
void kob_andersen(SimulationConfig& cfg, std::vector<double> fractions) {
  cfg.system.density = 1.2;
  cfg.system.type_fractions = std::move(fractions);
  cfg.system.mass = {1.0, 2.0};
  cfg.potential.mixing = Mixing::None;
  cfg.potential.pairs = {test::lj_pair({1, 1}, 1.0, 1.0, 2.5), test::lj_pair({1, 2}, 1.5, 0.8, 2.0),
                         test::lj_pair({2, 2}, 0.5, 0.88, 2.2)};
}

// SCANMD_TEST_SMALL=1 (scripts/test.sh sets it for the sanitizer pass): the 864-particle melts
// below (6 fcc cells a side) run at 256 (4 cells, the size of CudaSanitize.*), and the long box of
// RebuildCopiesNoParticlesToTheHost at 640 instead of 2880 per rank, so that
// AddressSanitizer and UBSan still watch every configuration of every test (each method, fill,
// pair style, thermostat and rebuild path) in half the time. The Release build runs the full
// sizes, where the bits are compared; the 32000-particle and list-entry tests are not run under
// the sanitizers (tests/emu/CMakeLists.txt). (The 500-particle EAM crystal stays: at 4 cells its
// box is under 2.5 R, and the runs take longer.)
bool small_sizes() {
  static const bool small = [] {
    const char* env = std::getenv("SCANMD_TEST_SMALL");
    return env != nullptr && std::string_view(env) == "1";
  }();
  return small;
}

SimulationConfig melt(int cells, long long steps, long long thermo_every) {
  SimulationConfig cfg;  // LAMMPS bench/in.lj: density 0.8442, T 1.44, r_c 2.5, skin 0.3
  if (small_sizes() && cells == 6) cells = 4;
  cfg.system.cells = {cells, cells, cells};
  cfg.run.steps = steps;
  cfg.output.thermo_every = thermo_every;
  return cfg;
}

// ---- bitwise equality with the host -------------------------------------------------------

TEST(CudaBackend, HashEqualsHostMelt864) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  const SimulationConfig cfg = melt(6, 100, 10);
  const RunResult host = run(comm, cfg, Backend::Host);
  const RunResult cuda = run(comm, cfg, Backend::Cuda);
  EXPECT_GT(host.rebuilds, 2);  // the rebuild path runs several times
  expect_same_run(host, cuda);
  RecordProperty("state_hash", std::to_string(cuda.hash));
  // Rebuilds on the device (the default), and through the host as well.
  SimulationConfig host_rebuilds = cfg;
  host_rebuilds.cuda.device_rebuild = false;
  expect_same_run(host, run(comm, host_rebuilds, Backend::Cuda));
}

TEST(CudaBackend, HashEqualsHostMelt32000) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  // 50 steps: the first rebuilds of the melting lattice (the device's multi-block scans and
  // sorts at this size run at every one; the 864-atom tests run the longer trajectories).
  const SimulationConfig cfg = melt(20, 50, 25);
  const RunResult host = run(comm, cfg, Backend::Host);
  EXPECT_GT(host.rebuilds, 1);
  expect_same_run(host, run(comm, cfg, Backend::Cuda));
}

// Every decomposition method (their pair rules run on the device), and the atomic placement.
TEST(CudaBackend, HashEqualsHostAllMethodsAndFills) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (Method m : kAllMethods)
    for (NeighborFill fill : {NeighborFill::SegmentedScan, NeighborFill::AtomicCounters}) {
      SCOPED_TRACE(std::string(method_name(m)) +
                   (fill == NeighborFill::SegmentedScan ? " segmented" : " atomic"));
      SimulationConfig cfg = melt(6, 40, 5);
      cfg.decomposition.method = m;
      cfg.cuda.fill = fill;
      cfg.potential.shift = m == Method::Midpoint;  // the shifted potential too
      const RunResult host = run(comm, cfg, Backend::Host);
      expect_same_run(host, run(comm, cfg, Backend::Cuda));
      cfg.cuda.device_rebuild = false;  // one rank: also every rebuild through the host
      if (comm.size() == 1) expect_same_run(host, run(comm, cfg, Backend::Cuda));
    }
}

// Two species (the Kob–Andersen mixture, masses 1 and 2): the pair table, per-type half kicks and
// kinetic energy on the device; ghosts carry their types through both rebuild paths.
TEST(CudaBackend, HashEqualsHostTwoSpecies) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (Method m : {Method::HalfShell, Method::FullShell, Method::NeutralTerritory}) {
    SCOPED_TRACE(std::string(method_name(m)));
    SimulationConfig cfg = melt(6, 60, 5);
    kob_andersen(cfg, {0.8, 0.2});
    cfg.system.temperature = 1.0;
    cfg.potential.shift = m != Method::HalfShell;
    cfg.decomposition.method = m;
    const RunResult host = run(comm, cfg, Backend::Host);
    EXPECT_GT(host.rebuilds, 2);
    expect_same_run(host, run(comm, cfg, Backend::Cuda));
    cfg.cuda.device_rebuild = false;
    if (comm.size() == 1) expect_same_run(host, run(comm, cfg, Backend::Cuda));
  }
}

// A LAMMPS pair table file of LJ 12-6 from r = 0.6 to 2.5 in three sections: LJ (its own r
// column), LJ_R and LJ_RSQ (spacings); its path (in the temporary directory, one per process).
std::string write_lj_table() {
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("scanmd_lj_{}.table", ::getpid()))
          .string();
  std::ofstream out(path);
  for (const char* section : {"LJ", "LJ_R", "LJ_RSQ"}) {
    const int n = 600;
    const std::string_view name(section);
    out << fmt::format("{}\nN {}{}\n\n", name, n,
                       name == "LJ_R"     ? " R 0.6 2.5"
                       : name == "LJ_RSQ" ? " RSQ 0.6 2.5"
                                          : "");
    for (int i = 0; i < n; ++i) {
      const double r = name == "LJ_RSQ" ? std::sqrt(0.36 + (6.25 - 0.36) * i / (n - 1))
                                        : 0.6 + (2.5 - 0.6) * i / (n - 1);
      const double s6 = 1 / (r * r * r * r * r * r);
      out << fmt::format("{} {:.17g} {:.17g} {:.17g}\n", i + 1, r, 4 * (s6 * s6 - s6),
                         24 * (2 * s6 * s6 - s6) / r);
    }
    out << "\n";
  }
  return path;
}

// Every pair style beyond LJ through the CUDA driver: Morse (sqrt and det::exp on the device) on
// one species and on two (the typed kernel, every pair listed), shifted, on three methods; then
// each other style on one species, and the table style on one and two.
TEST(CudaBackend, HashEqualsHostPairStyles) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (Method m : {Method::HalfShell, Method::FullShell, Method::NeutralTerritory}) {
    for (const bool two : {false, true}) {
      SCOPED_TRACE(std::string(method_name(m)) + (two ? " morse, two species" : " morse"));
      SimulationConfig cfg = melt(6, 60, 5);
      cfg.system.temperature = 1.2;
      cfg.potential.style = "morse";
      cfg.potential.cutoff = 2.0;
      cfg.potential.shift = true;
      cfg.decomposition.method = m;
      if (two) {
        cfg.system.type_fractions = {0.7, 0.3};
        cfg.system.mass = {63.55, 58.69};
        cfg.system.mass = {1.0, 2.0};
        cfg.potential.pairs = {{{1, 1}, {{"d0", 1.0}, {"alpha", 5.0}, {"r0", 1.0}}, {}},
                               {{1, 2}, {{"d0", 1.5}, {"alpha", 4.0}, {"r0", 0.9}}, {}},
                               {{2, 2}, {{"d0", 0.5}, {"alpha", 6.0}, {"r0", 1.1}}, 2.2}};
      } else {
        cfg.potential.coeffs = {{"d0", 1.0}, {"alpha", 5.0}, {"r0", 1.0}};
      }
      const RunResult host = run(comm, cfg, Backend::Host);
      EXPECT_GT(host.rebuilds, 2);
      expect_same_run(host, run(comm, cfg, Backend::Cuda));
    }
  }
  struct Style {
    const char* name;
    CoefficientValues coeffs;
    double cutoff;
  };
  for (const Style& st :
       {Style{"lj/smooth/linear", {{"epsilon", 1.0}, {"sigma", 1.0}}, 2.5},
        Style{"yukawa", {{"a", 1.0}, {"kappa", 2.0}}, 2.5},
        Style{"gauss", {{"a", -1.0}, {"b", 1.0}}, 2.5},
        Style{"buck", {{"a", 1000.0}, {"rho", 0.2}, {"c", 1.0}}, 2.5},
        Style{"mie/cut",
              {{"epsilon", 1.0}, {"sigma", 1.0}, {"gamma_r", 14.0}, {"gamma_a", 6.5}},
              2.5},
        Style{"soft", {{"a", 10.0}}, 1.0},
        Style{"lj96/cut", {{"epsilon", 1.0}, {"sigma", 1.0}}, 2.5}}) {
    SCOPED_TRACE(st.name);
    SimulationConfig cfg = melt(6, 60, 5);
    cfg.system.temperature = 1.2;
    cfg.potential.style = st.name;
    cfg.potential.coeffs = st.coeffs;
    cfg.potential.cutoff = st.cutoff;
    cfg.decomposition.method = Method::NeutralTerritory;
    const RunResult host = run(comm, cfg, Backend::Host);
    expect_same_run(host, run(comm, cfg, Backend::Cuda));
  }
  // The table style: its data uploaded once, every pair's pointer rebased into it; linear on one
  // species, spline on two (the typed kernel, three sections). The file is written here, one per
  // process (the test binary may run far from the sources).
  const std::string file = write_lj_table();
  struct RemoveTable {
    std::string path;
    ~RemoveTable() {  // (nothing left behind in /tmp)
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  } const remove_table{file};
  for (const bool two : {false, true}) {
    SCOPED_TRACE(two ? "table spline, two species" : "table linear");
    SimulationConfig cfg = melt(6, 60, 5);
    cfg.system.temperature = 1.2;
    cfg.potential.style = "table";
    cfg.potential.cutoff = 2.5;
    cfg.potential.coeffs = {{"table_points", 1000}};
    cfg.potential.strings = {{"table_style", two ? "spline" : "linear"}};
    if (two) {
      cfg.system.type_fractions = {0.7, 0.3};
      cfg.potential.pairs = {{{1, 1}, {}, {}, {{"file", file}, {"keyword", "LJ"}}},
                             {{1, 2}, {}, 2.2, {{"file", file}, {"keyword", "LJ_R"}}},
                             {{2, 2}, {}, {}, {{"file", file}, {"keyword", "LJ_RSQ"}}}};
    } else {
      cfg.potential.strings["file"] = file;
      cfg.potential.strings["keyword"] = "LJ";
    }
    cfg.decomposition.method = Method::NeutralTerritory;
    const RunResult host = run(comm, cfg, Backend::Host);
    expect_same_run(host, run(comm, cfg, Backend::Cuda));
  }
}

// A box shorter than 2·(r_c + skin) on every axis and than r_c along x (1×2×3 fcc cells): ghosts
// are several images of one particle, pair displacements come from the image shifts, the
// full-shell energy shares of a particle's pair with its own image, and wraps trigger rebuilds.
// Every method; the Kob–Andersen table on half shell (the typed kernel).
TEST(CudaBackend, HashEqualsHostSmallBox) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (Method m : kAllMethods)
    for (bool two_species : {false, true}) {
      if (two_species && m != Method::HalfShell) continue;
      SCOPED_TRACE(std::string(method_name(m)) + (two_species ? " two species" : ""));
      SimulationConfig cfg = melt(1, 60, 5);
      cfg.system.cells = {1, 2, 3};
      if (two_species) kob_andersen(cfg, {0.75, 0.25});
      cfg.decomposition.method = m;
      const RunResult host = run(comm, cfg, Backend::Host);
      EXPECT_GT(host.rebuilds, 5);
      expect_same_run(host, run(comm, cfg, Backend::Cuda));
      cfg.cuda.device_rebuild = false;
      if (comm.size() == 1) expect_same_run(host, run(comm, cfg, Backend::Cuda));
    }
}

// The thermostats on the device: Langevin (Philox in the kick kernels, work summed in fixed point)
// on the two-species mixture, and a Nosé–Hoover chain (velocity scaling kernel).
TEST(CudaBackend, HashEqualsHostThermostats) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (ThermostatStyle style : {ThermostatStyle::Langevin, ThermostatStyle::NoseHoover}) {
    SCOPED_TRACE(std::string(name_of<ThermostatStyle>(kThermostatNames, style)));
    SimulationConfig cfg = melt(6, 60, 5);
    cfg.thermostat = {style, 1.1, 0.4, 99, 3};
    if (style == ThermostatStyle::Langevin) kob_andersen(cfg, {0.8, 0.2});
    const RunResult host = run(comm, cfg, Backend::Host);
    ASSERT_FALSE(host.thermo.empty());
    EXPECT_NE(host.thermo.back().econs, host.thermo.back().etotal) << "thermostat inactive?";
    expect_same_run(host, run(comm, cfg, Backend::Cuda));
  }
}

// system.units: argon in real and in metal units (ftm2v in the half kicks, mvv2e and boltz in the
// thermo and the thermostats, nktv2p in the pressure), NVE, Langevin and Nosé–Hoover: the
// factors the kernels get are the host's, so the bits are too.
TEST(CudaBackend, HashEqualsHostThermostatsUnits) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (UnitSystem units : {UnitSystem::Real, UnitSystem::Metal})
    for (ThermostatStyle style :
         {ThermostatStyle::None, ThermostatStyle::Langevin, ThermostatStyle::NoseHoover}) {
      const bool real = units == UnitSystem::Real;
      SCOPED_TRACE(std::string(name_of<UnitSystem>(kUnitSystemNames, units)) + " " +
                   std::string(name_of<ThermostatStyle>(kThermostatNames, style)));
      SimulationConfig cfg = melt(5, 40, 5);
      cfg.system.units = units;
      cfg.system.mass = {39.948};
      cfg.system.density = real ? 0.021384 : 0.021479;
      cfg.system.temperature = 180.0;
      cfg.potential.pairs = {real ? test::lj_pair({1, 1}, 0.2381, 3.405, 8.5125)
                                  : test::lj_pair({1, 1}, 0.0104, 3.4, 8.5)};
      cfg.neighbor.skin = 1.0;
      cfg.run.dt = real ? 5.0 : 0.005;
      cfg.thermostat = {style, 150.0, real ? 200.0 : 0.2, 99, 3};
      const RunResult host = run(comm, cfg, Backend::Host);
      ASSERT_FALSE(host.thermo.empty());
      // Exact but for the fixed-point Σ m v² (m v² ~ 5e-4 kcal/mol per particle in real units).
      EXPECT_NEAR(host.thermo.front().temp, 180.0, 180.0 * 1e-10);
      expect_same_run(host, run(comm, cfg, Backend::Cuda));
    }
}

// The many-body EAM compute on the device (metal units, the files of Debian's lammps-data): Cu
// (funcfl, one type: the single-type kernels) and a Cu-Ni random alloy (setfl, two types), 500
// atoms at 1600 K. The density is reverse-summed and F' forwarded mid-compute, pairs go to ranks
// that own neither particle (neutral territory, eighth shell, midpoint), full shell keeps ghosts'
// densities local: every method, both rebuild paths, the host's bits.
TEST(CudaBackend, HashEqualsHostEam) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  const std::string dir = potentials_dir();
  if (!std::filesystem::exists(dir + "/Cu_u3.eam") ||
      !std::filesystem::exists(dir + "/CuNi.eam.alloy"))
    GTEST_SKIP() << "no EAM files in " << dir << " (Debian's lammps-data)";
  Communicator comm(MPI_COMM_WORLD);
  for (bool alloy : {false, true})
    for (Method m : kAllMethods) {
      SCOPED_TRACE(std::string(alloy ? "eam/alloy " : "eam ") + std::string(method_name(m)));
      SimulationConfig cfg = melt(5, 30, 10);
      cfg.system.units = UnitSystem::Metal;
      cfg.system.density = 0.084672;
      cfg.system.temperature = 1600.0;
      cfg.neighbor.skin = 1.0;
      cfg.run.dt = 0.005;
      if (alloy) {
        cfg.system.type_fractions = {0.7, 0.3};
        cfg.system.mass = {63.55, 58.69};
        cfg.potential.style = "eam/alloy";
        cfg.potential.strings["file"] = dir + "/CuNi.eam.alloy";
        cfg.potential.elements = {"Cu", "Ni"};
      } else {
        cfg.system.mass = {63.55};
        cfg.potential.style = "eam";
        cfg.potential.files = {dir + "/Cu_u3.eam"};
      }
      cfg.decomposition.method = m;
      const RunResult host = run(comm, cfg, Backend::Host);
      EXPECT_GT(host.rebuilds, 1);
      expect_same_run(host, run(comm, cfg, Backend::Cuda));
      cfg.cuda.device_rebuild = false;
      if (comm.size() == 1 || m == Method::HalfShell)
        expect_same_run(host, run(comm, cfg, Backend::Cuda));
    }
}

// A configuration given particle by particle (data files, restarts), not cubic, with a
// non-default potential: setup(particles) on the device.
TEST(CudaBackend, HashEqualsHostFromParticles) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  const Vec3 L{6.0, 7.5, 11.3};
  const std::vector<InitialParticle> particles =
      test::make_particles(test::random_positions(400, L, 0.85, 4242), 1.5, 99);
  SimulationConfig cfg;
  cfg.system.box = L;
  test::set_lj(cfg.potential, 1.3, 0.9);
  cfg.potential.cutoff = 2.2;
  cfg.neighbor.skin = 0.4;
  cfg.run.steps = 60;
  cfg.output.thermo_every = 1;  // energy and virial on every step
  auto run_from = [&](Backend b) {
    SimulationConfig c = cfg;
    c.run.backend = b;
    Simulation sim(comm, c);
    sim.setup(particles, 0);
    RunResult r;
    sim.run([&](const ThermoSample& s) { r.thermo.push_back(s); });
    r.hash = sim.state_hash();
    r.forces = force_checksum(comm, sim);
    r.rebuilds = sim.rebuilds();
    r.pairs = comm.sum(sim.local_pairs());
    r.imports = import_record(comm, sim);
    return r;
  };
  expect_same_run(run_from(Backend::Host), run_from(Backend::Cuda));
}

// FIRE minimisation ([minimize], engine/minimize.cpp) of random positions, then 10 steps: the
// device's FIRE maxima, quantised sums and updates give the host's bits — every progress line's
// pe, max force and force norm, the iteration and force-call counts, then the run — with neutral
// territory and midpoint (and, on one rank, every rebuild through the host once).
TEST(CudaBackend, FireEqualsHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  const Vec3 L{6.0, 7.5, 11.3};
  const std::vector<InitialParticle> particles =
      test::make_particles(test::random_positions(400, L, 0.8, 1717), 1.0, 5);
  SimulationConfig cfg;
  cfg.system.box = L;
  cfg.neighbor.skin = 0.3;
  cfg.run.steps = 10;
  cfg.output.thermo_every = 5;
  cfg.minimize.style = MinimizeStyle::Fire;
  cfg.minimize.ftol = 0.0;  // all 60 iterations
  cfg.minimize.max_steps = 60;
  struct FireRun {
    RunResult run;
    std::vector<MinimizeProgress> progress;
    MinimizeResult result;
  };
  auto run_from = [&](const SimulationConfig& base, Backend b) {
    SimulationConfig c = base;
    c.run.backend = b;
    Simulation sim(comm, c);
    sim.setup(particles, 0);
    FireRun r;
    r.result = sim.minimize([&](const MinimizeProgress& p) { r.progress.push_back(p); }, 10);
    sim.run([&](const ThermoSample& s) { r.run.thermo.push_back(s); });
    r.run.hash = sim.state_hash();
    r.run.forces = force_checksum(comm, sim);
    r.run.rebuilds = sim.rebuilds();
    r.run.pairs = comm.sum(sim.local_pairs());
    r.run.imports = import_record(comm, sim);
    return r;
  };
  auto expect_same = [](const FireRun& host, const FireRun& cuda) {
    EXPECT_EQ(cuda.result.iterations, host.result.iterations);
    EXPECT_EQ(cuda.result.force_calls, host.result.force_calls);
    ASSERT_EQ(cuda.progress.size(), host.progress.size());
    for (std::size_t k = 0; k < host.progress.size(); ++k) {
      const MinimizeProgress &h = host.progress[k], &c = cuda.progress[k];
      EXPECT_EQ(c.iteration, h.iteration);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(c.energy), std::bit_cast<std::uint64_t>(h.energy))
          << "iteration " << h.iteration << ": pe " << c.energy << " vs " << h.energy;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(c.fmax), std::bit_cast<std::uint64_t>(h.fmax));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(c.fnorm), std::bit_cast<std::uint64_t>(h.fnorm));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(c.dt), std::bit_cast<std::uint64_t>(h.dt));
    }
    expect_same_run(host.run, cuda.run);
  };
  for (Method m : {Method::NeutralTerritory, Method::Midpoint}) {
    SCOPED_TRACE(method_name(m));
    cfg.decomposition.method = m;
    const FireRun host = run_from(cfg, Backend::Host);
    EXPECT_LT(host.progress.back().energy, host.progress.front().energy);
    expect_same(host, run_from(cfg, Backend::Cuda));
    if (comm.size() == 1 && m == Method::NeutralTerritory) {
      SimulationConfig via_host = cfg;
      via_host.cuda.device_rebuild = false;
      expect_same(host, run_from(via_host, Backend::Cuda));
    }
  }
}

// Every method with each thermostat (Langevin on the two-species mixture, a Nosé–Hoover chain):
// on several ranks the device rebuilds migrate, check the census and make the halo, and the
// thermostat's kicks see the particles in the order the device left them.
TEST(CudaBackend, HashEqualsHostMethodsWithThermostats) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (Method m : kAllMethods)
    for (ThermostatStyle style : {ThermostatStyle::Langevin, ThermostatStyle::NoseHoover}) {
      SCOPED_TRACE(std::string(method_name(m)) + " " +
                   std::string(name_of<ThermostatStyle>(kThermostatNames, style)));
      SimulationConfig cfg = melt(6, 40, 5);
      cfg.decomposition.method = m;
      cfg.thermostat = {style, 1.1, 0.4, 7, 3};
      if (style == ThermostatStyle::Langevin) kob_andersen(cfg, {0.8, 0.2});
      const RunResult host = run(comm, cfg, Backend::Host);
      EXPECT_GT(host.rebuilds, 2);
      expect_same_run(host, run(comm, cfg, Backend::Cuda));
    }
}

// DPD (issue 30): the pair's relative velocity (ghosts' by the device field halo) and its
// random number (keyed by the pair and the step) give the host's bits on every method, one and
// two species, and dpd/tstat as a second pair compute on top of LJ.
SimulationConfig dpd_fluid(int cells, long long steps) {
  SimulationConfig cfg = melt(cells, steps, 5);
  cfg.system.density = 3.0;
  cfg.system.temperature = 1.0;
  cfg.run.dt = 0.04;
  cfg.potential.style = "dpd";
  cfg.potential.cutoff = 1.0;
  cfg.potential.coeffs = {{"a", 25.0}, {"gamma", 4.5}, {"temperature", 1.0}, {"seed", 8761.0}};
  return cfg;
}

TEST(CudaBackend, HashEqualsHostDPD) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  // 256 particles, 20 steps (a rebuild every step or two at dt = 0.04): every method with two
  // species (the typed table), half shell with one (the one-pair path).
  for (Method m : kAllMethods)
    for (const bool two : {false, true}) {
      if (!two && m != Method::HalfShell) continue;
      SCOPED_TRACE(std::string(method_name(m)) + (two ? " dpd, two species" : " dpd"));
      SimulationConfig cfg = dpd_fluid(4, 20);
      cfg.decomposition.method = m;
      if (two) {
        cfg.system.type_fractions = {0.6, 0.4};
        cfg.system.mass = {1.0, 2.0};
        cfg.potential.mixing = Mixing::None;
        cfg.potential.coeffs = {{"temperature", 1.0}, {"seed", 8761.0}};
        cfg.potential.pairs = {{{1, 1}, {{"a", 25.0}, {"gamma", 4.5}}, {}},
                               {{1, 2}, {{"a", 30.0}, {"gamma", 3.0}}, 1.1},
                               {{2, 2}, {{"a", 20.0}, {"gamma", 6.0}}, 0.9}};
      }
      const RunResult host = run(comm, cfg, Backend::Host);
      EXPECT_GT(host.rebuilds, 2);
      expect_same_run(host, run(comm, cfg, Backend::Cuda));
    }
  // dpd/tstat as a second pair compute on LJ; full shell computes cross-rank pairs twice.
  SimulationConfig cfg = melt(4, 20, 5);
  cfg.decomposition.method = Method::FullShell;
  cfg.thermostat.style = ThermostatStyle::DpdTstat;
  cfg.thermostat.temperature = 1.0;
  cfg.thermostat.gamma = 4.5;
  cfg.thermostat.cutoff = 1.5;
  cfg.thermostat.seed = 31;
  SCOPED_TRACE("full-shell lj + dpd/tstat");
  const RunResult host = run(comm, cfg, Backend::Host);
  expect_same_run(host, run(comm, cfg, Backend::Cuda));
}

// A DPD restart on the CUDA backend continues the host's unbroken run bit for bit: the state
// words carry the pair velocity v(n − ½) that F(n) saw (a State column of DeviceFields: uploaded
// at load, gathered at the rebuilds). One rank: every particle is given to it.
TEST(CudaBackend, RestartDPDContinuesTheHostRun) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() != 1) GTEST_SKIP() << "one rank";
  SimulationConfig cfg = dpd_fluid(4, 40);
  const RunResult whole = run(comm, cfg, Backend::Host);
  cfg.run.steps = 20;
  cfg.run.backend = Backend::Host;
  Simulation first(comm, cfg);
  first.setup();
  first.run([](const ThermoSample&) {});
  const ParticleStore& p = first.particles();
  std::vector<InitialParticle> particles;
  std::vector<std::uint64_t> words(p.n_owned * p.fields.state_words());
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    particles.push_back({p.id[i], p.x[i], p.v[i], p.image[i], p.type[i]});
    p.fields.pack_state(i, words.data() + i * p.fields.state_words());
  }
  ASSERT_EQ(p.fields.state_words(), 3u);  // the pair velocity
  for (const Backend b : {Backend::Host, Backend::Cuda}) {
    SimulationConfig rest = cfg;
    rest.run.steps = 40;
    rest.run.backend = b;
    Simulation second(comm, rest);
    second.setup(particles, 20, {}, words);
    second.run([](const ThermoSample&) {});
    EXPECT_EQ(second.state_hash(), whole.hash) << (b == Backend::Cuda ? "cuda" : "host");
  }
  // Without the pair velocities (v(n) instead of v(n − ½)) the forces of step 20 differ: the
  // state words matter.
  Simulation without(comm, [&] {
    SimulationConfig rest = cfg;
    rest.run.steps = 40;
    return rest;
  }());
  without.setup(particles, 20, {}, {});
  without.run([](const ThermoSample&) {});
  EXPECT_NE(without.state_hash(), whole.hash);
}

// Load balancing moves the cut planes between rebuilds: the device migration and export
// selection follow the new cuts (GridCuts by value into the kernels).
TEST(CudaBackend, HashEqualsHostWithLoadBalancing) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() == 1) GTEST_SKIP() << "load balancing needs several ranks";
  for (Method m : {Method::HalfShell, Method::NeutralTerritory, Method::Midpoint}) {
    SCOPED_TRACE(std::string(method_name(m)));
    SimulationConfig cfg = melt(6, 40, 5);
    cfg.decomposition.method = m;
    cfg.decomposition.balance = Balance::Particles;
    cfg.decomposition.balance_every = 10;
    cfg.decomposition.balance_tolerance = 1.0;  // every balance step moves the cuts
    cfg.decomposition.grid = {comm.size(), 1, 1};
    cfg.region = {RegionStyle::Slab, 0, 0.0, 6.0};  // 60% of x filled: the cuts move
    const RunResult host = run(comm, cfg, Backend::Host);
    expect_same_run(host, run(comm, cfg, Backend::Cuda));
  }
}

// What a rebuild copies off the device (ImportCounts::device_to_host_bytes): counts, flags and
// the remote message parts only, never the owned particles. The box is long along x, so that the
// rank boxes' faces are small against their volume: a rebuild on the device copies less than the
// positions of the owned particles alone (24 bytes each), while a rebuild through the host
// (SCANMD_CUDA_REBUILD=host) copies at least id, type, x, v, image and f of every owned particle
// (96 bytes each) — the measurement tells the two apart. Setup's rebuild is left out: the
// particles come from the host then.
TEST(CudaBackend, RebuildCopiesNoParticlesToTheHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  SimulationConfig cfg = melt(4, 40, 10);
  cfg.system.cells =
      small_sizes() ? std::array<int, 3>{10 * P, 4, 4} : std::array<int, 3>{20 * P, 6, 6};
  cfg.decomposition.grid = {P, 1, 1};
  cfg.run.backend = Backend::Cuda;
  auto per_rebuild = [&](bool device) {
    SimulationConfig c = cfg;
    c.cuda.device_rebuild = device;
    Simulation sim(comm, c);
    sim.setup();
    sim.run(std::function<void(const ThermoSample&)>{});
    // (bytes, owned particles) per rebuild after setup's (where the particles go up)
    std::vector<std::pair<long long, long long>> out;
    for (const ImportSnapshot& s : sim.imports())
      if (s.step > 0)
        out.emplace_back(s.per_rank_counts[comm.rank()].device_to_host_bytes,
                         static_cast<long long>(sim.particles().n_owned));
    EXPECT_GT(sim.rebuilds(), 2);
    return out;
  };
  auto mean_per_particle = [](const std::vector<std::pair<long long, long long>>& v) {
    double sum = 0;
    for (const auto& [bytes, owned] : v) sum += static_cast<double>(bytes) / owned;
    return v.empty() ? 0.0 : sum / v.size();
  };
  const auto device = per_rebuild(true), host = per_rebuild(false);
  if (comm.rank() == 0)
    std::printf(
        "[ rank 0   ] device to host per rebuild and owned particle: %.1f bytes on the "
        "device path, %.1f through the host\n",
        mean_per_particle(device), mean_per_particle(host));
  for (const auto& [bytes, owned] : device) {
    EXPECT_GT(bytes, 0) << "the counts cross at least";
    EXPECT_LT(bytes, 24 * owned) << "a device rebuild copied " << bytes << " bytes for " << owned
                                 << " owned particles";
  }
  for (const auto& [bytes, owned] : host)
    EXPECT_GE(bytes, 96 * owned * 9 / 10) << "the host path downloads every owned particle";
}

// The comparison switches from the environment: a value that is neither choice is an error that
// names the variable and both choices, not a silent default.
TEST(CudaBackend, BadSwitchValuesAreErrors) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  SimulationConfig cfg = melt(4, 1, 1);
  cfg.run.backend = Backend::Cuda;
  for (const auto& [name, value, expected] :
       {std::array<const char*, 3>{"SCANMD_CUDA_FUSE", "yes", "expected \"1\" or \"0\""},
        std::array<const char*, 3>{"SCANMD_CUDA_REBUILD", "gpu",
                                   "expected \"device\" or \"host\""}}) {
    setenv(name, value, 1);
    try {
      Simulation sim(comm, cfg);
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string(name) + "=" + value), std::string::npos) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << what;
    }
    unsetenv(name);
  }
}

// The step's zeroing fused into its kernels (CudaTuning::fuse, SCANMD_CUDA_FUSE): the same bits
// with and without, and on the emulator, which counts what the device was asked to do, three
// operations fewer per ordinary step (the memsets of the skin flag, the forces and the force
// totals).
TEST(CudaBackend, FusedStepSameBitsFewerOperations) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (Method m : {Method::HalfShell, Method::FullShell}) {
    SCOPED_TRACE(std::string(method_name(m)));
    SimulationConfig cfg = melt(6, 60, 20);
    cfg.decomposition.method = m;
    const RunResult host = run(comm, cfg, Backend::Host);
    [[maybe_unused]] long long ops[2] = {0, 0};
    for (const bool fuse : {false, true}) {
      cfg.cuda.fuse = fuse;
#if defined(SCANMD_TEST_EMU)
      const scanmd_emu::OpCounts before = scanmd_emu::op_counts();
#endif
      expect_same_run(host, run(comm, cfg, Backend::Cuda));
#if defined(SCANMD_TEST_EMU)
      const scanmd_emu::OpCounts after = scanmd_emu::op_counts();
      ops[fuse] =
          static_cast<long long>((after.launches - before.launches) +
                                 (after.memsets - before.memsets) + (after.copies - before.copies));
#endif
    }
#if defined(SCANMD_TEST_EMU)
    // Every step without a rebuild saves three; the first step after setup has no fused kick
    // before it (one fewer); rebuild steps save the skin flag's.
    const long long ordinary = cfg.run.steps - (host.rebuilds - 1);
    EXPECT_GE(ops[0] - ops[1], 3 * ordinary - 1)
        << "unfused " << ops[0] << " operations, fused " << ops[1];
    if (comm.rank() == 0)
      std::printf("[ rank 0   ] %s: %lld device operations unfused, %lld fused, over %lld steps\n",
                  std::string(method_name(m)).c_str(), ops[0], ops[1],
                  static_cast<long long>(cfg.run.steps));
#endif
  }
}

#if defined(SCANMD_TEST_DEVICE_API)
// The census on the device: count, Σ id and Σ id² as exact sums modulo 2^128, equal to the
// host's Census::local for ids up to 2^64 − 1 (the carries of both words, and wrapping sums),
// and different when one id is duplicated in place of another.
TEST(CudaCensus, DeviceSumsEqualHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  using namespace cuda_step;
  ParticleStore p;
  std::uint64_t state = 12345;
  for (int i = 0; i < 1000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    p.push_owned(i % 3 == 0 ? state : static_cast<std::uint64_t>(i + 1), 0, {}, {}, {}, {});
  }
  auto device_census = [](const std::vector<std::uint64_t>& ids) {
    Stream stream;
    DeviceFlagsMirror flags;
    DeviceBuffer<std::uint64_t> d(ids.size());
    d.copy_from_host(ids);
    flags.reset(&flags.device()->census_count, 5, stream.get());
    launch_census(d.data(), static_cast<std::uint32_t>(ids.size()), flags.device(), stream.get());
    flags.fetch(stream.get());
    const DeviceFlags& h = flags.host();
    return Census{static_cast<long long>(h.census_count), wide(h.census_id), wide(h.census_id_sq)};
  };
  std::vector<std::uint64_t> ids(p.id.begin(), p.id.end());
  const Census host = Census::local(p);
  EXPECT_TRUE(device_census(ids) == host);
  ids[500] = ids[501];  // a duplicate in place of a lost particle
  const Census bad = device_census(ids);
  EXPECT_EQ(bad.count, host.count);
  EXPECT_FALSE(bad == host);
}
#endif

#if defined(SCANMD_TEST_DEVICE_API)
// The field halo on the device against the host's (the same plan, made on the host): a double
// field forward, an int64 and a Fix3 field summed back, every method, any rank count. The box is
// shorter than 2R along y, so even one rank has ghosts (its own periodic images: the self part).
TEST(CudaFieldHalo, SameAsHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  using namespace cuda_step;
  Communicator comm(MPI_COMM_WORLD);
  Vec3 L{};
  const std::vector<Vec3> x = test::perturbed_fcc({4, 3, 5}, 0.8442, 0.2, 7, L);
  const Box box = Box::make(L);
  for (Method m : kAllMethods) {
    SCOPED_TRACE(std::string(method_name(m)));
    const RankGrid grid(choose_grid(comm.size(), {0, 0, 0}, box, m, 2.8), box);
    HaloExchange halo(comm, grid, box, m, 2.8);
    ParticleStore p;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (grid.box_of(x[i]) == halo.coord()) p.push_owned(i + 1, 0, x[i], {}, {}, halo.coord());
    halo.migrate(p);
    halo.build(p);
    const std::size_t n = p.size(), n_owned = p.n_owned;
    std::vector<double> value(n, -1.0);
    std::vector<std::int64_t> rho(n);
    std::vector<Fix3> force(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto id = static_cast<std::int64_t>(p.id[i]);
      if (i < n_owned) value[i] = 0.25 * static_cast<double>(id);
      rho[i] = i < n_owned ? id : 3 * id + static_cast<std::int64_t>(i);
      force[i] = i < n_owned ? Fix3{id, -id, 0} : Fix3{1, 2, id};
    }
    Stream stream;
    DeviceParticles d;
    d.upload(p, stream.get());
    DeviceHalo dhalo(comm, m, false);
    dhalo.set_plan(halo, d, stream.get());
    DeviceFlagsMirror flags;
    DeviceBuffer<double> d_value(n);
    DeviceBuffer<std::int64_t> d_rho(n);
    DeviceBuffer<Fix3> d_force(n);
    d_value.copy_from_host(value);
    d_rho.copy_from_host(rho);
    d_force.copy_from_host(force);
    DeviceFieldHalo<double> h_value;
    DeviceFieldHalo<std::int64_t> h_rho;
    DeviceFieldHalo<Fix3> h_force;
    const auto o = static_cast<std::uint32_t>(n_owned);
    dhalo.forward_field(h_value, d_value.data(), o, stream.get());
    dhalo.reverse_field(h_rho, d_rho.data(), o, flags.device(), stream.get());
    dhalo.reverse_field(h_force, d_force.data(), o, flags.device(), stream.get());
    halo.forward_field<double>(value, n_owned);
    halo.reverse_field<std::int64_t>(rho, n_owned, p.id, "density");
    halo.reverse_field<Fix3>(force, n_owned, p.id, "force");
    std::vector<double> got_value;
    std::vector<std::int64_t> got_rho;
    std::vector<Fix3> got_force;
    download(got_value, d_value.data(), n, stream.get());
    download(got_rho, d_rho.data(), n, stream.get());
    download(got_force, d_force.data(), n, stream.get());
    check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
    flags.fetch(stream.get());
    EXPECT_EQ(flags.host().sum_overflow, kNone);
    EXPECT_TRUE(got_value == value) << "forward_field differs from the host's";
    EXPECT_TRUE(got_rho == rho) << "reverse_field (int64) differs from the host's";
    for (std::size_t i = 0; i < n_owned; ++i)
      ASSERT_TRUE(got_force[i].x == force[i].x && got_force[i].y == force[i].y &&
                  got_force[i].z == force[i].z)
          << "reverse_field (Fix3) differs at owned particle " << p.id[i];
    // Something was exchanged: ghosts on every rank, and the oracle moved values into them.
    ASSERT_GT(n, n_owned);
    EXPECT_NE(value[n_owned], -1.0);
  }
}
#endif

#if defined(SCANMD_TEST_DEVICE_API)
// The optional per-particle fields on the device (DeviceFields) through a migration and a halo
// plan made on the device, against the host's HaloExchange on the same particles: every rank
// starts with the particles i % ranks (most must move), carrying a State integer field of
// width 2 (7·id, −id), a State real field (id / 4) and a Scratch field (99 on the start rank,
// 0 after a move). After the migration: the same owned ids in the same order with the same
// words. After the plan: every ghost's forwarded State words are those of its id, and an
// integer Scratch field of ones summed back gives each owner 1 + its ghost copies, as on the
// host. Every method.
TEST(CudaFields, MigrateForwardAndSumAsHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  using namespace cuda_step;
  Communicator comm(MPI_COMM_WORLD);
  Vec3 L{};
  const std::vector<Vec3> x = test::perturbed_fcc({4, 3, 5}, 0.8442, 0.2, 11, L);
  const Box box = Box::make(L);
  const double R = 2.8;
  const std::vector<FieldSpec> specs{{"mol", FieldKind::Integer, 2, FieldLife::State},
                                     {"charge", FieldKind::Real, 1, FieldLife::State},
                                     {"scratch", FieldKind::Real, 1, FieldLife::Scratch},
                                     {"count", FieldKind::Integer, 1, FieldLife::Scratch}};
  auto mol = [](std::uint64_t id, int c) {
    return static_cast<std::uint64_t>(c == 0 ? 7 * static_cast<std::int64_t>(id)
                                             : -static_cast<std::int64_t>(id));
  };
  auto charge = [](std::uint64_t id) {
    return std::bit_cast<std::uint64_t>(0.25 * static_cast<double>(id));
  };
  for (Method m : kAllMethods) {
    SCOPED_TRACE(std::string(method_name(m)));
    const RankGrid grid(choose_grid(comm.size(), {0, 0, 0}, box, m, R), box);
    Domain host_domain(comm, grid, box, m, R);
    ParticleStore start;
    for (const FieldSpec& f : specs) start.fields.add(f);
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (static_cast<int>(i % static_cast<std::size_t>(comm.size())) != comm.rank()) continue;
      const std::uint64_t id = i + 1;
      start.push_owned(id, 0, x[i], {}, {}, host_domain.coord());
      const std::size_t k = start.n_owned - 1;
      start.fields.words(0)[2 * k] = mol(id, 0);
      start.fields.words(0)[2 * k + 1] = mol(id, 1);
      start.fields.words(1)[k] = charge(id);
      start.fields.set_real(2, k, 99.0);
    }
    ParticleStore host = start;
    host_domain.halo().migrate(host);

    Stream stream;
    Scratch scratch;
    DeviceParticles d;
    d.upload(start, stream.get());
    DeviceMigration migration(comm, false);
    migration.migrate(d, host_domain.cuts(), host_domain.coord(), scratch, stream.get());
    // (EXPECT, never ASSERT, before a collective call: a rank that returned early would leave
    // the others waiting.)
    ParticleStore got = start;
    d.download_owned(got, stream.get());
    EXPECT_EQ(got.id, host.id) << "owned particles after the migration";
    for (std::size_t k = 0; k < specs.size() && got.id == host.id; ++k) {
      const std::size_t words = host.n_owned * host.fields.width(k);
      const bool same = std::equal(host.fields.words(k).begin(),
                                   host.fields.words(k).begin() + static_cast<long>(words),
                                   got.fields.words(k).begin());
      EXPECT_TRUE(same) << specs[k].name << " differs after the migration";
    }

    // The halo: the host's plan and the device's own.
    host_domain.halo().build(host);
    const ExportGeometry geometry = ExportSelector(grid, box, m, R).geometry();
    DeviceHalo dhalo(comm, m, false);
    DeviceFlagsMirror flags;
    dhalo.make_plan(d, geometry, host_domain.coord(), scratch, flags.device(), stream.get());
    EXPECT_EQ(d.n - d.n_owned, host.size() - host.n_owned) << "ghosts";
    EXPECT_GT(d.n, d.n_owned);
    DeviceFieldHalo<std::uint64_t> fwd;
    DeviceFieldHalo<std::int64_t> rev;
    for (const char* name : {"mol", "charge"}) {
      const auto k = static_cast<std::size_t>(d.fields.find(name));
      for (std::uint64_t* plane : d.fields.planes_of(k))
        dhalo.forward_field(fwd, plane, d.n_owned, stream.get());
    }
    const auto count = static_cast<std::size_t>(d.fields.find("count"));
    const std::vector<std::int64_t> ones(d.n, 1);
    copy_h2d(reinterpret_cast<std::int64_t*>(d.fields.plane(count, 0)), ones.data(), d.n,
             stream.get());
    dhalo.reverse_field(rev, reinterpret_cast<std::int64_t*>(d.fields.plane(count, 0)), d.n_owned,
                        flags.device(), stream.get());
    std::vector<std::uint64_t> ids, mol0, mol1, q, sums;
    download(ids, d.id.data(), d.n, stream.get());
    download(mol0, d.fields.plane(0, 0), d.n, stream.get());
    download(mol1, d.fields.plane(0, 1), d.n, stream.get());
    download(q, d.fields.plane(1, 0), d.n, stream.get());
    download(sums, d.fields.plane(count, 0), d.n_owned, stream.get());
    check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
    flags.fetch(stream.get());
    EXPECT_EQ(flags.host().sum_overflow, kNone);
    std::size_t wrong = 0;
    for (std::size_t i = d.n_owned; i < d.n; ++i)
      if (mol0[i] != mol(ids[i], 0) || mol1[i] != mol(ids[i], 1) || q[i] != charge(ids[i])) ++wrong;
    EXPECT_EQ(wrong, 0u) << "ghosts whose forwarded fields are not their owner's";
    std::vector<std::int64_t> host_sums(host.size(), 1);
    host_domain.halo().reverse_sum_words(host_sums, 1, host.n_owned, host.id, "count");
    wrong = 0;
    for (std::size_t i = 0; i < host.n_owned && i < d.n_owned; ++i)
      if (static_cast<std::int64_t>(sums[i]) != host_sums[i]) ++wrong;
    EXPECT_EQ(wrong, 0u) << "owners whose summed count differs from the host's";
  }
}
#endif

// ---- the neighbour list -------------------------------------------------------------------

TEST(CudaNeighborList, SameEntriesAsHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  Vec3 L{};
  const std::vector<InitialParticle> particles =
      test::make_particles(test::perturbed_fcc({7, 6, 8}, 0.8442, 0.2, 5, L), 1.0);
  for (Method m : kAllMethods)
    for (NeighborFill fill : {NeighborFill::SegmentedScan, NeighborFill::AtomicCounters}) {
      SCOPED_TRACE(std::string(method_name(m)) +
                   (fill == NeighborFill::SegmentedScan ? " segmented" : " atomic"));
      SimulationConfig cfg;
      cfg.system.box = L;
      cfg.decomposition.method = m;
      cfg.cuda.fill = fill;
      cfg.run.steps = 8;
      cfg.neighbor.skin = 0.1;
      Simulation host(comm, cfg);
      host.setup(particles, 0);
      cfg.run.backend = Backend::Cuda;
      Simulation cuda(comm, cfg);
      cuda.setup(particles, 0);
      // The host's particle layout is the device's (the device rebuild migrates, sorts and
      // makes ghosts in the host's order, on any rank count), so the entries compare as
      // (row, neighbour) index pairs; the order inside a row may differ.
      auto compare = [&](const char* when) {
        auto want = host.neighbor_entries();
        auto got = cuda.neighbor_entries();
        ASSERT_FALSE(want.empty()) << when;
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got.size(), want.size()) << when;
        EXPECT_TRUE(got == want) << "the entry sets differ " << when;
        EXPECT_EQ(cuda.local_pairs(), host.local_pairs()) << when;
      };
      compare("after setup");
      // Then after some rebuilds (skin 0.1 on this lattice: a rebuild nearly every step).
      host.run(std::function<void(const ThermoSample&)>{});
      cuda.run(std::function<void(const ThermoSample&)>{});
      ASSERT_GT(host.rebuilds(), 1);
      EXPECT_EQ(cuda.rebuilds(), host.rebuilds());
      compare("after the run");
    }
}

// ---- errors -------------------------------------------------------------------------------

std::vector<InitialParticle> small_lattice(Vec3& L) {
  return test::make_particles(test::perturbed_fcc({4, 4, 4}, 0.8442, 0.0, 1, L));
}

TEST(CudaErrors, OverlapNamesBothParticles) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() > 1) GTEST_SKIP() << "one-rank test";
  Vec3 L{};
  std::vector<InitialParticle> particles = small_lattice(L);
  particles[1].x = {particles[0].x.x + 0.05, particles[0].x.y, particles[0].x.z};  // ids 1, 2
  SimulationConfig cfg;
  cfg.system.box = L;
  cfg.run.backend = Backend::Cuda;
  Simulation sim(comm, cfg);
  try {
    sim.setup(particles, 0);
    FAIL() << "no overflow reported";
  } catch (const std::overflow_error& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(msg.find("between particles 1 and 2") != std::string::npos ||
                msg.find("between particles 2 and 1") != std::string::npos)
        << msg;
  }
}

// Two Cu atoms (ids 1, 2) `apart` Å apart in a 4x4x4 fcc block of Cu_u3.eam, and the one-rank
// metal-units config of the two EAM error tests below.
struct CuPair {
  Vec3 box{};
  std::vector<InitialParticle> particles;
};
CuPair cu_pair(double apart) {
  CuPair c;
  c.particles = test::make_particles(test::perturbed_fcc({4, 4, 4}, 0.084672, 0.0, 1, c.box));
  c.particles[1].x = {c.particles[0].x.x + apart, c.particles[0].x.y, c.particles[0].x.z};
  return c;
}
SimulationConfig cu_eam_config(const CuPair& c, const std::string& file, Backend backend,
                               double dt) {
  SimulationConfig cfg;
  cfg.system.units = UnitSystem::Metal;
  cfg.system.box = c.box;
  cfg.system.mass = {63.55};
  cfg.neighbor.skin = 1.0;
  cfg.run.dt = dt;
  cfg.potential.style = "eam";
  cfg.potential.files = {file};
  cfg.run.backend = backend;
  return cfg;
}

// The EAM compute's overflow (two Cu atoms 1e-4 Å apart) names both particles in the host's
// words, on both backends.
TEST(CudaErrors, EamOverlapNamesBothParticles) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  const std::string file = potentials_dir() + "/Cu_u3.eam";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() > 1) GTEST_SKIP() << "one-rank test";
  const CuPair c = cu_pair(1e-4);
  for (Backend backend : {Backend::Host, Backend::Cuda}) {
    SCOPED_TRACE(backend == Backend::Host ? "host" : "cuda");
    Simulation sim(comm, cu_eam_config(c, file, backend, 0.005));
    try {
      sim.setup(c.particles, 0);
      ADD_FAILURE() << "no overflow reported";
    } catch (const std::overflow_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("EAM"), std::string::npos) << msg;
      EXPECT_TRUE(msg.find("of particles 1 and 2") != std::string::npos ||
                  msg.find("of particles 2 and 1") != std::string::npos)
          << msg;
    }
  }
}

// Two Cu atoms 0.3 Å apart: their densities lie beyond the tables, which both backends clamp and
// say once on standard error, in the same words.
TEST(CudaErrors, EamDensityOutsideTablesSaidOnce) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  const std::string file = potentials_dir() + "/Cu_u3.eam";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() > 1) GTEST_SKIP() << "one-rank test";
  const CuPair c = cu_pair(0.3);
  std::string said[2];
  for (Backend backend : {Backend::Host, Backend::Cuda}) {
    SimulationConfig cfg = cu_eam_config(c, file, backend, 1e-5);
    cfg.run.steps = 2;
    cfg.output.thermo_every = 1;
    Simulation sim(comm, cfg);
    testing::internal::CaptureStderr();
    sim.setup(c.particles, 0);
    sim.run([](const ThermoSample&) {});
    said[backend == Backend::Cuda] = testing::internal::GetCapturedStderr();
  }
  EXPECT_NE(said[0].find("density outside the tables"), std::string::npos) << said[0];
  EXPECT_EQ(said[1], said[0]);
}

// An overlap that arises during the run (two particles meet at r = 0.25 after the first drift):
// on one rank nothing synchronises between that force call and the next step's half kick +
// drift, yet the error must report the pair as the forces saw it, exactly as the host does.
TEST(CudaErrors, OverlapDuringRunMatchesHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() > 1) GTEST_SKIP() << "one-rank test";
  std::vector<InitialParticle> particles(2);
  particles[0] = {1, {2.0, 5.0, 5.0}, {235.0, 0, 0}, {0, 0, 0}};
  particles[1] = {2, {4.6, 5.0, 5.0}, {-235.0, 0, 0}, {0, 0, 0}};
  auto message = [&](Backend b) {
    SimulationConfig cfg;
    cfg.system.box = Vec3{10.0, 10.0, 10.0};
    cfg.run.backend = b;
    cfg.run.steps = 5;
    Simulation sim(comm, cfg);
    sim.setup(particles, 0);  // r = 2.6 > r_c: no force yet
    try {
      sim.run(std::function<void(const ThermoSample&)>{});
    } catch (const std::overflow_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string host = message(Backend::Host);
  EXPECT_NE(host.find("between particles 1 and 2 (r = 0.25)"), std::string::npos) << host;
  EXPECT_EQ(message(Backend::Cuda), host);
}

// A particle crossing several box lengths per step is wrapped by the full count (issue 17): the
// CUDA drift gives the host's positions and image flags bit for bit, and the free-flight ones.
TEST(CudaErrors, FastParticleWrapsAsOnHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() > 1) GTEST_SKIP() << "one-rank test";
  const double L = 10.0, dt = 0.005;
  const std::vector<InitialParticle> particles{
      {1, {1.0, 2.0, 3.0}, {3.3 * L / dt, -2.6 * L / dt, 0.41 * L / dt}, {0, 0, 0}},
      {2, {6.0, 7.5, 8.0}, {0, 0, 0}, {0, 0, 0}}};
  auto final_state = [&](Backend b) {
    SimulationConfig cfg;
    cfg.system.box = Vec3{L, L, L};
    cfg.run.backend = b;
    cfg.run.dt = dt;
    cfg.run.steps = 4;
    Simulation sim(comm, cfg);
    sim.setup(particles, 0);
    sim.run(std::function<void(const ThermoSample&)>{});
    const ParticleStore& p = sim.particles();
    std::vector<std::pair<Vec3, Int3>> out(2);
    for (std::size_t i = 0; i < p.n_owned; ++i) out[p.id[i] - 1] = {p.x[i], p.image[i]};
    return out;
  };
  const auto host = final_state(Backend::Host), cuda = final_state(Backend::Cuda);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cuda[k].first.x),
              std::bit_cast<std::uint64_t>(host[k].first.x))
        << k;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cuda[k].first.y),
              std::bit_cast<std::uint64_t>(host[k].first.y))
        << k;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cuda[k].first.z),
              std::bit_cast<std::uint64_t>(host[k].first.z))
        << k;
    EXPECT_TRUE(cuda[k].second == host[k].second) << k;
  }
  // Free flight of particle 1: 13.2, −10.4 and 1.64 box lengths in 4 steps.
  EXPECT_TRUE(host[0].second == (Int3{13, -11, 1}));
  EXPECT_NEAR(host[0].first.x + 13 * L, 1.0 + 4 * 3.3 * L, 1e-9);
  EXPECT_NEAR(host[0].first.y - 11 * L, 2.0 - 4 * 2.6 * L, 1e-9);
  EXPECT_NEAR(host[0].first.z + 1 * L, 3.0 + 4 * 0.41 * L, 1e-9);
}

// A particle that cannot be wrapped (its image count beyond 32 bits) stops both backends with the
// same message, naming it and the step.
TEST(CudaErrors, UnwrappableParticleMatchesHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() > 1) GTEST_SKIP() << "one-rank test";
  Vec3 L{};
  std::vector<InitialParticle> particles = small_lattice(L);
  particles[6].v = {1e300, 0, 0};  // id 7
  auto message = [&](Backend b) {
    SimulationConfig cfg;
    cfg.system.box = L;
    cfg.run.backend = b;
    cfg.run.steps = 3;
    Simulation sim(comm, cfg);
    sim.setup(particles, 0);
    try {
      sim.run(std::function<void(const ThermoSample&)>{});
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string host = message(Backend::Host);
  EXPECT_EQ(host.rfind("step 1: particle 7 moved too far to be wrapped", 0), 0u) << host;
  EXPECT_EQ(message(Backend::Cuda), host);
}

TEST(CudaErrors, KineticOverflowMatchesHost) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() > 1) GTEST_SKIP() << "one-rank test";
  Vec3 L{};
  std::vector<InitialParticle> particles = small_lattice(L);
  particles[9].v = {0, 3000.0, 0};  // id 10: m v² = 9e6 > 2^62 · 2^-40
  auto message = [&](Backend b) {
    SimulationConfig cfg;
    cfg.system.box = L;
    cfg.run.backend = b;
    Simulation sim(comm, cfg);
    sim.setup(particles, 0);
    try {
      sim.thermo();
    } catch (const std::overflow_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string host = message(Backend::Host);
  EXPECT_NE(host.find("particle 10"), std::string::npos) << host;
  EXPECT_EQ(message(Backend::Cuda), host);
}

TEST(CudaBackend, WithoutDeviceFailsCleanly) {
  const std::string why = no_gpu_reason();
  if (why.empty()) GTEST_SKIP() << "a CUDA device is present: the error path is not reachable";
  Communicator comm(MPI_COMM_WORLD);
  SimulationConfig cfg = melt(6, 1, 1);
  cfg.run.backend = Backend::Cuda;
  try {
    Simulation sim(comm, cfg);
    FAIL() << "constructing a CUDA simulation without a device did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no usable GPU"), std::string::npos) << e.what();
  }
}

// ---- for compute-sanitizer (tests/gpu/sanitize.sh): short, every kernel ------------------------

TEST(CudaSanitize, ShortRunEveryKernel) {
  if (const std::string why = no_gpu_reason(); !why.empty())
    GTEST_SKIP() << "no CUDA device: " << why;
  Communicator comm(MPI_COMM_WORLD);
  for (Method m : {Method::HalfShell, Method::NeutralTerritory, Method::FullShell})
    for (NeighborFill fill : {NeighborFill::SegmentedScan, NeighborFill::AtomicCounters}) {
      SimulationConfig cfg = melt(4, 12, 3);
      cfg.decomposition.method = m;
      cfg.cuda.fill = fill;
      cfg.neighbor.skin = 0.1;  // rebuilds every few steps
      cfg.run.backend = Backend::Cuda;
      Simulation sim(comm, cfg);
      sim.setup();
      long long samples = 0;
      sim.run([&](const ThermoSample&) { ++samples; });
      EXPECT_GT(samples, 0);
      EXPECT_GT(sim.rebuilds(), 1);
      EXPECT_NE(sim.state_hash(), 0u);
      EXPECT_FALSE(sim.neighbor_entries().empty());
    }
}

}  // namespace
}  // namespace scanmd
