// Memory estimate per rank and the memory the node gives (see memory_budget.hpp).
#include "engine/memory_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <sys/resource.h>

#include "engine/lattice.hpp"
#include "engine/simulation.hpp"

namespace scanmd {

namespace {

// Bytes per particle of the structures (README "Memory per particle"), grown by an eighth where
// the arrays keep that slack.
constexpr double kOwnedStoreBytes = 144.0 * 9.0 / 8.0;  // id, type, x, v, image, f, home, shift,
                                                        // x_build
constexpr double kGhostStoreBytes = 84.0 * 9.0 / 8.0;   // id, type, x, f, home, shift
constexpr double kCellListBytes = 10.0;     // cell key and order per particle (owned + ghosts)
constexpr double kListScratchBytes = 46.0;  // the list build's arrays per particle, freed after it
constexpr double kHaloBytes = 8.0;          // export index and send buffers (per owned)
constexpr double kRowBytes = 8.0;           // list row offsets (per owned)
constexpr double kListEntryBytes = 4.0;     // capacity beyond the entries is never touched
constexpr double kCellBytes = 8.0;
constexpr double kHashRecordBytes = 56.0;
constexpr double kOutputRowBytes = 160.0;
constexpr double kDataFileAtomBytes = 80.0;
constexpr double kStartParticleBytes = 72.0;
constexpr double kLibraryBytes = 25.0 * 1024 * 1024;

double volume(Vec3 b) {
  return b.x * b.y * b.z;
}

// The number density the particles of a rank's box may reach: the lattice's (a region leaves
// parts of the box empty but not the rest denser), or a data file's mean.
double local_density(const SimulationConfig& c, double particles) {
  if (c.system.data_file.empty()) return c.system.density;
  const Vec3 L = initial_box_length(c.system);
  return particles / volume(L);
}

// Reads "<key> <value>" lines of a file (/proc/meminfo, memory.stat): the value of `key`, or -1.
double field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string k;
    double v = -1;
    if (words >> k >> v && (k == key || k == key + ":")) return v;
  }
  return -1;
}

double number_in(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return -1;  // unreadable, or no limit
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end && *end == '\0' ? v : -1;
}

// The cgroup path of this process for the v2 hierarchy ("0::/a/b") or the v1 memory
// controller ("4:memory:/a/b").
std::string cgroup_path(bool v2) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (v2 ? (line.compare(0, a, "0") == 0 && controllers.empty())
           : controllers.find("memory") != std::string::npos)
      return line.substr(b + 1);
  }
  return {};
}

// Room under the cgroup limits of this process (the tightest along its path), or -1 for none.
double cgroup_room(std::string& source) {
  constexpr double kUnlimited = 1e18;  // v1 writes "no limit" as ~2^63
  double best = -1;
  auto consider = [&](double limit, double used, double reclaimable, const std::string& where) {
    if (limit < 0 || limit >= kUnlimited || used < 0) return;
    const double room = std::max(0.0, limit - used + std::max(0.0, reclaimable));
    if (best < 0 || room < best) {
      best = room;
      source = fmt::format("cgroup memory limit {} of {}", format_bytes(limit), where);
    }
  };
  // v2: every level of the path, from the process's own group up to the root.
  if (std::ifstream("/sys/fs/cgroup/cgroup.controllers")) {
    std::string path = cgroup_path(true);
    while (true) {
      std::string dir("/sys/fs/cgroup");
      if (path != "/") dir.append(path);
      consider(number_in(dir + "/memory.max"), number_in(dir + "/memory.current"),
               field(dir + "/memory.stat", "inactive_file"), dir);
      const std::size_t slash = path.rfind('/');
      if (slash == std::string::npos || path == "/") break;
      path.resize(slash == 0 ? 1 : slash);  // the parent group ("/" at the top)
    }
    return best;
  }
  // v1: the process's memory group, or the namespace's root when the path is not visible.
  const std::string path = cgroup_path(false);
  std::string own("/sys/fs/cgroup/memory");
  own.append(path);
  for (const std::string& dir : {own, std::string("/sys/fs/cgroup/memory")}) {
    const double limit = number_in(dir + "/memory.limit_in_bytes");
    if (limit < 0) continue;
    consider(limit, number_in(dir + "/memory.usage_in_bytes"),
             field(dir + "/memory.stat", "total_inactive_file"), dir);
    break;
  }
  return best;
}

}  // namespace

