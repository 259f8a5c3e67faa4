// The CUDA time step as seen from plain C++ (no CUDA types: this is the pimpl boundary).
//
// Simulation (core/simulation.cpp) owns one DeviceBackend when `backend = cuda` and calls it
// phase by phase, in the order of DESIGN.md §2; the data stay on the device between steps:
//
//   owned + ghost id, x, home, shift, f (fixed point)   owned v, image, x_build
//   export index of the halo plan, ghost send/receive buffers, cell list, neighbour list (CSR)
//
// Every step: initial_integrate() (half kick + drift + wrap + the skin/2 test, one flag back to
// the host), forward() (pack by export index → [host] → MPI → ghost slots), compute_forces()
// (one thread per list row, int64 atomics), reverse() (ghost forces → [host] → MPI → summed
// into the owners with overflow-checked integer atomics), final_integrate().
// Rebuild steps: the owned particles come back to the host (download_owned), which migrates
// them and builds the halo plan as on the host backend; upload() then takes owned + ghosts and
// the plan to the device, where the cell list (counting sort) and the neighbour list
// (count → scan → fill, same PairRule, same cell geometry) are built. On a single rank the
// rebuilds after the first stay on the device altogether (rebuild_locally).
//
// Device code never prints: kernels raise flags (pair term or force sum overflow, non-finite
// position or a particle outside the box / local domain) with the lowest offending index, and
// the next synchronising call turns them into exceptions naming the particle id(s). CUDA API
// errors become std::runtime_error naming the call. Calls that synchronise say so.
//
// Built only with SCANMD_WITH_CUDA (core/cuda/device_backend.cpp); otherwise
// device_backend_none.cpp answers device_usable() = false and make_device_backend() throws.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/fixed_point.hpp"
#include "core/lj.hpp"
#include "core/particles.hpp"
#include "core/timers.hpp"
#include "decomposition/import_rule.hpp"

namespace scanmd {

class Communicator;
class HaloExchange;

// How the CUDA neighbour-list build places each accepted candidate in its row.
//   SegmentedScan   run counts → segmented exclusive scan (segments = rows): deterministic row
//                   order, the same order as the host list (default)
//   AtomicCounters  one atomicAdd per (row, stencil run) on the row's counter: no scan pass,
//                   row order depends on scheduling (forces are the same bits either way)
// The environment variable SCANMD_CUDA_NL_FILL=segmented|atomic overrides the configured
// value. Which is faster is the H200's to say: bench/md/bench_md_neighbors times both (it is
// part of scripts/gpu-check.sh). SegmentedScan stays the default until that measurement says
// otherwise: it costs one extra pass over 25·n small counts, but the atomic variant's counters
// are contended (25 adds per row land on one word) and its rows come out in a different order
// every run, which makes lists harder to compare and debug.
enum class NeighborFill { SegmentedScan, AtomicCounters };

struct DeviceConfig {
  Box box;
  LJParams lj;
  double dt = 0, mass = 1, skin = 0, import_cutoff = 0;
  Method method = Method::HalfShell;
  PairRule rule{};
  Vec3 lo{}, hi{};  // this rank's box
  NeighborFill fill = NeighborFill::SegmentedScan;
  // One rank: rebuild on the device (see rebuilds_locally); `region` is box 0's import region
  // (ExportSelector::region). SCANMD_CUDA_REBUILD=host|device overrides.
  bool local_rebuild = true;
  ImportRegion region{};
};

// Ghost counts of a rebuild made on the device (HaloExchange's ImportCounts without bytes: a
// single rank sends nothing).
struct DeviceImportCounts {
  long long ghosts = 0, tower = 0, plate = 0;
};

// Force-call totals of this rank (as the host's ForceTotals).
struct DeviceForceTotals {
  fixed::Wide energy = 0, virial = 0;
  long long pairs = 0;
};

// Device time of the last upload()'s list build (CUDA events), for benchmarks.
struct DeviceBuildTimes {
  double cells_ms = 0;      // binning + counting sort + cell-ordered copies
  double neighbors_ms = 0;  // count → place → rows → scan → fill → max terms
  std::uint64_t entries = 0;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;

