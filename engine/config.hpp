// The configuration of a run: the deck's typed sections, defined once. io/deck.cpp parses TOML
// into them (io::Deck is a SimulationConfig plus the file it came from), Simulation takes them as
// they are, and every default lives here — the defaults reproduce LAMMPS `bench/in.lj`.
// LJ reduced units throughout (σ, ε, m, τ = σ√(m/ε); k_B = 1).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.hpp"
#include "base/units.hpp"
#include "base/vec3.hpp"
#include "decomposition/method.hpp"
#include "physics/bonded/bonded_config.hpp"
#include "physics/pair/pair_config.hpp"

namespace scanmd {

// Where the time step runs. Auto: the GPU when every rank has a usable one, else the host.
enum class Backend { Auto, Host, Cuda };

inline constexpr NamedValue<Backend> kBackendNames[] = {
    {Backend::Auto, "auto"}, {Backend::Host, "host"}, {Backend::Cuda, "cuda"}};

constexpr std::string_view backend_name(Backend b) {
  return name_of<Backend>(kBackendNames, b);
}

// The precision of the pair math (run.precision): Double, or Mixed, each pair's terms in float
// (physics/pair/mixed.hpp), forces still summed in 64-bit fixed point and integrated in double.
enum class Precision { Double, Mixed };

inline constexpr NamedValue<Precision> kPrecisionNames[] = {{Precision::Double, "double"},
                                                            {Precision::Mixed, "mixed"}};

// How the CUDA neighbour-list build places each accepted candidate in its row.
//   SegmentedScan   run counts → segmented exclusive scan (segments = rows): deterministic row
//                   order, the same order as the host list (default)
//   AtomicCounters  one atomicAdd per (row, stencil run) on the row's counter: no scan pass,
//                   row order depends on scheduling (forces are the same bits either way)
// The environment variable SCANMD_CUDA_NL_FILL=segmented|atomic overrides the configured value.
// Which is faster is the H200's to say: bench/md/bench_md_neighbors times both (it is part of
// scripts/gpu-check.sh). SegmentedScan stays the default until that measurement says otherwise:
// it costs one extra pass over 25·n small counts, but the atomic variant's counters are
// contended (25 adds per row land on one word) and its rows come out in a different order every
// run, which makes lists harder to compare and debug.
enum class NeighborFill { SegmentedScan, AtomicCounters };

inline constexpr NamedValue<NeighborFill> kNeighborFillNames[] = {
    {NeighborFill::SegmentedScan, "segmented"}, {NeighborFill::AtomicCounters, "atomic"}};

// The most atom types a run may have: the pair tables grow as T² (types 1..T, every like pair
// listed in the deck), so a count beyond this is a typo or a hostile file, refused by the deck
// and data file readers before any table is made.
inline constexpr int kMaxAtomTypes = 1024;

struct SystemSection {
  // LAMMPS `units`: lj (reduced), metal or real (base/units.hpp); the constants follow from it.
  UnitSystem units = UnitSystem::LJ;
  std::string lattice = "fcc";           // initial lattice (fcc only)
  double density = 0.8442;               // number density ρ, σ⁻³
  std::array<int, 3> cells{20, 20, 20};  // unit cells along x, y, z
  double temperature = 1.44;   // initial temperature, exact with 3N − 3 degrees of freedom
  std::uint64_t seed = 87287;  // velocities and types are functions of (seed, particle id) only
  // Mass per type (index type − 1); one value: every type.
  std::vector<double> mass{1.0};
  // Not a deck key: the atom_style of the data file read (system.data_file), which
  // output.data_file writes again ("atomic", "bond", "angle", "molecular").
  std::string data_atom_style = "atomic";
  // Lattice starts: the fraction of each type (types 1..size), summing to 1; the counts are
  // exact (largest remainder) and which sites get which type is a function of (seed, id) only.
  // Empty: every particle is type 1.
  std::vector<double> type_fractions;
  // LAMMPS write_data file (atom_style atomic) to start from; empty: the lattice above. When set,
  // box, ids, types, positions, image flags and velocities come from the file (lattice, density,
  // cells, temperature, seed and type_fractions are not used), the masses from its Masses section
  // (`mass` when it has none), and the box size is checked once the file is read.
  std::string data_file;
  // Not deck keys: the box and the number of atom types of a started-from file (data file, test
  // configuration), set by whoever reads it; unset: the lattice's box and type_fractions' types.
  std::optional<Vec3> box;
  std::optional<int> types;

