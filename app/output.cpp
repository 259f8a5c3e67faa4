// Trajectory, checkpoint and data file output of a run (see output.hpp).
#include "app/output.hpp"

#include <spdlog/spdlog.h>

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "app/build_info.hpp"
#include "base/fixed_point.hpp"
#include "engine/memory_budget.hpp"
#include "engine/topology.hpp"
#include "io/backup.hpp"
#include "io/checkpoint.hpp"
#include "io/h5md_writer.hpp"
#include "io/lammps_data.hpp"
#include "io/output_lock.hpp"
#include "io/particle_rows.hpp"

namespace scanmd {

namespace {

// Times a scope into a running total.
class StopWatch {
 public:
  explicit StopWatch(double& total) : total_(total), start_(Clock::now()) {}
  ~StopWatch() { total_ += std::chrono::duration<double>(Clock::now() - start_).count(); }
  StopWatch(const StopWatch&) = delete;
  StopWatch& operator=(const StopWatch&) = delete;

 private:
  using Clock = std::chrono::steady_clock;
  double& total_;
  Clock::time_point start_;
};

using io::same_file;

// Whether two files hold the same bytes (false when either cannot be read).
bool same_content(const std::string& a, const std::string& b) {
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  if (!fa || !fb) return false;
  std::vector<char> ba(1 << 20), bb(1 << 20);
  while (fa && fb) {
    fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
    fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
    if (fa.gcount() != fb.gcount() || !std::equal(ba.begin(), ba.begin() + fa.gcount(), bb.begin()))
      return false;
  }
  return fa.eof() && fb.eof();
}

io::RunRecord run_record(const Communicator& comm, const io::Deck& deck, const Simulation& sim,
                         long long first_step, const std::string& restart_from) {
  io::RunRecord r;
  r.deck = deck.to_toml();
  r.method = std::string(method_name(sim.config().decomposition.method));
  const Int3 g = sim.grid().dims();
  r.grid = {g.x, g.y, g.z};
  r.ranks = comm.size();
  r.first_step = first_step;
  r.restart_from = restart_from;
  r.thermostat = std::string(name_of<ThermostatStyle>(kThermostatNames, deck.thermostat.style));
  r.units = deck.system.units;
  return r;
}

// This rank's block of rows (ordered by id) of the current state.
std::vector<io::ParticleRow> rows_by_id(const Communicator& comm, const Simulation& sim) {
  const ParticleStore& p = sim.particles();
  std::vector<io::ParticleRow> rows(p.n_owned);
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    io::ParticleRow& r = rows[i];
    r.id = p.id[i];
    r.x[0] = p.x[i].x, r.x[1] = p.x[i].y, r.x[2] = p.x[i].z;
    r.v[0] = p.v[i].x, r.v[1] = p.v[i].y, r.v[2] = p.v[i].z;
    r.f[0] = fixed::to_double(p.f[i].x);
    r.f[1] = fixed::to_double(p.f[i].y);
    r.f[2] = fixed::to_double(p.f[i].z);
    r.image[0] = p.image[i].x, r.image[1] = p.image[i].y, r.image[2] = p.image[i].z;
    r.type = static_cast<std::int32_t>(p.type[i]);
  }
  return io::order_by_id(comm, rows, sim.total_particles());
}

// This rank's row block (ordered by id) of the optional State fields of the run (none: no
// communication), for checkpoints.
std::vector<io::FieldBlock> state_field_blocks(const Communicator& comm, const Simulation& sim) {
  const std::vector<FieldSpec> specs = sim.state_fields();
  if (specs.empty()) return {};
  const ParticleStore& p = sim.particles();
  std::vector<io::ParticleRow> rows(p.n_owned);
  io::RowWords words;
  words.stride = p.fields.state_words();
  words.words.resize(p.n_owned * words.stride);
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    rows[i].id = p.id[i];
    p.fields.pack_state(i, words.words.data() + i * words.stride);
  }
  io::order_by_id(comm, rows, sim.total_particles(), &words);
  // pack_state's order: the State columns of the store, as state_fields() lists them.
  std::vector<io::FieldBlock> out;
  const std::size_t n = words.stride == 0 ? 0 : words.words.size() / words.stride;
  std::size_t at = 0;
  for (const FieldSpec& f : specs) {
    io::FieldBlock b{f, {}};
    const auto w = static_cast<std::size_t>(f.width);
    b.words.resize(n * w);
    for (std::size_t i = 0; i < n; ++i)
      std::copy_n(words.words.data() + i * words.stride + at, w, b.words.data() + i * w);
    at += w;
    out.push_back(std::move(b));
  }
  return out;
}

