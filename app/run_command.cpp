#include "app/run_command.hpp"

#include <sched.h>
#include <spdlog/spdlog.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/build_info.hpp"
#include "app/gpu_info.hpp"
#include "app/output.hpp"
#include "app/report.hpp"
#include "app/restart.hpp"
#include "app/stop_signals.hpp"
#include "engine/backend_choice.hpp"
#include "engine/memory_budget.hpp"
#include "engine/simulation.hpp"
#include "engine/species.hpp"
#include "engine/topology.hpp"
#include "io/backup.hpp"
#include "io/deck.hpp"
#include "io/lammps_data.hpp"
#include "io/log.hpp"

namespace scanmd {

namespace {

// Runs `f` on every rank; if it throws on any, the message of the lowest failing rank is
// printed once (by rank 0) on every rank's behalf and all ranks return false together.
template <class F>
bool agree(const Communicator& comm, F&& f) {
  try {
    all_or_none(comm, std::forward<F>(f));
    return true;
  } catch (const std::exception& e) {
    if (comm.rank() == 0) {
      spdlog::error("error: {}", error_message(e));
      io::echo_error_to_stderr(error_message(e));
    }
    return false;
  }
}

// system.data_file: reads the LAMMPS data file (on every rank), takes the box, the number of
// atom types and the masses from it, checks the deck's pairs against its types, and returns its
// atoms, positions relative to the box corner, as the starting configuration.
// The data file's bonds and angles against the deck: a topology needs its style, and every type
// it uses its [[bond.coeff]] / [[angle.coeff]].
void check_topology(const io::Deck& deck, const io::LammpsData& data, const std::string& file) {
  auto at = [&](const std::string& key) {
    const auto w = deck.where.find(key);
    return w != deck.where.end() ? w->second : deck.path;
  };
  if (!data.bonds.empty() && deck.bond.style == BondStyle::None)
    throw std::runtime_error(fmt::format(
        "{}: the data file {} has {} bonds, but the deck has no [bond] style (bond.style = "
        "\"fene\" or \"harmonic\", with [[bond.coeff]] tables)",
        deck.path, file, data.bonds.size()));
  if (!data.angles.empty() && deck.angle.style == AngleStyle::None)
    throw std::runtime_error(fmt::format(
        "{}: the data file {} has {} angles, but the deck has no [angle] style (angle.style = "
        "\"harmonic\" or \"cosine\", with [[angle.coeff]] tables)",
        deck.path, file, data.angles.size()));
  std::vector<bool> bond_given, angle_given;
  for (const BondCoeffRow& c : deck.bond.coeffs) {
    if (bond_given.size() < static_cast<std::size_t>(c.type)) bond_given.resize(c.type, false);
    bond_given[c.type - 1] = true;
  }
  for (const AngleCoeffRow& c : deck.angle.coeffs) {
    if (angle_given.size() < static_cast<std::size_t>(c.type)) angle_given.resize(c.type, false);
    angle_given[c.type - 1] = true;
  }
  for (const io::LammpsBond& b : data.bonds)
    if (static_cast<std::size_t>(b.type) > bond_given.size() || !bond_given[b.type - 1])
      throw std::runtime_error(fmt::format(
          "{}: bond.coeff: bond type {} (the bond of atoms {} and {} in the data file {}) has no "
          "[[bond.coeff]] table",
          at("bond.coeff"), b.type, b.a, b.b, file));
  for (const io::LammpsAngle& a : data.angles)
    if (static_cast<std::size_t>(a.type) > angle_given.size() || !angle_given[a.type - 1])
      throw std::runtime_error(fmt::format(
          "{}: angle.coeff: angle type {} (the angle {}-{}-{} in the data file {}) has no "
          "[[angle.coeff]] table",
          at("angle.coeff"), a.type, a.a, a.b, a.c, file));
}

std::vector<InitialParticle> read_data_file(const io::Deck& deck, SimulationConfig& config,
                                            bool comm_rank0, Topology& topology) {
  const std::string& file = deck.system.data_file;
  const io::LammpsData data = io::read_lammps_data(file);
  check_topology(deck, data, file);
  config.system.data_atom_style = data.atom_style;
  if (io::is_molecular_style(data.atom_style)) {
    topology.molecule.reserve(data.atoms.size());
    for (const io::LammpsAtom& a : data.atoms) topology.molecule.push_back(a.molecule);
    for (const io::LammpsBond& b : data.bonds) topology.bonds.push_back({b.type, b.a, b.b});
    for (const io::LammpsAngle& a : data.angles) topology.angles.push_back({a.type, a.a, a.b, a.c});
  }
  config.system.types = data.atom_types;
  if (!data.masses.empty()) config.system.mass = data.masses;
  {
    io::Deck with_file = deck;
    with_file.system = config.system;
    io::check_species(with_file, fmt::format("the data file {}", file),
                      data.masses.empty() ? std::string() : fmt::format("the data file {}", file));
  }
  const Vec3 length{data.hi[0] - data.lo[0], data.hi[1] - data.lo[1], data.hi[2] - data.lo[2]};
  if (const auto axis = short_box_axis(length, config.neighbor.skin))
    throw std::runtime_error(fmt::format("{}: {}; use a larger box or a shorter skin", file,
                                         short_box_message(length, config.neighbor.skin, *axis)));
  config.system.box = length;
  std::vector<InitialParticle> particles;
  particles.reserve(data.atoms.size());
  for (const io::LammpsAtom& a : data.atoms)
    particles.push_back(InitialParticle{a.id,
                                        {a.x - data.lo[0], a.y - data.lo[1], a.z - data.lo[2]},
                                        {a.vx, a.vy, a.vz},
                                        {a.ix, a.iy, a.iz},
                                        static_cast<std::uint32_t>(a.type - 1)});
  spdlog::info(
      "data file {}: {} atoms of {} type{}, box [{:.17g}, {:.17g}) x [{:.17g}, {:.17g}) x "
      "[{:.17g}, {:.17g}), mass {:.17g}{}",
      file, data.atoms.size(), data.atom_types, data.atom_types == 1 ? "" : "s", data.lo[0],
      data.hi[0], data.lo[1], data.hi[1], data.lo[2], data.hi[2],
      fmt::join(config.system.mass, " "),
      data.masses.empty() ? " (system.mass: the file has no Masses section)" : "");
  if (deck.velocity.create)
    spdlog::info("velocities: drawn for T = {} from seed {} ([velocity] create = true){}",
                 deck.velocity.temperature, deck.velocity.seed,
                 data.has_velocities ? fmt::format(", replacing the Velocities of {}", file) : "");
  else if (!data.has_velocities && comm_rank0)
    spdlog::warn(
        "warning: data file {}: no Velocities section and no [velocity] create: the run starts "
        "at T = 0 (as LAMMPS would); to draw velocities set [velocity] create = true, "
        "temperature = T, seed = S (LAMMPS velocity all create T S)",
        file);
  return particles;
}

// Issue 31: a particle that moves more than half the smallest σ in one step passes through
// others instead of bouncing off them (v·dt = 10σ ran with exit 0, its energy off by 1.6%). The
// deck checks run.dt against τ; this checks the speeds the run starts from (the lattice's
// temperature, the data file's or the checkpoint's velocities) and the speed a thermostat drives
// the particles to, sqrt(3T/m) of the lightest type. Collective: every rank throws the same
// CollectiveError naming the key (or file) and the fastest particle.
void check_speeds(const Communicator& comm, const io::Deck& deck, const Simulation& sim,
                  const std::string& restart_from) {
  const Species& sp = sim.species();
  // The smallest repulsive core of the pair style (LJ: sigma of the interacting pairs).
  if (sp.eam) return;  // EAM has no hard core (its ρ and F are checked by the fixed point)
  const double sigma_min = sp.pair.min_core_size();
  if (!std::isfinite(sigma_min)) return;             // nothing interacts: nothing to pass through
  if (sim.step() >= sim.config().run.steps) return;  // no step to run (a data file converted)
  const double m_min = *std::min_element(sp.mass.begin(), sp.mass.end());
  const double dt = sim.config().run.dt, limit = 0.5 * sigma_min;
  auto where = [&](const std::string& key) {
    const auto w = deck.where.find(key);
    return w != deck.where.end() ? w->second : deck.path;
  };
  // The fastest particle: its speed (a non-finite one counts as infinite), then its id.
  const ParticleStore& p = sim.particles();
  double vmax = 0.0;
  std::uint64_t fastest = 0;
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    double speed = std::sqrt(p.v[i].x * p.v[i].x + p.v[i].y * p.v[i].y + p.v[i].z * p.v[i].z);
    if (!std::isfinite(speed)) speed = std::numeric_limits<double>::infinity();
    if (speed > vmax || (speed == vmax && p.id[i] < fastest)) vmax = speed, fastest = p.id[i];
  }
  const double global = comm.max(vmax);
  const long long id =
      -comm.max(vmax == global && fastest > 0 ? -static_cast<long long>(fastest)
                                              : std::numeric_limits<long long>::min());
  // In lj the core is a sigma and speeds are in sigma/tau; outside lj the unit system's names
  // (the core is then Morse's r0, Buckingham's rho, ... as the style says: its core_size).
  const UnitWords u_words = unit_words(sim.config().system.units);
  const bool lj = sim.config().system.units == UnitSystem::LJ;
  const std::string core =
      lj ? fmt::format("the smallest sigma ({:.4g})", sigma_min)
         : fmt::format("the smallest repulsive core of the pair style ({:.4g} {})", sigma_min,
                       u_words.length);
  const std::string tail = fmt::format(
      "more than half {} per step: its pairs would pass through each other instead of bouncing "
      "off",
      core);
  // Which of run.dt and a temperature is further from the unit system's usual values.
  auto blame_temperature = [&](double T) {
    return 0.5 * std::log10(T / u_words.typical_temperature) > std::log10(dt / u_words.typical_dt);
  };
  if (global * dt > limit) {
    const std::string what = fmt::format(
        "particle {} starts at speed {:.4g} {} and would move {:.4g} {} in one step of "
        "run.dt = {}, {}",
        id, global, u_words.speed, global * dt, u_words.length, dt, tail);
    if (!restart_from.empty())
      throw CollectiveError(
          fmt::format("{}: {}; lower run.dt to continue from this checkpoint", restart_from, what));
    if (!deck.system.data_file.empty())
      throw CollectiveError(
          fmt::format("{}: system.data_file: {} (its Velocities section); lower "
                      "run.dt or those velocities",
                      where("system.data_file"), what));
    // The lattice's speeds follow system.temperature: blame what is furthest from LJ units.
    const bool temperature = blame_temperature(deck.system.temperature);
    const std::string key = temperature ? "system.temperature" : "run.dt";
    throw CollectiveError(fmt::format("{}: {}: {} (system.temperature = {}); lower {}", where(key),
                                      key, what, deck.system.temperature, key));
  }
  if (sim.config().thermostat.style == ThermostatStyle::None) return;
  const double T = sim.config().thermostat.temperature;
  // ½ mvv2e m v² = 3/2 k_B T (both constants 1 in lj)
  const UnitConstants u = sim.config().system.constants();
  const double v_T = std::sqrt(3.0 * u.boltz * T / (m_min * u.mvv2e));
  if (!(v_T * dt <= limit)) {
    const std::string key = blame_temperature(T) ? "thermostat.temperature" : "run.dt";
    throw CollectiveError(fmt::format(
        "{}: {}: thermostat.temperature = {} drives particles of mass {} to speeds near "
        "sqrt(3T/m) = {:.4g} {}, {:.4g} {} per step of run.dt = {}, {}; lower {}",
        where(key), key, T, m_min, v_T, u_words.speed, v_T * dt, u_words.length, dt, tail, key));
  }
}

// [minimize]: FIRE before the dynamics, its progress and stop reason in the log (as LAMMPS's
// `minimize` prints its "Minimization stats").
void run_minimize(const io::Deck& deck, Simulation& sim) {
  const MinimizeSection& m = deck.minimize;
  const int digits = deck.output.thermo_digits;
  spdlog::info(
      "minimize: FIRE (LAMMPS min_style fire), etol = {}, ftol = {}, max_steps = {}, dt_start = "
      "{}, dt_max = {}, dt_min = {}, max_move = {}, delay_steps = {}, dt_grow = {}, dt_shrink = "
      "{}, alpha0 = {}, alpha_shrink = {}, half_step_back = {}",
      m.etol, m.ftol, m.max_steps, m.dt_start > 0 ? m.dt_start : deck.run.dt,
      m.dt_max > 0 ? m.dt_max : 10 * (m.dt_start > 0 ? m.dt_start : deck.run.dt),
      m.dt_min > 0 ? m.dt_min : 0.02 * (m.dt_start > 0 ? m.dt_start : deck.run.dt), m.max_move,
      m.delay_steps, m.dt_grow, m.dt_shrink, m.alpha0, m.alpha_shrink, m.half_step_back);
  spdlog::info("minimize: {:>9} {:>{}} {:>{}} {:>{}} {:>12}", "iteration", "pe", digits + 7, "fmax",
               digits + 7, "fnorm", digits + 7, "dt");
  auto line = [&](const MinimizeProgress& p) {
    spdlog::info("minimize: {:>9} {:>{}.{}g} {:>{}.{}g} {:>{}.{}g} {:>12.6g}", p.iteration,
                 p.energy, digits + 7, digits, p.fmax, digits + 7, digits, p.fnorm, digits + 7,
                 digits, p.dt);
  };
  const long long every = m.progress_every > 0 ? m.progress_every : deck.output.thermo_every;
  const MinimizeResult r = sim.minimize(line, every);
  spdlog::info("minimize: stopped by {} after {} iterations, {} force evaluations",
               stop_reason(r.stop), r.iterations, r.force_calls);
  spdlog::info("minimize: energy initial, final = {:.{}g} {:.{}g}", r.initial.energy, digits,
               r.final.energy, digits);
  spdlog::info("minimize: force two-norm initial, final = {:.{}g} {:.{}g}", r.initial.fnorm, digits,
               r.final.fnorm, digits);
  spdlog::info("minimize: force max component initial, final = {:.{}g} {:.{}g}", r.initial.fmax,
               digits, r.final.fmax, digits);
}

// A hint when the particles are spread unevenly at setup with decomposition.balance off: the
// busiest rank sets the pace (max/mean of the particles owned above 1.5).
void imbalance_hint(const Communicator& comm, const io::Deck& deck, const Simulation& sim) {
  if (comm.size() < 2 || deck.decomposition.balance != Balance::None) return;
  const long long mine = static_cast<long long>(sim.particles().n_owned);
  const long long most = comm.max(mine), total = comm.sum(mine);
  const double mean = static_cast<double>(total) / comm.size();
  if (!(mean > 0) || static_cast<double>(most) / mean <= 1.5) return;
  spdlog::info(
      "hint: the busiest rank owns {} particles, {:.3f} times the mean {:.4g}: the others wait "
      "for it every step; decomposition.balance = \"particles\" (or \"pairs\", \"time\") moves "
      "the cut planes to even it out, or choose decomposition.grid along the dense direction",
      most, static_cast<double>(most) / mean, mean);
}

// The cores this process may run on (its affinity mask), 0 when unknown.
int cores_of_this_rank() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

// run.backend resolved (collective; see engine/backend_choice.hpp), and the choice logged.
Backend choose_backend(const Communicator& comm, const SimulationConfig& config) {
  const Backend requested = config.run.backend;
  if (config.run.precision == Precision::Mixed)
    spdlog::info(
        "precision: mixed (the pair style's terms in float32; forces summed in 64-bit fixed "
        "point, integration in double: its own state hash, the same on every backend)");
  // A special_bonds 1-2 weight between 0 and 1 has no CUDA side yet: auto takes the host.
  if (requested == Backend::Auto && cuda_lacks(config)) {
    spdlog::info(
        "backend: auto -> host (a special_bonds 1-2 weight between 0 and 1 runs on the host "
        "backend only yet)");
    return Backend::Host;
  }
  const BackendChoice choice = resolve_backend(comm, requested, config.cuda.fill);
  const std::string_view arrow = requested == Backend::Auto ? "auto -> " : "";
  if (requested == Backend::Host)
    spdlog::info("backend: host");
  else
    spdlog::info("backend: {}{} ({})", arrow, backend_name(choice.backend), choice.reason);
  return choice.backend;
}

// Thermo rows from rank 0 in the run's columns (output.thermo), floats to output.thermo_digits
// significant digits: the timing columns are the particle-steps/s since the previous row, the
// time left, and the seconds since the first row.
class ThermoPrinter {
 public:
  using Clock = std::chrono::steady_clock;
  ThermoPrinter(std::vector<std::string> columns, int digits, long long particles,
                long long last_step, ThermoContext context)
      : columns_(std::move(columns)),
        digits_(digits),
        n_(static_cast<double>(particles)),
        last_step_of_run_(last_step),
        context_(context) {}