  // The number of species T: the file's, else type_fractions' length, else 1.
  int type_count() const {
    if (types) return *types;
    return type_fractions.empty() ? 1 : static_cast<int>(type_fractions.size());
  }
  UnitConstants constants() const { return unit_constants(units); }
  // The mass of type t (0-based).
  double mass_of(int t) const { return mass.size() == 1 ? mass[0] : mass.at(t); }
};

// Temperature control ([thermostat]).
//   None        NVE
//   Langevin    F = −(m/τ) v + √(24 m T / (τ dt)) (u − ½) per axis, as LAMMPS `fix langevin T T τ
//               seed`; u from Philox4x64 keyed by (seed, particle id, step): the same numbers
//               whatever the rank count, decomposition, backend or restart (physics/dynamics/langevin.hpp)
//   NoseHoover  a Nosé–Hoover chain of `chain` thermostats, as LAMMPS `fix nvt temp T T τ
//               tchain M` integrates it (physics/dynamics/nose_hoover.hpp)
//   DpdTstat    the dissipative and random pair forces of DPD (LAMMPS pair_style dpd/tstat,
//               physics/pair/dpd.hpp) with friction `gamma` within `cutoff`, as a second pair
//               compute on top of the run's pair style (engine/force_compute.hpp)
enum class ThermostatStyle { None, Langevin, NoseHoover, DpdTstat };

inline constexpr NamedValue<ThermostatStyle> kThermostatNames[] = {
    {ThermostatStyle::None, "none"},
    {ThermostatStyle::Langevin, "langevin"},
    {ThermostatStyle::NoseHoover, "nose-hoover"},
    {ThermostatStyle::DpdTstat, "dpd/tstat"}};

// Whether the thermostat tracks its coupling energy (the thermo table's econs): Langevin's work,
// the Nosé–Hoover chain's energy; not dpd/tstat (LAMMPS keeps none for it either).
inline bool thermostat_has_econs(ThermostatStyle s) {
  return s == ThermostatStyle::Langevin || s == ThermostatStyle::NoseHoover;
}

struct ThermostatSection {
  ThermostatStyle style = ThermostatStyle::None;
  double temperature = 1.0;  // target T
  double damping = 1.0;    // τ: LAMMPS `damp` (Langevin) and `Tdamp` (Nosé–Hoover), time units
  std::uint64_t seed = 1;  // Langevin random numbers
  int chain = 3;           // Nosé–Hoover chain length (LAMMPS tchain)
  double gamma = 1.0;      // dpd/tstat: the friction γ of every pair of types
  double cutoff = 0.0;     // dpd/tstat: its reach r_c (0: the pair style's largest cutoff)
};

struct NeighborSection {
  double skin = 0.3;  // import cutoff R = cutoff + skin; rebuild when a particle moved > skin/2
};

struct RunSection {
  double dt = 0.005;
  std::int64_t steps = 100;
  Backend backend = Backend::Auto;
  Precision precision = Precision::Double;
};

// Load balancing (engine/load_balance.hpp): the grid's cut planes move, per axis, so that every
// slab of boxes carries the same share of a cost — particles, neighbour-list pairs, or the
// measured force and list time — as LAMMPS `balance shift` / `fix balance shift` do.
enum class Balance { None, Particles, Pairs, Time };

inline constexpr NamedValue<Balance> kBalanceNames[] = {{Balance::None, "none"},
                                                        {Balance::Particles, "particles"},
                                                        {Balance::Pairs, "pairs"},
                                                        {Balance::Time, "time"}};

struct DecompositionSection {
  Method method = Method::HalfShell;
  std::array<int, 3> grid{0, 0, 0};  // all 0: chosen to minimise the method's import volume
  Balance balance = Balance::None;
  std::int64_t balance_every = 0;   // steps between balance steps; 0: only at setup
  double balance_tolerance = 1.05;  // balance only when the cost's max/mean exceeds this
};

// Velocities drawn for any start, as LAMMPS `velocity all create T seed loop geom` (mom yes, rot
// no, dist uniform): a function of (seed, particle id) only (engine/velocities.hpp), net momentum
// removed and scaled to T exactly with 3N − 3 degrees of freedom. With a lattice start it
// replaces system.temperature / system.seed for the velocities; with a data file, the file's
// Velocities section; a restart continues the checkpoint's velocities.
struct VelocitySection {
  bool create = false;
  double temperature = 1.0;
  std::uint64_t seed = 4928459;  // LAMMPS in.melt's seed
};

// Energy minimisation before the dynamics ([minimize], engine/minimize.hpp): FIRE as LAMMPS
// `min_style fire` (its 2020 defaults) runs it. The time steps are 0 here when left to their
// LAMMPS defaults, resolved by the minimiser: dt_start = run.dt, dt_max = 10·dt_start (tmax),
// dt_min = 0.02·dt_start (tmin).
enum class MinimizeStyle { None, Fire };

inline constexpr NamedValue<MinimizeStyle> kMinimizeNames[] = {{MinimizeStyle::None, "none"},
                                                               {MinimizeStyle::Fire, "fire"}};

struct MinimizeSection {
  MinimizeStyle style = MinimizeStyle::None;
  double etol = 0.0;              // relative energy change between iterations (0: not checked)
  double ftol = 1e-6;             // |F| two-norm over all particles (0: not checked)
  std::int64_t max_steps = 1000;  // iterations (LAMMPS maxiter)
  double dt_start = 0.0;          // 0: run.dt
  double dt_max = 0.0;            // 0: 10 · dt_start
  double dt_min = 0.0;            // 0: 0.02 · dt_start
  double max_move = 0.1;          // largest move of a coordinate in one iteration (LAMMPS dmax)
  std::int64_t delay_steps = 20;  // LAMMPS delaystep
  double dt_grow = 1.1;
  double dt_shrink = 0.5;
  double alpha0 = 0.25;
  double alpha_shrink = 0.99;
  bool half_step_back = true;
  std::int64_t max_uphill = 2000;   // stop after this many consecutive P <= 0 (LAMMPS vdfmax)
  std::int64_t progress_every = 0;  // log line every N iterations (0: output.thermo_every)
};

// The thermo keywords (LAMMPS `thermo_style custom` names) scanmd knows.
inline constexpr std::string_view kThermoKeywords[] = {
    "step",  "time",   "temp",  "pe",  "ke",      "etotal", "press",   "econs",
    "ebond", "eangle", "evdwl", "vol", "density", "cpu",    "pstep/s", "eta"};

// Thermo columns (output.thermo, LAMMPS `thermo_style custom` keywords; engine/config.hpp's
// kThermoKeywords): the run's list, the default one when none was given (step temp pe ke etotal
// press, econs with a thermostat, then pstep/s eta).
std::vector<std::string> thermo_columns(const std::vector<std::string>& given, bool thermostat);
// cpu, pstep/s and eta: measured on the clock (not in the trajectory, not reproducible).
bool is_timing_column(std::string_view keyword);
// The columns of the trajectory's scanmd/thermo table: `columns` less step and the timing ones.
std::vector<std::string> thermo_table_columns(const std::vector<std::string>& columns);

struct OutputSection {
  std::int64_t thermo_every = 50;  // 0: only at the start and the end
  // The thermo columns; empty: the default (step temp pe ke etotal press [econs] pstep/s eta,
  // econs with a thermostat).
  std::vector<std::string> thermo;
  int thermo_digits = 8;              // significant digits of the floating-point columns
  std::string log = "log.scanmd";     // everything rank 0 prints and the resolved deck; empty: none
  int backups = 99;                   // at most this many #name.N# backups per output
  bool trajectory_unwrapped = false;  // position + image·L in the trajectory too
  std::string trajectory;             // empty: no trajectory
  std::int64_t trajectory_every = 0;
  bool trajectory_force = false;  // forces in the trajectory too
  std::string checkpoint;         // empty: no checkpoint
  std::int64_t checkpoint_every = 0;
  bool overwrite = false;
  std::string imports;  // CSV of per-rank import counts at every rebuild; empty: not written
  // LAMMPS data file of the final state (write_data: types, masses, positions, image flags,
  // velocities); empty: not written
  std::string data_file;
};

// Not deck keys: choices of the CUDA backend that tests and benchmarks pin down (the environment
// variables SCANMD_CUDA_NL_FILL, SCANMD_CUDA_REBUILD and SCANMD_CUDA_FUSE override them).
struct CudaTuning {
  NeighborFill fill = NeighborFill::SegmentedScan;
  bool device_rebuild = true;  // rebuilds on the device; false: through the host (for comparison)
  bool fuse = true;  // memsets of the step fused into its kernels; false: separate (for comparison)
};

// Lattice starts: where the lattice's sites are kept (LAMMPS `region` + `create_atoms`), in σ, in
// the box of `system.cells` lattice cells: the whole box, a slab [lo, hi) across one axis, or a
// sphere. Ids are 1..N over the kept sites in the lattice's order (as LAMMPS numbers them).
enum class RegionStyle { Box, Slab, Sphere };

inline constexpr NamedValue<RegionStyle> kRegionNames[] = {
    {RegionStyle::Box, "box"}, {RegionStyle::Slab, "slab"}, {RegionStyle::Sphere, "sphere"}};

struct RegionSection {
  RegionStyle style = RegionStyle::Box;
  int axis = 2;                           // slab: its normal, 0..2 (x, y, z)
  double lo = 0.0, hi = 0.0;              // slab: [lo, hi) along the axis
  std::array<double, 3> center{0, 0, 0};  // sphere
  double radius = 0.0;                    // sphere: points with |x − center| < radius