// Bytes a frame of `particles` rows adds to a trajectory, or a checkpoint takes: the chunks of
// its per-particle series (rows in chunks of at most 65 536, allocated whole), plus room for
// the metadata (chunk index, observables, run record) and, for a checkpoint, ids and species.
double frame_bytes(long long particles, bool force, bool checkpoint, bool unwrapped = false) {
  const double chunk_rows = static_cast<double>(std::min<long long>(particles, 65536));
  const double rows = std::ceil(static_cast<double>(particles) / chunk_rows) * chunk_rows;
  double bytes = rows * (3 * 8 + 3 * 8 + 3 * 4 + (force ? 3 * 8 : 0) + (unwrapped ? 3 * 8 : 0));
  if (checkpoint) bytes += static_cast<double>(particles) * (8 + 4);
  return bytes + 64.0 * 1024;
}

// Rank 0, before a write of about `bytes` to `path`: an error when the file system holding it
// has less free space (statvfs), so that a full disk stops the run before anything of the write
// happens (the trajectory stays as after its last frame, the previous checkpoint as it was).
// SCANMD_TEST_NO_SPACE_CHECK=1 skips it (tests of the error path behind it).
void check_space(const std::string& path, double bytes, const std::string& what) {
  static const bool skip = [] {
    const char* v = std::getenv("SCANMD_TEST_NO_SPACE_CHECK");
    return v && *v && std::string_view(v) != "0";
  }();
  if (skip) return;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const std::string where = dir.empty() ? std::string(".") : dir.string();
  struct statvfs fs {};
  if (::statvfs(where.c_str(), &fs) != 0) return;  // the write itself will tell
  const double free_bytes = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  if (free_bytes >= bytes) return;
  throw std::runtime_error(fmt::format(
      "{}: no space left for {}: it needs about {}, the file system of {} has {} free; free "
      "some space (or choose another path) and continue from the last checkpoint",
      path, what, format_bytes(bytes), where, format_bytes(free_bytes)));
}

io::FrameHeader frame_header(const Simulation& sim) {
  const Vec3 L = sim.box().length;
  return {sim.step(), static_cast<double>(sim.step()) * sim.config().run.dt, {L.x, L.y, L.z}};
}

}  // namespace

void check_outputs_spare_inputs(const io::Deck& deck, const std::string& restart_from) {
  const OutputSection& out = deck.output;
  struct Input {
    std::string what, path;
  };
  std::vector<Input> inputs{{"the deck file itself", deck.path}};
  if (!deck.system.data_file.empty())
    inputs.push_back(
        {"the data file this run starts from (system.data_file)", deck.system.data_file});
  if (!restart_from.empty())
    inputs.push_back({"the checkpoint this run restarts from (--restart)", restart_from});
  for (const auto& [key, path] :
       {std::pair{"output.trajectory", &out.trajectory},
        std::pair{"output.checkpoint", &out.checkpoint},
        std::pair{"output.data_file", &out.data_file}, std::pair{"output.imports", &out.imports},
        std::pair{"output.log", &out.log}})
    for (const Input& in : inputs) {
      // Continuing a checkpoint into the same file is the usual restart: it is read whole
      // before the first step and only replaced (backed up first, or atomically by the next
      // checkpoint with output.overwrite) afterwards.
      if (path->empty() || in.path.empty() ||
          (std::string_view(key) == "output.checkpoint" && in.path == restart_from))
        continue;
      if (!same_file(*path, in.path)) continue;
      const auto w = deck.where.find(key);
      throw std::runtime_error(fmt::format(
          "{}: {}: \"{}\" is {} ({}): an output must not replace an input; choose another path",
          w != deck.where.end() ? w->second : deck.path, key, *path, in.what, in.path));
    }
}

void log_removed_backups(const std::vector<std::string>& removed, int keep) {
  for (const std::string& name : removed)
    spdlog::info("removed the oldest backup {} (output.backups = {})", name, keep);
}

