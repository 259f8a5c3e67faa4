// H5MD 1.1 trajectory file, written collectively by all ranks with parallel HDF5.
//
// Layout (N particles, F frames; every time series has `value`, `step` (int64) and `time`):
//   /h5md                         attribute version = [1, 1]; author (name), creator (name,
//   version) /particles/trajectory/box     attributes dimension = 3, boundary = periodic ×3
//        box/edges                value (F, 3, 3): the diagonal box matrix of each frame
//        position, velocity       value (F, N, 3) double, wrapped positions
//        image                    value (F, N, 3) int32, periodic image counters
//        force                    value (F, N, 3) double (only when asked for)
//        unwrapped_position       value (F, N, 3) double, position + image · L (only when asked
//                                 for: output.trajectory_unwrapped)
//        id, species              (N) int64 / int32, time-independent (id = row + 1, species 0)
//   /connectivity/bonds, angles   (with bonds and angles) time-independent (n, 2) / (n, 3) int64:
//                                 the particle ids of each bond and angle (H5MD 1.1
//                                 connectivity; attribute particles_group = "/particles/trajectory",
//                                 ids = "id": values are ids, not row indices); absent when none
//        molecule                 (N) int64 in particles/trajectory: the data file's molecule ids
//   /observables/{temperature, potential_energy, kinetic_energy, total_energy, pressure}
//                                 value (F), sampled on exactly the frames above
//   /scanmd/thermo                table (step, then the run's thermo columns: output.thermo less
//                                 the timing ones, cpu, pstep/s and eta): every thermo row
//   /scanmd/runs/<k>/             one group per run writing into the file (k = 0, 1, ...: the
//                                 first run and each restart appending): deck (resolved TOML),
//                                 attributes method, grid, ranks, first_step, last_step,
//                                 restart_from; imports/{step, ghosts, tower, plate,
//                                 bytes_per_step} (rebuilds × ranks); timing (section, min,
//                                 avg, max, percent)
// Everything sampled together shares one `step` and one `time` dataset: they live in
// particles/trajectory/position and every other element holds hard links to them. Series are
// chunked and extendible along the frame axis.
//
// Rows are ordered by particle id; write_frame() takes this rank's contiguous block of rows
// (row_block(), order_by_id() in particle_rows.hpp). Every member function is collective.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/communicator.hpp"
#include "base/units.hpp"
#include "io/hdf5_handle.hpp"
#include "io/hdf5_ops.hpp"
#include "io/particle_rows.hpp"

namespace scanmd::io {

struct H5mdLayout {
  std::int64_t particles = 0;
  // system.units: metal and real give every dataset an H5MD 1.1 `unit` attribute (the spellings
  // MDAnalysis's H5MD reader converts: "Angstrom", "Angstrom ps-1", "ps", ...); lj: none.
  UnitSystem units = UnitSystem::LJ;
  bool force = false;        // particles/trajectory/force
  bool observables = true;   // /observables with every frame
  bool thermo_table = true;  // /scanmd/thermo
  // Its columns after `step`.
  std::vector<std::string> thermo_columns{"temp", "pe", "ke", "etotal", "press"};
  bool unwrapped = false;  // particles/trajectory/unwrapped_position
};

struct FrameHeader {
  std::int64_t step = 0;
  double time = 0;
  std::array<double, 3> box{0, 0, 0};  // edge lengths of the orthorhombic box
};

struct Observables {
  double temperature = 0, potential_energy = 0, kinetic_energy = 0, total_energy = 0, pressure = 0;
};

struct ThermoRow {
  std::int64_t step = 0;
  std::vector<double> values;  // one per H5mdLayout::thermo_columns
};

struct RunRecord {
  std::string deck;  // Deck::to_toml()
  std::string method;
  std::array<int, 3> grid{1, 1, 1};
  int ranks = 1;
  std::int64_t first_step = 0;
  std::string restart_from;           // checkpoint the run started from ("" for none)
  std::string thermostat = "none";    // [thermostat] style (its settings are in `deck`)
  UnitSystem units = UnitSystem::LJ;  // system.units: a checkpoint's datasets carry its `unit`s
};

struct ImportRecord {
  std::int64_t step = 0;
  // Per rank: ghosts, tower, plate, bytes_per_step.
  std::vector<std::array<std::int64_t, 4>> per_rank;
  // Per rank: pairs within the cutoff of the first force call after the rebuild (-1: none yet).
  std::vector<std::int64_t> pairs;
};

// One load-balance step (decomposition.balance): its cost's max/mean before and after, and the
// cut planes in force after it, per axis (0 … L, n + 1 planes).
struct BalanceRecord {
  std::int64_t step = 0;
  double before = 1, after = 1;
  bool moved = false;
  std::vector<double> cuts[3];
};

struct TimingRow {
  std::string section;
  double min = 0, avg = 0, max = 0, percent = 0;
};

class H5mdWriter {
 public:
  // A new file at `path` (an existing one is replaced). `species_block`: this rank's row block
  // (row_block()) of particles/trajectory/species, the LAMMPS atom types; empty: all type 1.
  // `temporary`: a file that is given up on failure (a checkpoint's <path>.tmp): emptied before
  // its close, so that the close needs no room on a full disk.
  static H5mdWriter create(const Communicator& comm, const std::string& path,
                           const H5mdLayout& layout, const std::string& creator_version,
                           std::span<const std::int32_t> species_block = {},
                           bool temporary = false);
  // An existing trajectory, continued from a restart at `restart_step`: frames with a step
  // <= restart_step and thermo rows with a step < restart_step are kept, later ones dropped.
  // Throws when the file does not hold a trajectory of this layout (particle count, force).
  static H5mdWriter append(const Communicator& comm, const std::string& path,
                           const H5mdLayout& layout, std::int64_t restart_step);
  // The steps of the frames an existing trajectory holds (particles/trajectory/position/step),
  // read without changing the file; nullopt when it cannot be read as one (append() then says
  // why). Collective.
  static std::optional<std::vector<std::int64_t>> frame_steps(const Communicator& comm,
                                                              const std::string& path);
  // The open file and its collective transfer, for extra datasets of callers (checkpoint).
  hid_t file() const { return file_.get(); }
  h5::Transfer transfer() const { return io(); }