  std::string header() const {
    std::string s;
    for (const std::string& c : columns_)
      s += fmt::format("{}{:>{}}", s.empty() ? "" : " ", c, width(c));
    return s;
  }

  void print(const ThermoSample& s) {
    const auto now = Clock::now();
    if (first_) {
      start_ = last_ = now;
      first_step_ = last_step_ = s.step;
      first_ = false;
    }
    const double dt = std::chrono::duration<double>(now - last_).count();
    const double rate = s.step > last_step_ && dt > 0 ? n_ * (s.step - last_step_) / dt : 0.0;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const long long done = s.step - first_step_;
    const double eta = done > 0 ? elapsed * (last_step_of_run_ - s.step) / done : 0.0;
    std::string row;
    for (const std::string& c : columns_) {
      if (!row.empty()) row += ' ';
      const int w = width(c);
      if (c == "step")
        row += fmt::format("{:>{}}", s.step, w);
      else if (c == "pstep/s")
        row += fmt::format("{:>{}.4g}", rate, w);
      else if (c == "eta")
        row += fmt::format("{:>{}.1f}s", eta, w - 1);
      else if (c == "cpu")
        row += fmt::format("{:>{}.4g}", elapsed, w);
      else
        row += fmt::format("{:>{}.{}g}", thermo_value(s, c, context_), w, digits_);
    }
    spdlog::info("{}", row);
    last_ = now;
    last_step_ = s.step;
  }