  // What runs where, for the log: device name, MPI path (CUDA-aware or host-staged), fill.
  virtual std::string description() const = 0;

  // Rebuild: uploads owned + ghosts of `p` (right after halo.build()) and the halo plan, then
  // bins and builds the neighbour list on the device. Synchronises. Times Phase::Neigh.
  virtual void upload(const ParticleStore& p, const HaloExchange& halo, Timers& timers) = 0;
  // One rank, after a first upload(): nothing can migrate and every ghost is a periodic image
  // of an own particle, so the whole rebuild stays on the device — owned particles sorted by
  // cell (counting sort, as the host rebuild does), ghosts made by count → scan → fill with the
  // host's selection functions (core/cuda/ghosts.cu), then bin + list as in upload(). The
  // particle layout stays the host backend's. Synchronises. Times Phase::Neigh (sort, bin,
  // list) and Phase::Plan (ghosts).
  virtual bool rebuilds_locally() const = 0;
  virtual DeviceImportCounts rebuild_locally(Timers& timers) = 0;

  // Copies id, x, v, image and f of the owned particles into `p` (p.n_owned must match).
  // Synchronises and raises pending errors.
  virtual void download_owned(ParticleStore& p) = 0;

  // Half kick + drift + wrap; returns whether any owned particle moved more than skin/2 since
  // the last build (this rank only). Synchronises, raises pending errors (also those of the
  // previous step's forces) and books the device phase timings of the previous step.
  virtual bool initial_integrate(Timers& timers) = 0;
  virtual void forward(Timers& timers) = 0;                           // Phase::Forward
  virtual void compute_forces(bool with_energy, Timers& timers) = 0;  // Phase::Pair
  virtual void reverse(Timers& timers) = 0;                           // Phase::Reverse
  virtual void final_integrate() = 0;

  // Totals of the last compute_forces (energy and virial when it was asked for them), and
  // Σ m v² over the owned particles now. Synchronise and raise pending errors.
  virtual DeviceForceTotals force_totals() = 0;
  virtual fixed::Wide twice_kinetic() = 0;

  // Waits for the device, raises pending errors, books pending phase timings.
  virtual void synchronize(Timers& timers) = 0;

  virtual DeviceBuildTimes last_build_times() const = 0;

  // The neighbour list (CSR over owned + ghost indices) of the last build, for tests.
  virtual void neighbor_list(std::vector<std::uint64_t>& offsets,
                             std::vector<std::uint32_t>& neighbors) = 0;
};

// True when this build has the CUDA backend and a usable device (driver, device, a probe
// kernel runs); otherwise false and *why says what is missing. Never throws.
bool device_usable(std::string* why = nullptr);

// Collective over comm: picks this rank's device the way the backend will (ranks of a node take
// its devices round robin: local rank % device count), makes it current, and probes that device
// only, so no rank opens a context on a device it will not use. True when usable; otherwise
// false and *why says why. Never throws.
bool select_device(const Communicator& comm, std::string* why = nullptr);

// One line for the log before a run: device, MPI path (CUDA-aware or host-staged) and the
// neighbour fill in effect (SCANMD_CUDA_NL_FILL applied to `configured`); or why no GPU is
// usable. Call after MPI_Init.
std::string device_backend_summary(NeighborFill configured = NeighborFill::SegmentedScan);

// The CUDA backend of one rank (selects device local_rank % device_count). Throws
// std::runtime_error when the build has no CUDA backend or no device is usable.
std::unique_ptr<DeviceBackend> make_device_backend(const Communicator& comm,
                                                   const DeviceConfig& config);

}  // namespace scanmd