double lattice_particles_estimate(const SimulationConfig& c) {
  const double sites =
      4.0 * c.system.cells[0] * static_cast<double>(c.system.cells[1]) * c.system.cells[2];
  const RegionSection& g = c.region;
  const Vec3 L = initial_box_length(c.system);
  switch (g.style) {
    case RegionStyle::Box:
      return sites;
    case RegionStyle::Slab: {
      const double l = g.axis == 0 ? L.x : (g.axis == 1 ? L.y : L.z);
      return sites * std::clamp((g.hi - g.lo) / l, 0.0, 1.0);
    }
    case RegionStyle::Sphere:
      return std::min(sites, sites * 4.0 / 3.0 * std::numbers::pi * g.radius * g.radius * g.radius /
                                 (L.x * L.y * L.z));
  }
  return sites;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) {
    bytes /= 1024.0;
    ++u;
  }
  if (bytes >= 1024.0) return fmt::format("{:.3g} EiB", bytes);  // beyond the table
  return fmt::format("{:.{}f} {}", bytes, u == 0 ? 0 : 1, units[u]);
}

MemoryEstimate estimate_rank_memory(const SimulationConfig& c, const RankGrid& grid, int rank,
                                    double particles, double start_particles) {
  MemoryEstimate e;
  const double R = c.import_cutoff();
  const Method method = c.decomposition.method;
  const Int3 coord = grid.coord_of(rank);
  const Vec3 b = grid.box_length(coord);
  const double rho = local_density(c, particles);
  const int P = grid.size();
  e.owned = std::min(particles, rho * volume(b));
  e.ghosts = rho * analytic_import_volume(method, b, R);
  // Neutral territory with angles: its bonded shell, at most a full shell of R_b.
  if (const double rb = c.bonded_shell(); rb > 0)
    e.ghosts += rho * analytic_import_volume(Method::FullShell, b, rb);
  const double within_R = rho * 4.0 / 3.0 * std::numbers::pi * R * R * R;
  e.list_entries = e.owned * within_R * (method == Method::FullShell ? 1.0 : 0.5);
  const double edge = 0.5 * R;
  e.cells = 1.0;
  for (const double l : {b.x, b.y, b.z}) e.cells *= std::max(1.0, std::floor((l + 2 * R) / edge));
  // More cells than a rank may hold is the cell-count check's to report (a box far too large
  // for its particles: the density, not the memory, is at fault).
  e.cells = std::min(e.cells, kMaxCellsPerRank);

  e.pair_bytes = pair_constants_bytes(c.potential, c.system.type_count());

  const double all = e.owned + e.ghosts;
  // Resident from the first build on: the particles, their cells, the halo plan and the list.
  double bytes = kLibraryBytes + e.owned * kOwnedStoreBytes + e.ghosts * kGhostStoreBytes +
                 all * kCellListBytes + e.owned * (kHaloBytes + kRowBytes) +
                 e.list_entries * kListEntryBytes + e.cells * kCellBytes + e.pair_bytes;
  // On top of that, one at a time: the list build's arrays (freed after each build), or at the
  // end of the run the state hash's records (rank 0 receives rounds of at most 65 536 records)
  // and the output blocks, or at the start a data file's particles.
  double end = e.owned * kHashRecordBytes;
  if (rank == 0 && P > 1) end += std::min(particles, 65536.0) * kHashRecordBytes;
  if (!c.output.trajectory.empty() || !c.output.checkpoint.empty())
    end += particles / P * kOutputRowBytes;
  if (rank == 0 && !c.output.data_file.empty()) end += particles * kDataFileAtomBytes;
  bytes += std::max({all * kListScratchBytes, end, start_particles * kStartParticleBytes});
  // A tenth more for what the terms above leave out (allocator rounding, thread scratch).
  e.bytes = kLibraryBytes + 1.1 * (bytes - kLibraryBytes);
  e.cell_bytes = 1.1 * e.cells * kCellBytes;
  return e;
}

