#include "app/report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace scanmd {

double peak_memory_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: KiB
}

namespace {
struct Spread {
  double min, avg, max;
};
Spread spread(const Communicator& comm, double local) {
  return {comm.min(local), comm.sum(local) / comm.size(), comm.max(local)};
}
}  // namespace

std::string balance_line(const BalanceStep& b) {
  const std::string cost(name_of<Balance>(kBalanceNames, b.cost));
  if (!b.moved)
    return fmt::format(
        "balance at step {} ({}): max/mean {:.3f}, within the tolerance; cut "
        "planes kept ({})",
        b.step, cost, b.before, describe_cuts(b.cuts));
  const std::string after = b.cost == Balance::Time ? "(time: measured at the next balance step)"
                                                    : fmt::format("{:.3f}", b.after);
  return fmt::format("balance at step {} ({}): max/mean {:.3f} -> {}; cut planes {}", b.step, cost,
                     b.before, after, describe_cuts(b.cuts));
}

std::string grid_choice_line(const Simulation& sim) {
  const DecompositionSection& d = sim.config().decomposition;
  if (d.balance == Balance::None || sim.grid().size() == 1 ||
      (d.grid[0] != 0 && d.grid[1] != 0 && d.grid[2] != 0))
    return "";
  const BalancedGridChoice& c = sim.grid_choice();
  const std::string cost(name_of<Balance>(
      kBalanceNames, d.balance == Balance::Particles ? Balance::Particles : Balance::Pairs));
  auto dims = [](Int3 g) { return fmt::format("{}x{}x{}", g.x, g.y, g.z); };
  if (c.dims == c.import_best)
    return fmt::format("grid {}: the least-import grid, predicted {} max/mean {:.3f} once balanced",
                       dims(c.dims), cost, c.predicted);
  return fmt::format(
      "grid {} for balance: predicted {} max/mean {:.3f} once balanced; the "
      "least-import grid {} would give {:.3f}",
      dims(c.dims), cost, c.predicted, dims(c.import_best), c.import_best_predicted);
}

std::string load_line(const Simulation& sim, const Communicator& comm) {
  auto part = [&](const char* name, long long local) {
    const long long lo = -comm.max(-local), hi = comm.max(local), sum = comm.sum(local);
    const double mean = static_cast<double>(sum) / comm.size();
    return fmt::format("{} {} / {:.1f} / {} (max/mean {:.3f})", name, lo, mean, hi,
                       mean > 0 ? hi / mean : 1.0);
  };
  const std::string particles = part("particles", static_cast<long long>(sim.particles().n_owned));
  return fmt::format("load per rank (min / avg / max): {}, {}", particles,
                     part("pairs", sim.local_pairs()));
}

std::string import_summary_line(const Simulation& sim, const Communicator& comm) {
  long long lo = 0, hi = 0;
  double sum = 0, bonded = 0;
  std::size_t n = 0;
  bool first = true;
  for (const ImportSnapshot& s : sim.imports()) {
    lo = first ? s.min : std::min(lo, s.min);
    hi = first ? s.max : std::max(hi, s.max);
    first = false;
    sum += s.mean;
    bonded += s.bonded_mean;
    ++n;
  }
  const double mean = n ? sum / static_cast<double>(n) : 0.0;
  // Neutral territory with angles: the mean counts the bonded shell too, the analytic figure
  // the tower and plate only; bonded= says how many of the mean it is.
  const std::string shell =
      sim.config().bonded_shell() > 0
          ? fmt::format(" bonded={:.1f} (R_b = {:.6g})", n ? bonded / static_cast<double>(n) : 0.0,
                        sim.config().bonded_shell())
          : std::string();
  return fmt::format(
      "import: method={} ranks={} grid={} mean={:.1f} min={} max={} analytic={:.1f}{}",
      method_name(sim.config().decomposition.method), comm.size(), sim.grid().to_string(), mean, lo,
      hi, sim.analytic_import(), shell);
}

std::string device_transfer_line(const Simulation& sim, const Communicator& comm) {
  if (sim.backend() != Backend::Cuda || sim.imports().empty()) return {};
  long long rebuilds = 0, sum = 0, most = 0;
  for (const ImportSnapshot& s : sim.imports()) {
    if (s.step == sim.imports().front().step) continue;  // setup: the particles come from the host
    const long long b = s.per_rank_counts[comm.rank()].device_to_host_bytes;
    ++rebuilds;
    sum += b;
    most = std::max(most, b);
  }
  const long long owned = comm.sum(static_cast<long long>(sim.particles().n_owned));
  sum = comm.sum(sum);
  most = comm.max(most);
  if (rebuilds == 0) return {};
  const double mean = static_cast<double>(sum) / (static_cast<double>(rebuilds) * comm.size());
  return fmt::format(
      "device to host per rebuild and rank: mean {:.0f} B, max {} B ({:.2f} B per owned "
      "particle)",
      mean, most, owned > 0 ? mean * comm.size() / static_cast<double>(owned) : 0.0);
}