ThermoContext thermo_context(const Simulation& sim) {
  ThermoContext c;
  c.dt = sim.config().run.dt;
  c.volume = sim.box().volume();
  c.units = sim.config().system.units;
  const std::vector<long long>& counts = sim.type_totals();
  for (std::size_t t = 0; t < counts.size(); ++t)
    c.total_mass += static_cast<double>(counts[t]) * sim.species().mass.at(t);
  return c;
}

RunOutput::RunOutput(const Communicator& comm, const io::Deck& deck, const Simulation& sim,
                     const std::string& restart_from)
    : comm_(comm),
      deck_(deck),
      restart_from_(restart_from),
      first_step_(sim.step()),
      last_step_(sim.config().run.steps),
      particles_(sim.total_particles()) {
  const OutputSection& out = deck.output;
  const bool restarting = !restart_from.empty();
  if (!out.trajectory.empty() && !out.checkpoint.empty() &&
      same_file(out.trajectory, out.checkpoint))
    throw std::runtime_error(fmt::format(
        "output.trajectory and output.checkpoint are the same file ({})", out.trajectory));
  for (const auto& [key, path] :
       {std::pair{"trajectory", &out.trajectory}, std::pair{"checkpoint", &out.checkpoint}})
    if (!out.data_file.empty() && !path->empty() && same_file(out.data_file, *path))
      throw std::runtime_error(
          fmt::format("output.data_file and output.{} are the same file ({})", key, out.data_file));
  for (const auto& [key, path] :
       {std::pair{"trajectory", &out.trajectory}, std::pair{"checkpoint", &out.checkpoint},
        std::pair{"data_file", &out.data_file}})
    if (!out.imports.empty() && !path->empty() && same_file(out.imports, *path))
      throw std::runtime_error(
          fmt::format("output.imports and output.{} are the same file ({})", key, out.imports));

  // 0. Rank 0 locks every output for the whole run: a second run writing one of them (two
  //    restarts appending to one trajectory) is refused before either touches it.
  on_root(comm, [&] {
    for (const auto& [key, path] :
         {std::pair{"output.trajectory", &out.trajectory},
          std::pair{"output.checkpoint", &out.checkpoint},
          std::pair{"output.data_file", &out.data_file}, std::pair{"output.imports", &out.imports}})
      if (!path->empty()) locks_.emplace_back(*path, key);
  });
  // 1. Rank 0 checks the paths without touching existing files.
  int append = 0;
  on_root(comm, [&] {
    std::error_code ec;
    append = restarting && !out.trajectory.empty() && std::filesystem::exists(out.trajectory, ec)
                 ? 1
                 : 0;
    if (!out.trajectory.empty() && !append) io::check_writable(out.trajectory);
    // The trajectory a restart appends to: a folder, or a file this process may not write,
    // said so (issue 31: MPI-IO's "MPI_ERR_ACCESS" and noise named neither).
    if (append && std::filesystem::is_directory(out.trajectory, ec))
      throw std::runtime_error(out.trajectory + ": cannot write: is a folder (output.trajectory)");
    if (append && ::access(out.trajectory.c_str(), W_OK) != 0)
      throw std::runtime_error(fmt::format(
          "{}: cannot append to this trajectory: {} (output.trajectory; its permissions, or "
          "choose another path)",
          out.trajectory, std::strerror(errno)));
    if (!out.checkpoint.empty()) io::check_writable(out.checkpoint);
    if (!out.data_file.empty()) io::check_writable(out.data_file);
    if (!out.imports.empty()) io::check_writable(out.imports);  // written at the end
  });
  append = comm.broadcast(append, 0);

  io::H5mdLayout layout;
  layout.particles = particles_;
  layout.force = out.trajectory_force;
  layout.units = deck.system.units;
  layout.unwrapped = out.trajectory_unwrapped;
  thermo_columns_ =
      thermo_table_columns(thermo_columns(out.thermo, thermostat_has_econs(deck.thermostat.style)));
  layout.thermo_columns = thermo_columns_;
  // 2. A restart appends to its trajectory: checked (and cut back to the restart step) first.
  //    Frames after the restart step are dropped (and written again by this run): the file as
  //    it was is backed up first (whether frames go or not), unless output.overwrite, and the
  //    log says which go. A file that ends before the restart step leaves a gap: a warning
  //    says which frames miss.
  std::string backup;  // rank 0
  if (append)
    if (const auto steps = io::H5mdWriter::frame_steps(comm, out.trajectory))
      on_root(comm, [&] {
        std::vector<std::string> removed;
        backup = out.overwrite ? std::string()
                               : io::copy_to_backup(out.trajectory, out.backups, &removed);
        log_removed_backups(removed, out.backups);
        account_for_frames(*steps, backup);
      });
  if (append) {
    try {
      trajectory_ = std::make_unique<io::H5mdWriter>(
          io::H5mdWriter::append(comm, out.trajectory, layout, first_step_));
    } catch (const std::exception&) {
      // A file this run cannot append to (another system, another layout) is refused before
      // it changes: its backup, the same bytes, goes again.
      if (!backup.empty() && same_content(backup, out.trajectory)) std::remove(backup.c_str());
      throw;
    }
    // The frames up to the restart step stay, none is written twice; a file left with no
    // frame at all starts again with the first step.
    first_frame_ = trajectory_->frames() == 0;
    spdlog::info("trajectory: appending to {} after its {} frames up to step {}", out.trajectory,
                 trajectory_->frames(), first_step_);
  }
  // 3. Existing files this run would replace are renamed to backups.
  if (!out.overwrite)
    on_root(comm, [&] {
      for (const std::string& path :
           {append ? std::string() : out.trajectory, out.checkpoint, out.data_file, out.imports})
        if (!path.empty())
          if (std::vector<std::string> removed;
              auto b = io::back_up_existing(path, out.backups, &removed)) {
            spdlog::info("backed up existing {} to {}", path, *b);
            log_removed_backups(removed, out.backups);
          }
    });
  // 4. A new trajectory.
  if (!out.trajectory.empty() && !append) {
    std::vector<std::int32_t> species;
    for (const io::ParticleRow& r : rows_by_id(comm, sim)) species.push_back(r.type + 1);
    try {
      trajectory_ = std::make_unique<io::H5mdWriter>(
          io::H5mdWriter::create(comm, out.trajectory, layout, SCANMD_VERSION, species));
    } catch (const CollectiveError&) {
      // Closed by every rank (the failure is agreed): a file that never got its first frame
      // goes, rather than stay half made (issue 31: a disk full from the start left one that
      // HDF5 could not open).
      comm.barrier();
      if (comm.rank() == 0) std::remove(out.trajectory.c_str());
      throw;
    }
  }
  if (trajectory_ && !append && sim.particles().fields.find(kBondAtomField) >= 0)
    write_topology(comm, sim);
  if (trajectory_) trajectory_->begin_run(run_record(comm, deck, sim, first_step_, restart_from));
}