 private:
  // step: 8 wide (LAMMPS's), the timing columns 9 and 7; floats: "-1.2345678" (values with an
  // exponent are wider); never narrower than the name. The default row is under 100 columns.
  int width(const std::string& c) const {
    int w = c == "step" ? 8 : c == "pstep/s" || c == "cpu" ? 9 : c == "eta" ? 7 : digits_ + 3;
    return std::max<int>(w, static_cast<int>(c.size()));
  }

  std::vector<std::string> columns_;
  int digits_;
  double n_;
  long long last_step_of_run_;
  ThermoContext context_;
  bool first_ = true;
  Clock::time_point start_, last_;
  long long first_step_ = 0, last_step_ = 0;
};

// What the run does between steps: thermo rows, trajectory frames and checkpoints (energy is
// computed on thermo and trajectory steps).
class RunObserver final : public StepObserver {
 public:
  RunObserver(ThermoPrinter& printer, RunOutput* output, bool rank0)
      : printer_(printer), output_(output), rank0_(rank0) {}
  bool wants_energy(long long step) const override {
    return sim_thermo_due(step) || (output_ && output_->wants_energy(step));
  }
  bool stop_requested() const override { return StopSignals::received() != 0; }
  void after_step(const Simulation& sim) override {
    sim_ = &sim;
    if (rank0_) check_duration(sim);
    for (; balances_logged_ < sim.balance_steps().size(); ++balances_logged_)
      spdlog::info("{}", balance_line(sim.balance_steps()[balances_logged_]));
    const bool row = first_ || sim.thermo_due(sim.step());
    std::optional<ThermoSample> sample;
    if (row || (output_ && output_->wants_energy(sim.step()))) sample = sim.thermo();
    if (row) printer_.print(*sample);
    if (output_) output_->after_step(sim, sample ? &*sample : nullptr, row);
    first_ = false;
  }