std::vector<TimingRow> timing_table(const Simulation& sim, const Communicator& comm,
                                    double loop_seconds, double output_seconds) {
  const Timers& t = sim.timers();
  const double output = t.get(Phase::Output) + output_seconds;
  const double comm_time =
      t.get(Phase::Forward) + t.get(Phase::Reverse) + t.get(Phase::Migrate) + t.get(Phase::Plan);
  const double other =
      std::max(0.0, loop_seconds - comm_time - t.get(Phase::Pair) - t.get(Phase::Neigh) - output);
  const Spread total = spread(comm, loop_seconds);
  std::vector<TimingRow> rows;
  auto row = [&](std::string name, double local) {
    const Spread s = spread(comm, local);
    const double pct = total.avg > 0 ? 100.0 * s.avg / total.avg : 0.0;
    rows.push_back({std::move(name), s.min, s.avg, s.max, pct});
  };
  row("pair", t.get(Phase::Pair));
  row("neigh", t.get(Phase::Neigh));
  row("comm", comm_time);
  row("  fwd", t.get(Phase::Forward));
  row("  rev", t.get(Phase::Reverse));
  row("  migr", t.get(Phase::Migrate));
  row("  plan", t.get(Phase::Plan));
  row("output", output);
  row("other", other);
  return rows;
}

std::vector<std::string> end_of_run_report(const Simulation& sim, const Communicator& comm,
                                           double loop_seconds, long long steps_run,
                                           const std::vector<TimingRow>& timing) {
  std::vector<std::string> out;
  const Spread total = spread(comm, loop_seconds);
  const long long n = sim.total_particles();
  const double ps = total.max > 0 ? static_cast<double>(n) * steps_run / total.max : 0.0;
  out.push_back(fmt::format("Loop time of {:.4f} s on {} ranks for {} steps with {} particles",
                            total.max, comm.size(), steps_run, n));
  out.push_back(fmt::format("Performance: {:.4g} particle-steps/s, {:.4g} steps/s", ps,
                            total.max > 0 ? steps_run / total.max : 0.0));
  out.push_back("");
  out.push_back("Section |  min time  |  avg time  |  max time  | %total");
  out.push_back("--------+------------+------------+------------+-------");
  for (const TimingRow& r : timing)
    out.push_back(fmt::format("{:<8}| {:10.4f} | {:10.4f} | {:10.4f} | {:6.2f}", r.section, r.min,
                              r.avg, r.max, r.percent));
  out.push_back("");
  const Spread mem = spread(comm, peak_memory_mib());
  out.push_back(fmt::format("Peak memory per rank: {:.1f} / {:.1f} / {:.1f} MiB (min / avg / max)",
                            mem.min, mem.avg, mem.max));
  out.push_back(fmt::format("Neighbor list rebuilds: {}", sim.rebuilds()));
  out.push_back(load_line(sim, comm));
  out.push_back(import_summary_line(sim, comm));
  return out;
}

void write_import_csv(const Simulation& sim, const std::string& path) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
  std::fprintf(f, "# scanmd import volumes: method=%s grid=%s R=%.17g\n",
               std::string(method_name(sim.config().decomposition.method)).c_str(),
               sim.grid().to_string().c_str(), sim.import_cutoff());
  std::fprintf(f, "step,rank,ghosts,tower,plate,bytes_per_step,analytic,pairs\n");
  for (const ImportSnapshot& s : sim.imports())
    for (std::size_t r = 0; r < s.per_rank_counts.size(); ++r) {
      const ImportCounts& c = s.per_rank_counts[r];
      const long long pairs = r < s.per_rank_pairs.size() ? s.per_rank_pairs[r] : -1;
      std::fprintf(f, "%lld,%zu,%lld,%lld,%lld,%lld,%.6f,%lld\n", s.step, r, c.ghosts, c.tower,
                   c.plate, c.bytes_per_step, sim.analytic_import(r), pairs);
    }
  const bool ok = std::fflush(f) == 0 && std::ferror(f) == 0;
  std::fclose(f);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
  }
}

}  // namespace scanmd