// The bonds, angles and molecule ids into a new trajectory (H5MD connectivity): each rank its
// owned atoms' bonds (at the lower id) and angles (at the vertex), and the molecule ids sent to
// the ranks whose row blocks hold them. Collective.
void RunOutput::write_topology(const Communicator& comm, const Simulation& sim) {
  const ParticleStore& p = sim.particles();
  std::vector<TopologyBond> bonds;
  std::vector<TopologyAngle> angles;
  std::vector<std::int64_t> molecule;
  collect_topology(p.fields, p.id, p.n_owned, bonds, angles, molecule);
  std::vector<std::int64_t> bond_ids, angle_ids;
  for (const TopologyBond& b : bonds) {
    bond_ids.push_back(static_cast<std::int64_t>(b.a));
    bond_ids.push_back(static_cast<std::int64_t>(b.b));
  }
  for (const TopologyAngle& a : angles)
    for (const std::uint64_t id : {a.a, a.b, a.c})
      angle_ids.push_back(static_cast<std::int64_t>(id));
  // (id, molecule) to the rank of the id's row (rows are ids 1..N in order).
  struct IdMolecule {
    std::int64_t id, molecule;
  };
  const std::int64_t n = sim.total_particles();
  std::vector<std::int64_t> lo(static_cast<std::size_t>(comm.size()) + 1, n);
  for (int r = 0; r < comm.size(); ++r)
    lo[static_cast<std::size_t>(r)] = io::row_block(n, r, comm.size()).lo;
  std::vector<std::vector<IdMolecule>> to(static_cast<std::size_t>(comm.size()));
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const auto row = static_cast<std::int64_t>(p.id[i]) - 1;
    const auto r = std::upper_bound(lo.begin(), lo.end() - 1, row) - lo.begin() - 1;
    to[static_cast<std::size_t>(r)].push_back({row + 1, molecule[i]});
  }
  std::vector<IdMolecule> items;
  std::vector<std::size_t> offsets{0};
  for (const auto& v : to) {
    items.insert(items.end(), v.begin(), v.end());
    offsets.push_back(items.size());
  }
  const std::vector<IdMolecule> got = comm.all_to_allv<IdMolecule>(items, offsets);
  const io::RowBlock block = io::row_block(n, comm.rank(), comm.size());
  std::vector<std::int64_t> block_molecules(static_cast<std::size_t>(block.size()), 0);
  for (const IdMolecule& m : got)
    block_molecules[static_cast<std::size_t>(m.id - 1 - block.lo)] = m.molecule;
  trajectory_->write_topology(bond_ids, angle_ids, block_molecules);
}

