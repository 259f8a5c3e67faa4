// Restart from a checkpoint (see restart.hpp).
#include "app/restart.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "base/box.hpp"
#include "engine/force_compute.hpp"
#include "engine/species.hpp"
#include "engine/topology.hpp"
#include "io/checkpoint.hpp"
#include "io/particle_rows.hpp"

namespace scanmd {

namespace {

bool same_length(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::abs(b);
}

// The wrap Simulation::setup applies, done early so the destination rank is the one that
// keeps the particle (a no-op for the wrapped positions checkpoints hold). A position that
// cannot be wrapped (not finite, or an image flag beyond 32 bits) is an error naming the file.
void wrap_into_box(io::ParticleRow& r, const Box& box, const std::string& path) {
  const double len[3] = {box.length.x, box.length.y, box.length.z};
  for (int k = 0; k < 3; ++k) {
    int image = r.image[k];
    if (!wrap_far_coordinate(r.x[k], image, len[k]))
      throw std::runtime_error(fmt::format(
          "{}: particle {}: {} = {:.17g} (image flag {}) cannot be wrapped into the box [0, "
          "{:.17g}): {}",
          path, r.id, "xyz"[k], r.x[k], r.image[k], len[k],
          std::isfinite(r.x[k]) ? "its image flag would leave the 32-bit range"
                                : "it is not finite"));
    r.image[k] = image;
  }
}

// The deck's type (0-based) of every particle, by id: from the data file, or the lattice's
// (system.type_fractions, seed). Each particle keeps its type for the whole run.
class DeckTypes {
 public:
  DeckTypes(const SimulationConfig& config, long long n,
            const std::vector<InitialParticle>& data_file) {
    if (!data_file.empty()) {
      by_id_.assign(static_cast<std::size_t>(n), 0);
      for (const InitialParticle& p : data_file)
        if (p.id >= 1 && p.id <= static_cast<std::uint64_t>(n)) by_id_[p.id - 1] = p.type;
      source_ = fmt::format("the data file {}", config.system.data_file);
    } else if (!config.system.type_fractions.empty()) {
      lattice_.emplace(config.system.type_fractions, static_cast<std::uint64_t>(n),
                       config.system.seed);
      source_ = fmt::format("system.type_fractions = [{}], system.seed = {}",
                            fmt::join(config.system.type_fractions, ", "), config.system.seed);
    } else {
      source_ = "one species: no system.type_fractions";
    }
  }
  std::uint32_t operator()(std::uint64_t id) const {
    if (!by_id_.empty()) return by_id_[id - 1];
    return lattice_ ? (*lattice_)(id) : 0;
  }
  const std::string& source() const { return source_; }

