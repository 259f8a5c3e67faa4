#include "app/model_command.hpp"

#include "base/communicator.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "base/box.hpp"
#include "engine/force_compute.hpp"
#include "engine/lattice.hpp"
#include "engine/memory_budget.hpp"
#include "engine/species.hpp"
#include "io/backup.hpp"
#include "io/deck.hpp"
#include "io/lammps_data.hpp"
#include "model/virtual_decomposition.hpp"

namespace scanmd {

namespace {

std::string csv_header() {
  return "method,ranks,grid,bx,by,bz,R_over_b,imports_min,imports_mean,imports_max,"
         "tower_mean,plate_mean,pairs_min,pairs_mean,pairs_max,pairs_total,analytic,"
         "measured_over_analytic,seconds,balance,bytes_min,bytes_mean,bytes_max";
}

std::string csv_row(const ModelResult& r) {
  return fmt::format(
      "{},{},{}x{}x{},{:.9g},{:.9g},{:.9g},{:.6g},{},{:.6f},{},{:.6f},{:.6f},{},{:.6f},{},{},{:.6f}"
      ","
      "{:.6f},{:.3f},{},{},{:.6f},{}",
      method_name(r.method), r.ranks, r.grid.x, r.grid.y, r.grid.z, r.box_edge.x, r.box_edge.y,
      r.box_edge.z, r.r_over_b, r.imports.min, r.imports.mean, r.imports.max, r.tower_mean,
      r.plate_mean, r.pairs.min, r.pairs.mean, r.pairs.max, r.pairs_total, r.analytic,
      r.analytic > 0 ? r.imports.mean / r.analytic : 0.0, r.seconds,
      name_of<Balance>(kBalanceNames, r.balance), r.bytes.min, r.bytes.mean, r.bytes.max);
}

}  // namespace

int model_command(const ModelCommandOptions& options) {
  if (MpiRuntime::world_rank() != 0)
    return 0;  // the model is one process; extra ranks have nothing to do
  try {
    const io::Deck deck = io::load_deck(options.deck, options.overrides);
    // --csv naming an input (the deck, the data file) is refused before any work.
    for (const std::string& input : {deck.path, deck.system.data_file})
      if (!options.csv.empty() && !input.empty() && io::same_file(options.csv, input))
        throw std::invalid_argument(fmt::format(
            "--csv {}: is an input of the model ({}): an output must not replace an input",
            options.csv, input));
    std::vector<Method> methods;
    if (options.methods.empty()) {
      methods.assign(std::begin(kAllMethods), std::end(kAllMethods));
    } else {
      for (const std::string& m : options.methods) {
        const auto parsed = method_from_name(m);
        if (!parsed)
          throw std::invalid_argument(fmt::format("--methods: unknown method '{}' ({})", m,
                                                  quoted_names<Method>(kMethodNames)));
        methods.push_back(*parsed);
      }
    }
    // The start of `scanmd run` (issue 31: the model read the lattice even with a data file):
    // system.data_file's atoms, box and types, else the lattice (sites of the region, types of
    // system.type_fractions).
    SimulationConfig config = deck;
    io::LammpsData data;
    const bool from_file = !deck.system.data_file.empty();
    if (from_file) {
      data = io::read_lammps_data(deck.system.data_file);
      config.system.types = data.atom_types;
      if (!data.masses.empty()) config.system.mass = data.masses;
      io::Deck with_file = deck;
      with_file.system = config.system;
      const std::string from = fmt::format("the data file {}", deck.system.data_file);
      io::check_species(with_file, from, data.masses.empty() ? std::string() : from);
      config.system.box =
          Vec3{data.hi[0] - data.lo[0], data.hi[1] - data.lo[1], data.hi[2] - data.lo[2]};
    }
    const FccLattice lattice = FccLattice::from_density(deck.system.density, deck.system.cells);
    const Box box = Box::make(initial_box_length(config.system));
    // Impossible sizes (issue 15): the model holds every particle's position and, for one
    // virtual rank at a time, that rank's structures (the largest at the fewest ranks): refused
    // before the lattice is built when that exceeds the memory of this machine.
    if (!options.ranks.empty()) {
      const double n =
          from_file ? static_cast<double>(data.atoms.size()) : lattice_particles_estimate(deck);
      const int fewest = *std::min_element(options.ranks.begin(), options.ranks.end());
      const RankGrid grid(
          choose_grid(fewest, {0, 0, 0}, box, Method::HalfShell, deck.import_cutoff()), box);
      const double need = n * 32.0 + estimate_rank_memory(deck, grid, 0, n / fewest, 0).bytes;
      AvailableMemory avail = available_memory();
      // One process: a per-process limit (ulimit -v) below the node's memory is the bound.
      if (avail.process_bytes >= 0 && (!avail.known || avail.process_bytes < avail.bytes)) {
        avail.bytes = avail.process_bytes;
        avail.known = true;
        avail.source = avail.process_source;
      }
      if (avail.known && need > avail.bytes) {
        const auto w = deck.where.find("system.cells");
        throw std::invalid_argument(fmt::format(
            "{}: system.cells: {:.4g} particles need about {} to model (their positions, and the "
            "structures of one of {} virtual ranks), more than the {} available ({})",
            w != deck.where.end() ? w->second : deck.path, n, format_bytes(need), fewest,
            format_bytes(avail.bytes), avail.source));
      }
      // ... and the virtual ranks themselves (issue 31: --ranks 100000000 was OOM-killed after
      // 104 s at 24 GB): the exports of every virtual rank are held at once, ρ·V of the method's
      // import volume per rank at about 26 bytes each (measured: 25 at 10^6 ranks of the 32 000
      // melt, 1.25 GB), plus about 40 bytes of counts per virtual rank.
      // (With bonds or angles, the run's import cutoff: their reach when longer.)
      const bool bonded =
          deck.bond.style != BondStyle::None || deck.angle.style != AngleStyle::None;
      const double R = bonded
                           ? deck.import_cutoff()
                           : SimulationConfig::max_pair_cutoff(deck.potential) + deck.neighbor.skin;
      for (const int P : options.ranks) {
        double bytes = 0, per_rank = 0;
        for (const Method m : methods) {
          const RankGrid g(choose_grid(P, {0, 0, 0}, box, m, R), box);
          const double imports = n / box.volume() * analytic_import_volume(m, g.sub_length(), R);
          const double b = n * 32.0 + P * (imports * 26.0 + 40.0);
          if (b > bytes) bytes = b, per_rank = imports;
        }
        if (avail.known && bytes > avail.bytes)
          throw std::invalid_argument(fmt::format(
              "--ranks {}: modelling {} virtual ranks of {:.4g} particles needs about {} (about "
              "{:.3g} imports held for each virtual rank), more than the {} available ({}); "
              "model fewer ranks",
              P, P, n, format_bytes(bytes), per_rank, format_bytes(avail.bytes), avail.source));
      }
    }
    // The lattice start of `scanmd run`: the region's sites, ids 1..N (the whole box by default).
    std::vector<Vec3> positions;
    std::vector<std::uint32_t> types;
    if (from_file) {
      positions.resize(data.atoms.size());
      types.resize(data.atoms.size());
      for (const io::LammpsAtom& a : data.atoms) {  // ids 1..N (checked by the reader)
        Vec3 x{a.x - data.lo[0], a.y - data.lo[1], a.z - data.lo[2]};
        int image[3] = {a.ix, a.iy, a.iz};
        // As Simulation::setup wraps them (the reader made sure they can be).
        wrap_far_coordinate(x.x, image[0], box.length.x);
        wrap_far_coordinate(x.y, image[1], box.length.y);
        wrap_far_coordinate(x.z, image[2], box.length.z);
        positions[a.id - 1] = x;
        types[a.id - 1] = static_cast<std::uint32_t>(a.type - 1);
      }
      data.atoms = {};
    } else {
      const RegionSection& region = deck.region;
      auto in_region = [&](Vec3 x) { return region.contains(x); };
      positions.resize(lattice.count_in(in_region));
      lattice.for_each_site_in(
          in_region, {0, 0, 0}, box.length, [](Vec3) { return true; },
          [&](std::uint64_t id, Vec3 x) { positions[id - 1] = x; });
      if (!deck.system.type_fractions.empty()) {
        const LatticeTypes lattice_types(deck.system.type_fractions, positions.size(),
                                         deck.system.seed);
        types.resize(positions.size());
        for (std::size_t i = 0; i < types.size(); ++i) types[i] = lattice_types(i + 1);
      }
    }
    // R of the run: the largest pair cutoff + skin (issue 31: potential.cutoff was taken even
    // when a pair table gives other cutoffs); pairs are counted within each pair's own cutoff.
    // With bonds or angles R is the run's import cutoff, their reach when it is the longer.
    const double cutoff = SimulationConfig::max_pair_cutoff(deck.potential);
    const bool bonded = deck.bond.style != BondStyle::None || deck.angle.style != AngleStyle::None;
    const double R = bonded ? deck.import_cutoff() : cutoff + deck.neighbor.skin;
    std::vector<double> pair_cutoff_sq;
    int type_count = 1;
    if (!types.empty()) {
      const Species species = make_species(config);
      type_count = species.types;
      for (int i = 0; i < type_count; ++i)
        for (int j = 0; j < type_count; ++j)
          pair_cutoff_sq.push_back(species.eam
                                       ? species.eam->cut * species.eam->cut
                                       : species.pair.cutoff(i, j) * species.pair.cutoff(i, j));
    }
    std::printf(
        "scanmd model: %zu particles%s, box %.6g x %.6g x %.6g, R = %.6g (%s %.6g + skin %.6g), "
        "initial configuration of %s\n",
        positions.size(), types.empty() ? "" : fmt::format(" of {} types", type_count).c_str(),
        box.length.x, box.length.y, box.length.z, R,
        bonded && R - deck.neighbor.skin > cutoff ? "the bonds' reach" : "largest pair cutoff",
        bonded ? R - deck.neighbor.skin : cutoff, deck.neighbor.skin,
        from_file ? deck.system.data_file.c_str() : deck.path.c_str());
    // The bytes of one ghost record per step (EAM: F' forward and the density back as well).
    const HaloRecordBytes record = halo_record_bytes(force_computes(config));
    std::printf(
        "ghost records: %lld bytes forward and %lld back per step (%s); bytes/step: what a rank "
        "sends per step to other ranks\n",
        record.forward, record.reverse,
        record.forward == 24 ? "positions, forces" : "positions and fields, forces and fields");
    std::printf("%-18s %7s %11s %7s %10s %10s %10s %10s %10s %8s %11s %8s %s\n", "method", "ranks",
                "grid", "R/b", "import min", "mean", "max", "analytic", "pairs mean",
                "pair max/mean", "bytes/step", "seconds", "balance");
    // --csv: checked before any work (a folder, a missing directory), an existing file backed
    // up as the run's outputs are (#name.1#, ...), written to <csv>.tmp and renamed at the end;
    // the temporary file never outlives a failure.
    struct TempFile {
      std::string path;
      std::FILE* f = nullptr;
      ~TempFile() {
        if (f) std::fclose(f);
        if (!path.empty()) std::remove(path.c_str());
      }
    } csv;
    if (!options.csv.empty()) {
      io::check_writable(options.csv);
      if (const auto backup = io::back_up_existing(options.csv))
        std::printf("backed up existing %s to %s\n", options.csv.c_str(), backup->c_str());
      csv.path = options.csv + ".tmp";
      csv.f = std::fopen(csv.path.c_str(), "w");
      if (!csv.f) {
        const int err = errno;
        csv.path.clear();  // not ours to remove
        throw std::runtime_error(options.csv + ": cannot write: " + std::strerror(err));
      }
      std::fprintf(csv.f, "%s\n", csv_header().c_str());
    }
    // decomposition.balance (particles, pairs): every row twice, with equal boxes and balanced.
    std::vector<Balance> balances{Balance::None};
    if (deck.decomposition.balance == Balance::Time)
      throw std::invalid_argument(
          "decomposition.balance = \"time\" cannot be modelled: use "
          "\"particles\" or \"pairs\"");
    if (deck.decomposition.balance != Balance::None) balances.push_back(deck.decomposition.balance);
    for (Method m : methods)
      for (int P : options.ranks)
        for (Balance balance : balances) {
          ModelOptions mo;
          mo.balance = balance;
          // With angles R depends on the method (neutral territory: one bond, and its bonded
          // shell; the others: two bonds).
          io::Deck under = deck;
          under.decomposition.method = m;
          const double R_m = bonded ? under.import_cutoff() : R;
          mo.bonded_shell = bonded ? under.bonded_shell() : 0.0;
          mo.requested_grid = {deck.decomposition.grid[0], deck.decomposition.grid[1],
                               deck.decomposition.grid[2]};
          try {  // the deck's grid (or its fixed entries) only where P admits it
            candidate_grids(P, mo.requested_grid, box, m, R_m);
          } catch (const std::invalid_argument& e) {
            // Said, not silent (issue 31): the row is of the least-import grid instead.
            std::printf(
                "note: %s on %d ranks: decomposition.grid = [%d, %d, %d] does not fit "
                "(%s): modelled on the least-import grid instead\n",
                std::string(method_name(m)).c_str(), P, mo.requested_grid.x, mo.requested_grid.y,
                mo.requested_grid.z, e.what());
            mo.requested_grid = {0, 0, 0};
          }
          mo.count_pairs = options.pairs;
          mo.tolerance = deck.decomposition.balance_tolerance;
          mo.types = types;
          mo.pair_cutoff_sq = pair_cutoff_sq;
          mo.type_count = type_count;
          mo.forward_bytes = record.forward;
          mo.reverse_bytes = record.reverse;
          const ModelResult r =
              model_decomposition(positions, box, m, bonded ? R_m - deck.neighbor.skin : cutoff,
                                  deck.neighbor.skin, P, mo);
          std::printf(
              "%-18s %7d %11s %7.3f %10lld %10.1f %10lld %10.1f %10.1f %8.3f %11.4g %8.2f %s\n",
              std::string(method_name(m)).c_str(), P,
              fmt::format("{}x{}x{}", r.grid.x, r.grid.y, r.grid.z).c_str(), r.r_over_b,
              r.imports.min, r.imports.mean, r.imports.max, r.analytic, r.pairs.mean,
              r.pairs.mean > 0 ? r.pairs.max / r.pairs.mean : 0.0, r.bytes.mean, r.seconds,
              std::string(name_of<Balance>(kBalanceNames, balance)).c_str());
          std::fflush(stdout);
          if (csv.f) std::fprintf(csv.f, "%s\n", csv_row(r).c_str());
        }
    if (csv.f) {
      const bool ok = std::fflush(csv.f) == 0 && std::ferror(csv.f) == 0;
      const bool closed = std::fclose(csv.f) == 0;
      csv.f = nullptr;
      if (!ok || !closed || std::rename(csv.path.c_str(), options.csv.c_str()) != 0)
        throw std::runtime_error(options.csv + ": cannot write: " + std::strerror(errno));
      csv.path.clear();  // renamed: nothing to remove
      std::printf("written %s\n", options.csv.c_str());
    }
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace scanmd