RunOutput::~RunOutput() = default;

// Rank 0, before a restart appends to the trajectory whose frames are at `steps` (increasing).
void RunOutput::account_for_frames(const std::vector<std::int64_t>& steps,
                                   const std::string& backup) const {
  const OutputSection& out = deck_.output;
  const std::string& path = out.trajectory;
  const auto later = std::upper_bound(steps.begin(), steps.end(), first_step_);
  const long long n_later = steps.end() - later;
  if (n_later > 0) {
    const std::string which = n_later == 1 ? fmt::format("step {}", *later)
                                           : fmt::format("steps {} to {}", *later, steps.back());
    const std::string kept = backup.empty()
                                 ? std::string("output.overwrite = true: no backup")
                                 : fmt::format("the file as it was is backed up to {}", backup);
    spdlog::info(
        "trajectory: {} holds {} frame{} after the restart step {} ({}), dropped and "
        "written again by this run; {}",
        path, n_later, n_later == 1 ? "" : "s", first_step_, which, kept);
  } else if (!backup.empty()) {
    spdlog::info("trajectory: {} is appended to; the file as it was is backed up to {}", path,
                 backup);
  }
  const long long last = steps.empty() ? -1 : steps.back();
  if (steps.empty() || last >= first_step_) return;
  // The frames an unbroken run would have written between the file's end and the restart.
  const long long every = out.trajectory_every;
  if (every > 0) {
    const long long first_missing = (last / every + 1) * every;
    const long long last_missing = (first_step_ - 1) / every * every;
    if (first_missing > last_missing) return;  // none fell in between
    spdlog::warn(
        "warning: trajectory {} ends at step {}, before the restart step {}: the frames "
        "of steps {} to {} (output.trajectory_every = {}) are missing, the file will "
        "have a gap",
        path, last, first_step_, first_missing, last_missing, every);
  } else {
    spdlog::warn(
        "warning: trajectory {} ends at step {}, before the restart step {}: the file "
        "will have a gap (it is not the trajectory of the run that wrote the checkpoint?)",
        path, last, first_step_);
  }
}

bool RunOutput::active() const {
  return trajectory_ || !deck_.output.checkpoint.empty();
}

bool RunOutput::frame_due(long long step) const {
  if (!trajectory_) return false;
  if (step == first_step_ && first_frame_) return true;
  const long long every = deck_.output.trajectory_every;
  const bool periodic = every > 0 ? step % every == 0 : step == last_step_;
  // Appending: never a frame the file already holds (the restart step itself).
  if (step == first_step_ && trajectory_->last_step() && *trajectory_->last_step() >= step)
    return false;
  return periodic;
}

bool RunOutput::checkpoint_due(long long step) const {
  if (deck_.output.checkpoint.empty()) return false;
  const long long every = deck_.output.checkpoint_every;
  if (step == last_step_) return true;
  return step != first_step_ && every > 0 && step % every == 0;
}

bool RunOutput::wants_energy(long long step) const {
  return frame_due(step);
}