 private:
  bool sim_thermo_due(long long step) const { return sim_ && sim_->thermo_due(step); }
  // Rank 0, once: after the first 1000 steps or 2 s, the time the rest of the run will take at
  // that rate; beyond a week, a warning (a run.steps typo, or a run that needs restarts).
  void check_duration(const Simulation& sim) {
    using Clock = std::chrono::steady_clock;
    if (duration_checked_) return;
    const auto now = Clock::now();
    if (first_) {
      loop_start_ = now;
      loop_first_step_ = sim.step();
      return;
    }
    const long long done = sim.step() - loop_first_step_;
    const double elapsed = std::chrono::duration<double>(now - loop_start_).count();
    if (done < 1 || (elapsed < 2.0 && done < 1000)) return;
    duration_checked_ = true;
    const long long last = sim.config().run.steps;
    const double rate = done / std::max(elapsed, 1e-9);
    const double rest = static_cast<double>(last - sim.step()) / rate;
    if (rest > kLongRunSeconds)
      spdlog::warn(
          "warning: run.steps = {}: at the rate of the first {} steps ({:.4g} steps/s) the run "
          "would take {} more; if that is not meant, stop it with SIGINT or SIGTERM (a clean "
          "stop, with a checkpoint if output.checkpoint is set)",
          last, done, rate, duration_text(rest));
  }
  static constexpr double kLongRunSeconds = 7 * 24 * 3600.0;
  static std::string duration_text(double s) {
    constexpr double kDay = 86400, kYear = 365.25 * kDay;
    if (s >= kYear) return fmt::format("about {:.3g} years", s / kYear);
    if (s >= kDay) return fmt::format("about {:.3g} days", s / kDay);
    return fmt::format("about {:.3g} hours", s / 3600);
  }