  bool contains(Vec3 x) const {
    switch (style) {
      case RegionStyle::Box:
        return true;
      case RegionStyle::Slab: {
        const double c = axis == 0 ? x.x : (axis == 1 ? x.y : x.z);
        return c >= lo && c < hi;
      }
      case RegionStyle::Sphere: {
        const double dx = x.x - center[0], dy = x.y - center[1], dz = x.z - center[2];
        return dx * dx + dy * dy + dz * dz < radius * radius;
      }
    }
    return true;
  }
};

struct SimulationConfig {
  SystemSection system;
  RegionSection region;
  PotentialSection potential;
  NeighborSection neighbor;
  RunSection run;
  DecompositionSection decomposition;
  ThermostatSection thermostat;
  VelocitySection velocity;
  OutputSection output;
  MinimizeSection minimize;
  CudaTuning cuda;
  BondSection bond;  // bonds, angles and their exclusions (physics/bonded/bonded_config.hpp)
  AngleSection angle;
  SpecialBondsSection special_bonds;

  // R: the largest reach of the run's force computes (engine/force_compute.hpp) plus the skin.
  double import_cutoff() const;
  // R_b: under neutral territory with angles, the width of the bonded shell it imports besides
  // its tower and plate (decomposition/import_rule.hpp): the longest bond plus the skin, so the
  // owner of an angle's vertex, which computes it, holds its two ends; 0 otherwise.
  double bonded_shell() const;

  // The largest pair cutoff: potential.cutoff when no pair is listed, else the largest listed
  // one (a mixed pair's cutoff is a mean of two listed ones, never larger).
  static double max_pair_cutoff(const PotentialSection& p);
};

// The number of particles of a lattice start: the fcc sites inside the region.
std::uint64_t lattice_start_count(const SimulationConfig& c);

// The box edge lengths a run starts with: system.box when set, else the fcc lattice's
// (cells · (4/ρ)^(1/3)).
Vec3 initial_box_length(const SystemSection& system);

// The first axis (0, 1, 2) along which `length` is not longer than the skin, or nothing. Boxes
// shorter than 2·(cutoff + skin) are fine (explicit pair images, base/box.hpp), but there a wrap
// must move a particle by more than skin/2 to trigger the rebuild, which needs L > skin.
std::optional<int> short_box_axis(Vec3 length, double skin);
// "box 0.2 along x is not longer than neighbor.skin = 0.3"
std::string short_box_message(Vec3 length, double skin, int axis);

}  // namespace scanmd