void RunOutput::after_step(const Simulation& sim, const ThermoSample* thermo, bool thermo_row) {
  StopWatch watch(seconds_);
  const long long step = sim.step();
  const bool frame = frame_due(step), checkpoint = checkpoint_due(step);
  if (trajectory_ && thermo && thermo_row) {
    io::ThermoRow row{step, {}};
    const ThermoContext context = thermo_context(sim);
    for (const std::string& c : thermo_columns_)
      row.values.push_back(thermo_value(*thermo, c, context));
    trajectory_->write_thermo(row);
  }
  if (!frame && !checkpoint) return;

  // Room for what this step writes, checked before any of it is written (rank 0, shared).
  on_root(comm_, [&] {
    const OutputSection& out = deck_.output;
    const double traj =
        frame ? frame_bytes(particles_, out.trajectory_force, false, out.trajectory_unwrapped)
              : 0.0;
    const double ckpt = checkpoint ? frame_bytes(particles_, false, true) : 0.0;
    if (frame && checkpoint && io::same_file_system(out.trajectory, out.checkpoint))
      check_space(out.trajectory, traj + ckpt,
                  fmt::format("the frame and the checkpoint of step {}", step));
    if (frame) check_space(out.trajectory, traj, fmt::format("the frame of step {}", step));
    if (checkpoint)
      check_space(out.checkpoint, ckpt, fmt::format("the checkpoint of step {}", step));
  });
  const std::vector<io::ParticleRow> block = rows_by_id(comm_, sim);
  const io::FrameHeader header = frame_header(sim);
  if (frame) {
    if (!thermo || !sim.has_energy())
      throw std::logic_error("trajectory frame without energy at step " + std::to_string(step));
    const io::Observables obs{thermo->temp, thermo->pe, thermo->ke, thermo->etotal, thermo->press};
    trajectory_->write_frame(header, block, &obs);
  }
  if (checkpoint) write_checkpoint(sim, header, block);
}

void RunOutput::write_checkpoint(const Simulation& sim, const io::FrameHeader& header,
                                 const std::vector<io::ParticleRow>& block) {
  io::write_checkpoint(comm_, deck_.output.checkpoint, header, block, particles_,
                       run_record(comm_, deck_, sim, first_step_, restart_from_), SCANMD_VERSION,
                       sim.thermostat_state(), state_field_blocks(comm_, sim));
  checkpoint_step_ = sim.step();
  spdlog::debug("checkpoint at step {} written to {}", sim.step(), deck_.output.checkpoint);
}

void RunOutput::finish(const Simulation& sim, const std::vector<TimingRow>& timing, bool stopped) {
  if (stopped && !deck_.output.checkpoint.empty() && checkpoint_step_ != sim.step()) {
    StopWatch watch(seconds_);
    on_root(comm_, [&] {
      check_space(deck_.output.checkpoint, frame_bytes(particles_, false, true),
                  fmt::format("the checkpoint of step {}", sim.step()));
    });
    write_checkpoint(sim, frame_header(sim), rows_by_id(comm_, sim));
  }
  if (trajectory_) {
    std::vector<io::ImportRecord> imports;
    imports.reserve(sim.imports().size());
    for (const ImportSnapshot& s : sim.imports()) {
      io::ImportRecord r;
      r.step = s.step;
      for (const ImportCounts& c : s.per_rank_counts)
        r.per_rank.push_back({c.ghosts, c.tower, c.plate, c.bytes_per_step});
      r.pairs.assign(s.per_rank_pairs.begin(), s.per_rank_pairs.end());
      imports.push_back(std::move(r));
    }
    std::vector<io::BalanceRecord> balances;
    for (const BalanceStep& b : sim.balance_steps()) {
      io::BalanceRecord r{b.step, b.before, b.after, b.moved, {}};
      for (int a = 0; a < 3; ++a) {
        const AxisCuts& axis = b.cuts.axis(a);
        for (int c = 0; c <= axis.n; ++c) r.cuts[a].push_back(c == axis.n ? axis.len : axis.lo(c));
      }
      balances.push_back(std::move(r));
    }
    std::vector<io::TimingRow> rows;
    for (const TimingRow& t : timing) rows.push_back({t.section, t.min, t.avg, t.max, t.percent});
    trajectory_->end_run(
        sim.step(), imports,
        std::string(name_of<Balance>(kBalanceNames, sim.config().decomposition.balance)), balances,
        rows);
    const long long frames = trajectory_->frames();
    trajectory_->close();
    spdlog::info("trajectory: {} frames in {}", frames, deck_.output.trajectory);
  }
  if (checkpoint_step_ >= 0)
    spdlog::info("checkpoint: {} (step {})", deck_.output.checkpoint, checkpoint_step_);
  if (!deck_.output.data_file.empty()) write_data_file(sim);
}