  ThermoPrinter& printer_;
  RunOutput* output_;
  bool rank0_;
  const Simulation* sim_ = nullptr;
  bool first_ = true;
  std::size_t balances_logged_ = 0;
  bool duration_checked_ = false;
  std::chrono::steady_clock::time_point loop_start_;
  long long loop_first_step_ = 0;
};

// Rank 0: output.log opened, an existing one backed up (output.overwrite: replaced); returns
// the line that says so (logged after the version line), empty without a log.
std::string open_log(const io::Deck& deck) {
  const OutputSection& out = deck.output;
  if (out.log.empty()) return {};
  const auto w = deck.where.find("output.log");
  const std::string at = w != deck.where.end() ? w->second + ": output.log: " : std::string();
  std::optional<std::string> backup;
  std::vector<std::string> removed;
  try {
    if (!out.overwrite) backup = io::back_up_existing(out.log, out.backups, &removed);
    io::open_log_file(out.log);
  } catch (const std::exception& e) {
    throw std::runtime_error(at + e.what());
  }
  std::string line =
      fmt::format("log: {}{}", out.log,
                  backup ? fmt::format(" (the previous one backed up to {})", *backup) : "");
  for (const std::string& name : removed)
    line += fmt::format("\nremoved the oldest backup {} (output.backups = {})", name, out.backups);
  return line;
}

// Rank 0: keys the deck gives that the run does not use, each named with where it was given:
// [velocity]'s without velocity.create, the lattice's beside system.data_file.
void warn_unused_beside_data_file(const io::Deck& deck, const std::string& restart) {
  if (!deck.velocity.create)
    for (const char* key : {"velocity.temperature", "velocity.seed"})
      if (const auto w = deck.where.find(key); w != deck.where.end())
        spdlog::warn("warning: {}: {} is not used without velocity.create = true", w->second, key);
  if (deck.system.data_file.empty() || !restart.empty()) return;
  for (const auto& [key, where] : deck.where) {
    const bool lattice = key == "system.lattice" || key == "system.density" ||
                         key == "system.cells" || key == "system.temperature" ||
                         key == "system.seed" || key == "system.type_fractions" ||
                         key.rfind("region.", 0) == 0;
    if (!lattice) continue;
    const bool velocities = key == "system.temperature" || key == "system.seed";
    spdlog::warn("warning: {}: {} is not used: system.data_file ({}) gives the box, the atoms{}{}",
                 where, key, deck.system.data_file, velocities ? " and their velocities" : "",
                 velocities ? "; to draw velocities use [velocity] create = true, temperature = T, "
                              "seed = S (LAMMPS velocity all create T S)"
                            : "");
  }
}

}  // namespace