// The address space this process may still map (ulimit -v, RLIMIT_AS), as room for resident
// memory: the limit less what is mapped but not resident now (libraries, MPI's segments); -1
// when unlimited.
double address_space_room(std::string& source) {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
  const double mapped = field("/proc/self/status", "VmSize") * 1024.0;
  const double resident = field("/proc/self/status", "VmRSS") * 1024.0;
  const double cap = static_cast<double>(limit.rlim_cur);
  const double room = mapped >= 0 && resident >= 0 ? cap - (mapped - resident) : cap;
  source = fmt::format(
      "ulimit -v: {} of address space per process, {} of it not taken by "
      "mappings already there",
      format_bytes(cap), format_bytes(std::max(0.0, room)));
  return std::max(0.0, room);
}

AvailableMemory available_memory() {
  AvailableMemory a;
  a.process_bytes = address_space_room(a.process_source);
  if (const char* forced = std::getenv("SCANMD_AVAILABLE_MEMORY"); forced && *forced) {
    char* end = nullptr;
    const double v = std::strtod(forced, &end);
    // Issue 31: "abc", "-5" and "4G" were ignored without a word.
    if (!(end && *end == '\0' && v >= 0 && std::isfinite(v)))
      throw std::invalid_argument(fmt::format(
          "SCANMD_AVAILABLE_MEMORY = \"{}\": not a number of bytes (give a plain number such as "
          "8e9, or unset it to read /proc/meminfo and the cgroup limit)",
          forced));
    a.bytes = v;
    a.known = true;
    a.source = "SCANMD_AVAILABLE_MEMORY";
    return a;
  }
  const double kib = field("/proc/meminfo", "MemAvailable");
  if (kib >= 0) {
    a.bytes = kib * 1024.0;
    a.known = true;
    a.source = "MemAvailable in /proc/meminfo";
  }
  std::string where;
  const double room = cgroup_room(where);
  if (room >= 0 && (!a.known || room < a.bytes)) {
    a.bytes = room;
    a.known = true;
    a.source = where;
  }
  return a;
}

void check_memory(const Communicator& comm, const SimulationConfig& config, const RankGrid& grid,
                  double particles, double start_particles) {
  const int node_ranks = comm.node_size();
  const AvailableMemory avail = available_memory();
  const MemoryEstimate e =
      estimate_rank_memory(config, grid, comm.rank(), particles, start_particles);
  double share = avail.bytes / node_ranks;
  bool known = avail.known;
  std::string source = fmt::format(
      "{} {}{}", format_bytes(avail.bytes), avail.source,
      node_ranks == 1 ? std::string()
                      : fmt::format(", shared by the {} ranks of its node", node_ranks));
  // A per-process address-space limit (ulimit -v) lower than the share: that is the bound.
  if (avail.process_bytes >= 0 && (!known || avail.process_bytes < share)) {
    share = avail.process_bytes;
    known = true;
    source = avail.process_source;
  }
  const bool short_of_memory = known && e.bytes > share;
  const int first = comm.first_rank_where(short_of_memory);
  if (first >= comm.size()) return;
  std::string message;
  if (comm.rank() == first)
    message = fmt::format(
        "{:.4g} particles need about {} on rank {} ({:.3g} owned, {:.3g} ghosts, a neighbour "
        "list of {:.3g} entries, {:.3g} cells), more than the {} it may use ({})",
        particles, format_bytes(e.bytes), first, e.owned, e.ghosts, e.list_entries, e.cells,
        format_bytes(share), source);
  // Whether the cells, not the particles, take most of it (a low density): the same on all ranks.
  const bool cells = comm.broadcast(static_cast<int>(e.cell_bytes > 0.5 * e.bytes), first) != 0;
  const bool imports =
      comm.broadcast(static_cast<int>(!cells && !(e.ghosts <= 10.0 * std::max(1.0, e.owned))),
                     first) != 0;
  throw MemoryError(comm.broadcast(std::move(message), first), cells, imports);
}

}  // namespace scanmd