// Every rank turns its row block into data file atoms, rank 0 gathers them (blocks in rank
// order, so by id) and writes the file; its error, if any, is thrown on every rank.
void RunOutput::write_data_file(const Simulation& sim) {
  StopWatch watch(seconds_);
  const std::string& path = deck_.output.data_file;
  std::vector<io::LammpsAtom> block;
  for (const io::ParticleRow& r : rows_by_id(comm_, sim))
    block.push_back({r.id, r.type + 1, r.x[0], r.x[1], r.x[2], r.image[0], r.image[1], r.image[2],
                     r.v[0], r.v[1], r.v[2]});
  io::LammpsData data{};
  data.atoms = comm_.gatherv<io::LammpsAtom>(block, 0);
  // The topology (atom_style bond, angle, molecular): each rank's bonds and angles and its
  // atoms' molecule ids, gathered and ordered on rank 0.
  const std::string& style = sim.config().system.data_atom_style;
  const bool molecular = io::is_molecular_style(style);
  std::vector<TopologyBond> bonds;
  std::vector<TopologyAngle> angles;
  struct IdMolecule {
    std::uint64_t id;
    std::int64_t molecule;
  };
  std::vector<IdMolecule> molecules;
  if (molecular) {
    const ParticleStore& p = sim.particles();
    std::vector<std::int64_t> mol;
    collect_topology(p.fields, p.id, p.n_owned, bonds, angles, mol);
    for (std::size_t i = 0; i < p.n_owned; ++i) molecules.push_back({p.id[i], mol[i]});
    bonds = comm_.gatherv<TopologyBond>(bonds, 0);
    angles = comm_.gatherv<TopologyAngle>(angles, 0);
    molecules = comm_.gatherv<IdMolecule>(molecules, 0);
  }
  on_root(comm_, [&] {
    if (molecular) {
      data.atom_style = style;
      std::sort(molecules.begin(), molecules.end(),
                [](const IdMolecule& a, const IdMolecule& b) { return a.id < b.id; });
      for (std::size_t n = 0; n < data.atoms.size() && n < molecules.size(); ++n)
        data.atoms[n].molecule = molecules[n].molecule;
      std::sort(bonds.begin(), bonds.end(), [](const TopologyBond& a, const TopologyBond& b) {
        return a.a != b.a ? a.a < b.a : a.b < b.b;
      });
      std::sort(angles.begin(), angles.end(), [](const TopologyAngle& a, const TopologyAngle& b) {
        return a.b != b.b ? a.b < b.b : a.a != b.a ? a.a < b.a : a.c < b.c;
      });
      for (const TopologyBond& b : bonds) {
        data.bonds.push_back({b.type, b.a, b.b});
        data.bond_types = std::max(data.bond_types, b.type);
      }
      for (const TopologyAngle& a : angles) {
        data.angles.push_back({a.type, a.a, a.b, a.c});
        data.angle_types = std::max(data.angle_types, a.type);
      }
      for (const BondCoeffRow& c : sim.config().bond.coeffs)
        data.bond_types = std::max(data.bond_types, c.type);
      for (const AngleCoeffRow& c : sim.config().angle.coeffs)
        data.angle_types = std::max(data.angle_types, c.type);
    }
    const Vec3 L = sim.box().length;
    data.lo = {0.0, 0.0, 0.0};
    data.hi = {L.x, L.y, L.z};
    data.atom_types = sim.species().types;
    data.masses = sim.species().mass;
    data.has_velocities = true;
    io::write_lammps_data(
        path, data,
        fmt::format("LAMMPS data file via scanmd {} output.data_file, timestep = {}, units = lj",
                    SCANMD_VERSION, sim.step()));
  });
  spdlog::info("data file: wrote {} ({} atoms, step {})", path, particles_, sim.step());
}

}  // namespace scanmd