int run_command(const RunOptions& options) {
  Communicator comm;
  io::setup_logging(comm.rank(), comm.size(), options.verbose);
  // SIGINT / SIGTERM / SIGUSR1 from here on stop the run cleanly after the next step (one
  // during setup: after the first step).
  StopSignals signals;

  io::Deck deck;
  std::vector<std::string> overrides = options.overrides;
  if (!options.backend.empty()) overrides.push_back("run.backend=" + options.backend);
  if (!agree(comm, [&] { deck = io::load_deck(options.deck, overrides); })) return 1;
  // Outputs that would replace an input are refused before anything is read or written.
  if (!agree(comm,
             [&] { on_root(comm, [&] { check_outputs_spare_inputs(deck, options.restart); }); }))
    return 1;

  // One thread per rank unless asked otherwise: `mpirun -np <cores>` must not oversubscribe
  // the cores with the host kernels' OpenMP threads.
  int threads = 1;
#ifdef _OPENMP
  if (std::getenv("OMP_NUM_THREADS") == nullptr) omp_set_num_threads(1);
  threads = omp_get_max_threads();
  // At most the cores this rank may use (issue 31: OMP_NUM_THREADS=100000 crashed in libgomp):
  // threads beyond them only wait for each other. SCANMD_THREADS_PAST_CORES=1 allows up to
  // 8 per core (tests of the thread splits on small machines).
  if (const int cores = cores_of_this_rank(); cores > 0) {
    const char* past = std::getenv("SCANMD_THREADS_PAST_CORES");
    const bool allow_past = past && *past && std::string_view(past) != "0";
    const int limit = allow_past ? 8 * cores : cores;
    const int asked = threads;
    if (threads > limit) {
      threads = limit;
      omp_set_num_threads(threads);
    }
    if (comm.max(static_cast<long long>(asked > limit)) != 0 && comm.rank() == 0)
      spdlog::warn(
          "warning: OMP_NUM_THREADS = {} is more than {} the {} core{} rank 0 may use{}: "
          "{} thread{} per rank (give each rank more cores: mpirun --map-by slot:PE=N, "
          "or --bind-to none)",
          asked, allow_past ? "8 threads per core of" : "one thread per core of", cores,
          cores == 1 ? "" : "s", allow_past ? " (SCANMD_THREADS_PAST_CORES)" : "", threads,
          threads == 1 ? "" : "s");
  }
#endif
  // output.log: rank 0 copies everything it prints there from here on (an existing log backed
  // up first, like the other outputs), with the resolved deck the terminal gets only with -v.
  std::string log_line;
  if (!agree(comm, [&] { on_root(comm, [&] { log_line = open_log(deck); }); })) return 1;
  spdlog::info("scanmd {} — {} ranks × {} thread{}", SCANMD_VERSION, comm.size(), threads,
               threads == 1 ? "" : "s");
  if (!log_line.empty()) spdlog::info("{}", log_line);
  if (options.verbose || deck.output.log.empty())
    spdlog::info("deck: {} (resolved below)", deck.path);
  else
    spdlog::info("deck: {} (resolved in {}; -v prints it here too)", deck.path, deck.output.log);
  io::log_verbose_only(fmt::format("----8<----\n{}----8<----", deck.to_toml()));
  if (comm.rank() == 0) warn_unused_beside_data_file(deck, options.restart);

  std::optional<Simulation> sim;
  std::vector<InitialParticle> initial;       // from system.data_file
  std::vector<std::uint64_t> topology_words;  // its bonds and angles: the particles' State words
  if (!agree(comm, [&] {
        SimulationConfig config = deck;
        config.run.backend = choose_backend(comm, config);
        Topology topology;
        if (!deck.system.data_file.empty())
          initial = read_data_file(deck, config, comm.rank() == 0, topology);
        try {
          sim.emplace(comm, config, initial);
          if (!topology.bonds.empty() || !topology.angles.empty() || !topology.molecule.empty()) {
            const std::vector<FieldSpec> state = state_fields(sim->force_computes());
            std::vector<std::uint64_t> ids;
            ids.reserve(initial.size());
            for (const InitialParticle& p : initial) ids.push_back(p.id);
            try {
              topology_words = topology_state_words(state, ids, topology);
            } catch (const std::invalid_argument& e) {
              throw std::runtime_error(fmt::format("{}: {}", deck.system.data_file, e.what()));
            }
          }
        } catch (const GridError& e) {
          const auto w = deck.where.find("decomposition.grid");
          throw std::runtime_error(fmt::format("{}: decomposition.grid: {}",
                                               w != deck.where.end() ? w->second : deck.path,
                                               e.what()));
        } catch (const MemoryError& e) {
          // Ghost images far beyond the particles owned: R is at fault, the pair cutoff or the
          // skin, whichever is longer (a pair table: its entry with the longest cutoff).
          if (e.imports_dominate()) {
            const PotentialSection& pot = deck.potential;
            const double cutoff = SimulationConfig::max_pair_cutoff(pot);
            std::string key = "potential.cutoff";
            if (deck.neighbor.skin > cutoff) {
              key = "neighbor.skin";
            } else if (!pot.pairs.empty()) {
              for (std::size_t k = 0; k < pot.pairs.size(); ++k)
                if (pot.pairs[k].cutoff.value_or(pot.cutoff) == cutoff &&
                    deck.where.count(fmt::format("potential.pair[{}]", k))) {
                  key = fmt::format("potential.pair[{}]", k);
                  break;
                }
            }
            const auto w = deck.where.find(key);
            throw std::runtime_error(fmt::format(
                "{}: {}: R = largest pair cutoff + skin = {} + {} = {:.6g}: {}; such an import "
                "cutoff makes every rank hold images of far more particles than it owns: R is "
                "an interaction range (LJ: about 2.5 sigma + 0.3)",
                w != deck.where.end() ? w->second : deck.path, key, cutoff, deck.neighbor.skin,
                deck.import_cutoff(), e.what()));
          }
          // The particle count comes from the lattice (cells, region) or from the data file;
          // memory that goes mostly to cells is the box's (the density) rather than theirs.
          const bool lattice = deck.system.data_file.empty();
          const std::string key = !lattice             ? "system.data_file"
                                  : e.cells_dominate() ? "system.density"
                                                       : "system.cells";
          const auto w = deck.where.find(key);
          throw std::runtime_error(fmt::format(
              "{}: {}: {}; {}", w != deck.where.end() ? w->second : deck.path, key, e.what(),
              !lattice ? std::string("the data file holds too many atoms for this machine (or "
                                     "use more nodes)")
              : e.cells_dominate()
                  ? fmt::format("system.density = {} makes the box too large for its "
                                "particles (or use more nodes)",
                                deck.system.density)
                  : fmt::format("system.cells = [{}, {}, {}] is too many unit cells for this "
                                "machine (or use more nodes)",
                                deck.system.cells[0], deck.system.cells[1], deck.system.cells[2])));
        } catch (const CellCountError& e) {
          // The box comes from the lattice (density, cells) or from the data file.
          const std::string key =
              deck.system.data_file.empty() ? "system.density" : "system.data_file";
          const auto w = deck.where.find(key);
          throw std::runtime_error(fmt::format(
              "{}: {}: {}; {}", w != deck.where.end() ? w->second : deck.path, key, e.what(),
              deck.system.data_file.empty()
                  ? fmt::format("system.density = {} is too low (or use more ranks)",
                                deck.system.density)
                  : "the data file's box is too large for its atoms (or use more ranks)"));
        }
      }))
    return 1;
  {
    // What the memory check (in Simulation) found for rank 0, for the log.
    const double particles = deck.system.data_file.empty()
                                 ? static_cast<double>(lattice_start_count(deck))
                                 : static_cast<double>(initial.size());
    const MemoryEstimate e =
        estimate_rank_memory(sim->config(), sim->grid(), 0, particles, initial.size());
    const AvailableMemory a = available_memory();
    spdlog::info(
        "memory: about {} estimated for rank 0 ({:.4g} owned, {:.4g} ghosts, {:.4g} "
        "list entries, {} of pair constants); {} available to the node ({})",
        format_bytes(e.bytes), e.owned, e.ghosts, e.list_entries, format_bytes(e.pair_bytes),
        a.known ? format_bytes(a.bytes) : std::string("unknown"), a.source);
  }
  // --restart: the checkpoint is read and checked against the deck before anything runs.
  std::optional<RestartState> restart;
  if (!options.restart.empty() && !agree(comm, [&] {
        const long long expected = deck.system.data_file.empty()
                                       ? static_cast<long long>(lattice_start_count(deck))
                                       : static_cast<long long>(initial.size());
        restart = load_restart(comm, options.restart, *sim, expected, initial, topology_words);
        std::vector<InitialParticle>().swap(initial);
      }))
    return 1;

  spdlog::info(
      "decomposition: {} on a {} grid of ranks, box {:.6g} x {:.6g} x {:.6g}, "
      "R = cutoff + skin = {:.6g}",
      method_name(sim->config().decomposition.method), sim->grid().to_string(),
      sim->grid().sub_length().x, sim->grid().sub_length().y, sim->grid().sub_length().z,
      sim->import_cutoff());
  if (const std::string line = grid_choice_line(*sim); !line.empty()) spdlog::info("{}", line);
  spdlog::info("force computes: {}", describe(sim->force_computes()));

  int stop_signal = 0;  // the stop signal that ended the run early (exit status 128 + it)
  // Declared out here: after an error only one rank met, the other ranks are stopped (below)
  // before its files are closed, since closing a parallel file is collective.
  std::optional<RunOutput> output;
  try {
    using Clock = std::chrono::steady_clock;
    if (restart) {
      sim->setup(restart->particles_here, restart->step, restart->thermostat, restart->state_words);
      if (sim->total_particles() != restart->particles)
        throw std::runtime_error(
            fmt::format("{}: {} of its {} particles lie outside the box", restart->path,
                        restart->particles - sim->total_particles(), restart->particles));
      std::vector<InitialParticle>().swap(restart->particles_here);
      spdlog::info("restart from {} at step {}", restart->path, restart->step);
      if (restart->checksum_verified)
        spdlog::info(
            "checkpoint {}: checksum verified (read in {:.3g} s, the checksum of rank "
            "0's rows {:.3g} s)",
            restart->path, restart->read_seconds, restart->checksum_seconds);
      else if (comm.rank() == 0)
        spdlog::warn(
            "warning: {} has no checksum (a trajectory, or a checkpoint of an older "
            "scanmd): its contents cannot be verified",
            restart->path);
    } else if (deck.system.data_file.empty()) {
      sim->setup();
    } else {
      if (deck.velocity.create)
        sim->setup_drawing_velocities(initial, topology_words);
      else
        sim->setup(initial, 0, {}, topology_words);
      std::vector<InitialParticle>().swap(initial);
      std::vector<std::uint64_t>().swap(topology_words);
    }
    if (restart && deck.velocity.create)
      spdlog::info("velocities: from the checkpoint ([velocity] create applies to fresh starts)");
    if (deck.minimize.style != MinimizeStyle::None) {
      if (restart)
        spdlog::info("minimize: skipped on a --restart (the checkpoint continues the dynamics)");
      else
        run_minimize(deck, *sim);
    }
    imbalance_hint(comm, deck, *sim);
    // After setup: the host backend has timed its list build on the first list.
    if (sim->config().run.backend == Backend::Host) spdlog::info("{}", sim->backend_description());
    check_speeds(comm, deck, *sim, restart ? restart->path : std::string());
    spdlog::info("{} particles, box {:.6g} x {:.6g} x {:.6g}", sim->total_particles(),
                 sim->box().length.x, sim->box().length.y, sim->box().length.z);
    // Output files: backups, checks and the trajectory opened before the first step.
    if (!agree(comm, [&] { output.emplace(comm, deck, *sim, restart ? restart->path : ""); }))
      return 1;
    const bool thermostat = thermostat_has_econs(deck.thermostat.style);
    ThermoPrinter printer(thermo_columns(deck.output.thermo, thermostat), deck.output.thermo_digits,
                          sim->total_particles(), sim->config().run.steps, thermo_context(*sim));
    spdlog::info("{}", printer.header());
    const auto start = Clock::now();
    const long long first_step = sim->step();
    RunObserver observer(printer, output->active() ? &*output : nullptr, comm.rank() == 0);
    sim->run(observer);
    const double loop = std::chrono::duration<double>(Clock::now() - start).count();
    // A stop signal: every rank stopped after the same step (agreed in the step's vote); the
    // rest is the end of a run as usual, with the steps run so far and a final checkpoint.
    const bool stopped = sim->stopped();
    if (stopped) {
      stop_signal = static_cast<int>(comm.max(static_cast<long long>(StopSignals::received())));
      if (comm.rank() == 0)  // (the other ranks log warnings too)
        spdlog::warn("stopped by {} after step {} of run.steps = {}{}",
                     StopSignals::name(stop_signal), sim->step(), sim->config().run.steps,
                     deck.output.checkpoint.empty()
                         ? std::string("; no output.checkpoint to continue from")
                         : fmt::format("; continue with --restart {}", deck.output.checkpoint));
    }
    const std::vector<TimingRow> timing = timing_table(*sim, comm, loop, output->seconds());
    for (const std::string& line :
         end_of_run_report(*sim, comm, loop, sim->step() - first_step, timing))
      spdlog::info("{}", line);
    if (const std::string line = sim->backend_note(); !line.empty()) spdlog::info("{}", line);
    if (const std::string line = device_transfer_line(*sim, comm); !line.empty())
      spdlog::debug("{}", line);
    output->finish(*sim, timing, stopped);
    if (!deck.output.imports.empty()) {
      on_root(comm, [&] { write_import_csv(*sim, deck.output.imports); });  // errors: on all
      spdlog::info("per-rank import counts written to {}", deck.output.imports);
    }
    const std::uint64_t hash = sim->state_hash();
    spdlog::info("state hash: {:016x}", hash);
  } catch (const CollectiveError& e) {
    // Every rank stopped here with the same message (a particle that cannot be wrapped, a force
    // overflow, a census failure, ...): printed once, by rank 0; every rank exits normally.
    if (comm.rank() == 0) {
      spdlog::error("error: {}", e.what());
      io::echo_error_to_stderr(e.what());
    }
    return 1;
  } catch (const std::exception& e) {
    // Errors inside the step loop may hit one rank only: report it with the rank and stop all.
    // Rank 0's log pattern is the bare message; the other ranks' carries "[rank N/P] error:".
    const std::string message = error_message(e);
    if (comm.rank() == 0)
      spdlog::error("error: {}", message);
    else
      spdlog::error("{}", message);
    if (comm.rank() != 0 || comm.size() == 1) io::echo_error_to_stderr(message);
    std::fflush(stdout);
    if (comm.size() > 1) MpiRuntime::abort(1);
    return 1;
  }
  return stop_signal == 0 ? 0 : 128 + stop_signal;
}

}  // namespace scanmd