 private:
  std::vector<std::uint32_t> by_id_;
  std::optional<LatticeTypes> lattice_;
  std::string source_;
};

// Every rank compares its rows' types with the deck's; the lowest id that differs, with both
// types, is thrown on every rank.
void check_types(const Communicator& comm, const std::string& path,
                 const std::vector<io::ParticleRow>& rows, const DeckTypes& deck) {
  long long first = 0, mismatches = 0;
  for (const io::ParticleRow& r : rows)
    if (static_cast<std::uint32_t>(r.type) != deck(r.id)) {
      if (mismatches++ == 0) first = static_cast<long long>(r.id);
    }
  mismatches = comm.sum(mismatches);
  if (mismatches == 0) return;
  // The lowest differing id over the ranks, then its two types (from the rank holding it).
  const long long lowest = -comm.max(first > 0 ? -first : std::numeric_limits<long long>::min());
  long long in_file = -1, in_deck = -1;
  for (const io::ParticleRow& r : rows)
    if (static_cast<long long>(r.id) == lowest) {
      in_file = r.type;
      in_deck = deck(r.id);
    }
  in_file = comm.max(in_file);
  in_deck = comm.max(in_deck);
  throw std::runtime_error(fmt::format(
      "{}: particle {} is of type {} in the checkpoint but of type {} in this deck ({}){}: the "
      "checkpoint was written with other species; restart with the deck that wrote it",
      path, lowest, in_file + 1, in_deck + 1, deck.source(),
      mismatches > 1 ? fmt::format(", and {} more particles differ", mismatches - 1)
                     : std::string()));
}

// The thermostat state the run continues from: the file's when it belongs to the deck's
// thermostat; else none (a fresh start), with a warning (rank 0) saying what is lost.
std::vector<double> thermostat_to_continue(const Communicator& comm, const std::string& path,
                                           const io::Checkpoint& c, const ThermostatSection& t) {
  const std::string style(name_of<ThermostatStyle>(kThermostatNames, t.style));
  const std::string writer = c.writer_thermostat.empty() ? "unknown" : c.writer_thermostat;
  auto warn = [&](const std::string& text) {
    if (comm.rank() == 0) spdlog::warn("warning: {}: {}", path, text);
  };
  if (t.style == ThermostatStyle::None || t.style == ThermostatStyle::DpdTstat) {
    if (!c.thermostat.empty())  // dpd/tstat has no state of its own (its noise is keyed)
      warn(
          fmt::format("the state of its {} thermostat is dropped: this deck has "
                      "thermostat.style = \"{}\"",
                      writer, style));
    return {};
  }
  if (!c.thermostat_saved) {
    warn(t.style == ThermostatStyle::NoseHoover
             ? std::string("it holds no Nosé–Hoover chain state (a trajectory, not a checkpoint): "
                           "the chain starts at rest, so the run does not continue as the one "
                           "that wrote the file would have, and econs jumps; restart from that "
                           "run's output.checkpoint to continue exactly")
             : std::string("it holds no Langevin work (a trajectory, not a checkpoint): econs "
                           "starts again from etotal (the dynamics continue exactly); restart "
                           "from that run's output.checkpoint to keep it"));
    return {};
  }
  if (!c.writer_thermostat.empty() && c.writer_thermostat != style) {
    warn(
        fmt::format("it was written by a run with thermostat.style = \"{}\", this deck has "
                    "\"{}\": the thermostat starts afresh{}",
                    c.writer_thermostat, style,
                    t.style == ThermostatStyle::NoseHoover ? " (the chain at rest)" : ""));
    return {};
  }
  if (t.style == ThermostatStyle::NoseHoover &&
      c.thermostat.size() != 3 * static_cast<std::size_t>(t.chain) + 2)
    throw std::runtime_error(fmt::format(
        "{}: its Nosé–Hoover chain state has {} values, thermostat.chain = {} needs {}{}: "
        "restart with the chain length that wrote it",
        path, c.thermostat.size(), t.chain, 3 * t.chain + 2,
        c.writer_chain > 0
            ? fmt::format(" (it was written with thermostat.chain = {})", c.writer_chain)
            : std::string()));
  return c.thermostat;
}

}  // namespace

RestartState load_restart(const Communicator& comm, const std::string& path, const Simulation& sim,
                          long long expected_particles,
                          const std::vector<InitialParticle>& data_file,
                          const std::vector<std::uint64_t>& data_file_words) {
  const auto t0 = std::chrono::steady_clock::now();
  io::Checkpoint c = io::read_checkpoint(comm, path);
  const double read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Vec3 L = sim.box().length;
  if (c.particles != expected_particles)
    throw std::runtime_error(fmt::format(
        "{}: checkpoint of {} particles does not fit this deck ({} particles): restart with "
        "the deck that wrote it",
        path, c.particles, expected_particles));
  if (!same_length(c.box[0], L.x) || !same_length(c.box[1], L.y) || !same_length(c.box[2], L.z))
    throw std::runtime_error(
        fmt::format("{}: checkpoint box {:.10g} x {:.10g} x {:.10g} does not fit this deck's box "
                    "{:.10g} x {:.10g} x {:.10g}",
                    path, c.box[0], c.box[1], c.box[2], L.x, L.y, L.z));
  if (c.step > sim.config().run.steps)
    throw std::runtime_error(fmt::format(
        "{}: checkpoint is at step {}, beyond run.steps = {}: raise run.steps to continue", path,
        c.step, sim.config().run.steps));
  // A restart at run.steps would run no step and only write its outputs again.
  if (c.step == sim.config().run.steps)
    throw std::runtime_error(fmt::format(
        "{}: checkpoint is at step {}, which is run.steps already: nothing to run; raise "
        "run.steps to continue (e.g. --set run.steps={})",
        path, c.step, c.step > 0 ? 2 * c.step : 100));
  check_types(comm, path, c.rows, DeckTypes(sim.config(), expected_particles, data_file));
  const std::vector<double> thermostat =
      thermostat_to_continue(comm, path, c, sim.config().thermostat);

  // Rows → the ranks whose boxes hold them.
  std::vector<std::uint32_t> dest(c.rows.size());
  all_or_none(comm, [&] {  // agreed before the collective redistribution below
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
      wrap_into_box(c.rows[i], sim.box(), path);
      const Vec3 x{c.rows[i].x[0], c.rows[i].x[1], c.rows[i].x[2]};
      dest[i] = static_cast<std::uint32_t>(sim.grid().rank_of(sim.grid().box_of(x)));
    }
  });
  // The run's optional State fields (in state_fields() order) travel with their rows.
  std::vector<FieldSpec> wanted = sim.state_fields();
  // The DPD pair velocity alone may be missing (a trajectory, or a checkpoint of a run without
  // DPD): the first forces then see v(n), as at a fresh start, and the run goes on, not bitwise
  // as the one that wrote the file would have.
  const bool has_pair_v =
      std::any_of(c.fields.begin(), c.fields.end(),
                  [](const io::FieldBlock& b) { return b.spec.name == kPairVelocityField; });
  if (!has_pair_v && wanted.size() == 1 && wanted.front().name == kPairVelocityField) {
    if (comm.rank() == 0)
      spdlog::warn(
          "warning: {}: it holds no pair velocities (v_pair: the velocity the forces of its step "
          "saw, which a DPD checkpoint keeps): the first forces see v instead, so the run does "
          "not continue bitwise as the one that wrote the file would have; restart from that "
          "run's output.checkpoint to continue exactly",
          path);
    wanted.clear();
  }
  io::RowWords words;
  for (const FieldSpec& f : wanted) words.stride += static_cast<std::size_t>(f.width);
  // The topology (bonds, angles, molecule ids: engine/topology.hpp) does not change during a
  // run: a file without its fields (a trajectory holds the bonds' and angles' ids but not their
  // types) takes them from the deck's data file, the one the run that wrote it started from,
  // laid out in `wanted` order as Simulation::setup takes them (data_file_words).
  std::vector<std::uint32_t> data_row;  // by id − 1: the data file's particle, or none
  bool from_data_file = false;
  if (words.stride > 0) {
    words.words.assign(c.rows.size() * words.stride, 0);
    std::size_t at = 0;
    for (const FieldSpec& f : wanted) {
      const auto it = std::find_if(c.fields.begin(), c.fields.end(),
                                   [&](const io::FieldBlock& b) { return b.spec.name == f.name; });
      const auto w = static_cast<std::size_t>(f.width);
      const bool topology = f.name == kMoleculeField || f.name == kBondAtomField ||
                            f.name == kBondTypeField || f.name == kAngleAtomField ||
                            f.name == kAngleTypeField;
      if (it == c.fields.end() && topology &&
          data_file_words.size() == data_file.size() * words.stride && !data_file.empty()) {
        if (data_row.empty()) {
          data_row.assign(static_cast<std::size_t>(c.particles), ~0u);
          for (std::size_t k = 0; k < data_file.size(); ++k)
            if (data_file[k].id >= 1 && data_file[k].id <= data_row.size())
              data_row[data_file[k].id - 1] = static_cast<std::uint32_t>(k);
        }
        for (std::size_t i = 0; i < c.rows.size(); ++i) {
          const std::uint32_t k = c.rows[i].id >= 1 && c.rows[i].id <= data_row.size()
                                      ? data_row[c.rows[i].id - 1]
                                      : ~0u;
          if (k == ~0u)
            throw std::runtime_error(fmt::format(
                "{}: particle {} is not in the data file {} that gives this run its bonds and "
                "angles",
                path, c.rows[i].id, sim.config().system.data_file));
          std::copy_n(data_file_words.data() + k * words.stride + at, w,
                      words.words.data() + i * words.stride + at);
        }
        from_data_file = true;
        at += w;
        continue;
      }
      if (it == c.fields.end() || !(it->spec.kind == f.kind && it->spec.width == f.width))
        throw std::runtime_error(fmt::format(
            "{}: checkpoint has no per-particle field '{}' ({} x {}) that this run's force "
            "computes need: it was written by a run without them; restart with the deck that "
            "wrote it{}",
            path, f.name, f.kind == FieldKind::Integer ? "integer" : "real", f.width,
            topology ? " (or give the data file with its bonds and angles as system.data_file)"
                     : ""));
      for (std::size_t i = 0; i < c.rows.size(); ++i)
        std::copy_n(it->words.data() + i * w, w, words.words.data() + i * words.stride + at);
      at += w;
    }
  }
  if (from_data_file) {
    // A trajectory names its bonds and angles (H5MD connectivity): as many as the data file's,
    // or the data file is not the one its run started from.
    long long bonds = 0, angles = 0;
    std::size_t at = 0;
    for (const FieldSpec& f : wanted) {
      for (std::size_t k = 0; k < data_file.size(); ++k) {
        const std::uint64_t* w = data_file_words.data() + k * words.stride + at;
        if (f.name == kBondAtomField)
          for (int s = 0; s < f.width; ++s) bonds += w[s] != 0;
        if (f.name == kAngleAtomField)
          for (int s = 0; s < f.width; s += 2) angles += w[s] != 0;
      }
      at += static_cast<std::size_t>(f.width);
    }
    bonds /= 2;  // each bond is held by both its atoms
    auto differs = [](std::int64_t in_file, long long in_data) {
      return in_file >= 0 ? in_file != in_data : in_data != 0;
    };
    if (c.connectivity_bonds < 0 && c.connectivity_angles < 0)
      throw std::runtime_error(fmt::format(
          "{}: it holds no bonds or angles (neither topology fields nor connectivity): it was "
          "written by a run without them, and this deck's data file {} has {} bonds and {} "
          "angles; restart with the deck that wrote it",
          path, sim.config().system.data_file, bonds, angles));
    if (differs(c.connectivity_bonds, bonds) || differs(c.connectivity_angles, angles))
      throw std::runtime_error(fmt::format(
          "{}: its connectivity has {} bonds and {} angles, the data file {} {} and {}: it is "
          "not the data file the run that wrote it started from (a file without topology fields "
          "takes its bonds and angles from system.data_file)",
          path, std::max<std::int64_t>(c.connectivity_bonds, 0),
          std::max<std::int64_t>(c.connectivity_angles, 0), sim.config().system.data_file, bonds,
          angles));
  }
  if (from_data_file && comm.rank() == 0)
    spdlog::info(
        "restart: {} holds no topology fields (a trajectory): the bonds, angles and molecule "
        "ids come from the data file {}",
        path, sim.config().system.data_file);
  const std::vector<io::ParticleRow> mine = io::redistribute(comm, c.rows, dest, &words);

  RestartState r;
  r.path = path;
  r.step = c.step;
  r.particles = c.particles;
  r.thermostat = thermostat;
  r.checksum_verified = c.checksum == io::Checkpoint::Checksum::Verified;
  r.read_seconds = read_seconds;
  r.checksum_seconds = c.checksum_seconds;
  r.state_words = std::move(words.words);
  r.particles_here.reserve(mine.size());
  for (const io::ParticleRow& p : mine)
    r.particles_here.push_back(InitialParticle{p.id,
                                               {p.x[0], p.x[1], p.x[2]},
                                               {p.v[0], p.v[1], p.v[2]},
                                               {p.image[0], p.image[1], p.image[2]},
                                               static_cast<std::uint32_t>(p.type)});
  return r;
}

}  // namespace scanmd