  H5mdWriter(H5mdWriter&&) noexcept = default;
  H5mdWriter& operator=(H5mdWriter&&) noexcept = default;
  ~H5mdWriter();

  const std::string& path() const { return path_; }
  std::int64_t frames() const { return frames_; }
  std::optional<std::int64_t> last_step() const { return last_step_; }

  // One frame: `block` is this rank's row block, sorted by id. `obs` is required when the
  // layout has observables (only rank 0's values are written).
  void write_frame(const FrameHeader& frame, std::span<const ParticleRow> block,
                   const Observables* obs);
  void write_thermo(const ThermoRow& row);  // only rank 0's row is written
  // The topology (see the layout above): this rank's bonds (2 ids each) and angles (3 ids each),
  // written after those of the lower ranks, and its row block of molecule ids. Collective.
  void write_topology(std::span<const std::int64_t> bonds, std::span<const std::int64_t> angles,
                      std::span<const std::int64_t> molecule_block);
  // Opens /scanmd/runs/<k> for this run; end_run() completes it (imports, balance steps,
  // timing).
  void begin_run(const RunRecord& run);
  // `balance_cost`: decomposition.balance ("none": no balance group).
  void end_run(std::int64_t last_step, std::span<const ImportRecord> imports,
               const std::string& balance_cost, std::span<const BalanceRecord> balances,
               std::span<const TimingRow> timing);
  // Flushes and closes (reports a failing last flush, unlike the destructor).
  void close();

  // Errors (issue 15): every member above is collective and ends with the ranks agreeing on its
  // outcome (hdf5_ops.hpp); when it failed on any rank, the writer keeps what was complete —
  // the frames and thermo rows written before, the extents cut back to them — closes the file
  // on every rank and throws the same CollectiveError everywhere. The file then reads as it was
  // after its last complete frame. A failed close leaves HDF5 unable to shut down
  // (h5::library_damaged()).

 private:
  struct Series {
    std::string name;  // path of the element group
    Dataset value;
  };
  H5mdWriter() = default;
  void open_series(bool create);
  void flush();
  h5::Transfer io() const { return {dxpl_.get(), comm_}; }
  // Runs `body` (this rank's part of a collective member) and agrees on its outcome; on failure
  // abandon() and throw the agreed CollectiveError.
  template <class F>
  void guarded(F&& body);
  void abandon() noexcept;  // collective: roll back to the complete frames, close the file
  void write_frame_unguarded(const FrameHeader& frame, std::span<const ParticleRow> block,
                             const Observables* obs);
  void write_thermo_unguarded(const ThermoRow& row);
  void begin_run_unguarded(const RunRecord& run);
  void end_run_unguarded(std::int64_t last_step, std::span<const ImportRecord> imports,
                         const std::string& balance_cost, std::span<const BalanceRecord> balances,
                         std::span<const TimingRow> timing);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, ranks_ = 1;
  std::string path_;
  H5mdLayout layout_;
  File file_;
  PropertyList dxpl_;
  Dataset step_, time_, thermo_;
  std::vector<Series> series_;  // box/edges, position, velocity, image, [force], observables
  Group run_;
  std::int64_t frames_ = 0, thermo_rows_ = 0;
  bool temporary_ = false;
  std::optional<std::int64_t> last_step_;
};

}  // namespace scanmd::io
