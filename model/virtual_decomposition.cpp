#include "model/virtual_decomposition.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "base/particles.hpp"
#include "decomposition/export_selection.hpp"
#include "decomposition/method.hpp"
#include "engine/cell_list.hpp"
#include "engine/load_balance.hpp"
#include "engine/neighbor_list.hpp"
#include "kernels/counting_sort.hpp"
#include "kernels/workspace.hpp"

namespace scanmd {

namespace {

ModelStats stats_of(const std::vector<long long>& v) {
  ModelStats s;
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (long long x : v) sum += static_cast<double>(x);
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

}  // namespace

namespace {

// What one grid with its cut planes gives: imports and pairs per virtual rank.
struct Evaluation {
  std::vector<long long> imports, pairs;
  std::vector<long long> bytes;  // per step: remote records sent forward and back
  long long tower = 0, plate = 0;
  std::vector<std::uint32_t> owner;  // virtual rank of each particle
};

Evaluation evaluate(std::span<const Vec3> positions, const Box& box, Method method, double cutoff,
                    double R, const RankGrid& grid, bool count_pairs, const ModelOptions& options) {
  const std::size_t n = positions.size();
  const int P = grid.size();
  kernels::Workspace ws;
  Evaluation ev;

  // Owners: counting sort of particles by rank.
  std::vector<std::uint32_t> owner_offsets(P + 1), by_owner(n);
  ev.owner.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    ev.owner[i] = static_cast<std::uint32_t>(grid.rank_of(grid.box_of(positions[i])));
  kernels::counting_sort(ws, ev.owner, static_cast<std::uint32_t>(P), owner_offsets, by_owner);

  // Export selection of every virtual rank, entries in global particle indices.
  const ExportSelector selector(grid, box, method, R, options.bonded_shell);
  ExportList all, local;
  std::vector<long long> remote_sends(P, 0), remote_recvs(P, 0);
  std::vector<Vec3> x_local;
  for (int r = 0; r < P; ++r) {
    const std::uint32_t b = owner_offsets[r], e = owner_offsets[r + 1];
    x_local.resize(e - b);
    for (std::uint32_t k = b; k < e; ++k) x_local[k - b] = positions[by_owner[k]];
    local.clear();
    selector.select(x_local, grid.coord_of(r), local);
    for (std::size_t k = 0; k < local.size(); ++k) {
      // A record to another rank: its position goes forward every step, its force (and any
      // reverse-summed field) comes back (HaloExchange::build's bytes_per_step).
      if (local.dest[k] != static_cast<std::uint32_t>(r)) {
        ++remote_sends[r];
        ++remote_recvs[local.dest[k]];
      }
      all.dest.push_back(local.dest[k]);
      all.particle.push_back(by_owner[b + local.particle[k]]);
      all.shift.push_back(local.shift[k]);
      all.kind.push_back(local.kind[k]);
    }
  }

  // Ghosts of each rank: entries binned by destination (stable: source particle order,
  // which is source-rank order as in the real exchange).
  std::vector<std::uint32_t> ghost_offsets(P + 1), by_dest(all.size());
  kernels::counting_sort(ws, all.dest, static_cast<std::uint32_t>(P), ghost_offsets, by_dest);
  ev.imports.resize(P);
  ev.pairs.assign(P, 0);
  for (std::size_t k = 0; k < all.size(); ++k) {
    ev.tower += all.kind[k] == ImportKind::Tower;
    ev.plate += all.kind[k] == ImportKind::Plate;
  }
  for (int r = 0; r < P; ++r) ev.imports[r] = ghost_offsets[r + 1] - ghost_offsets[r];
  ev.bytes.resize(P);
  for (int r = 0; r < P; ++r)
    ev.bytes[r] = remote_sends[r] * options.forward_bytes +
                  (has_reverse_exchange(method) ? remote_recvs[r] * options.reverse_bytes : 0);
  if (!count_pairs) return ev;

  const double cutoff_sq = cutoff * cutoff;
  ParticleStore store;
  CellList cells;
  NeighborList list;
  for (int r = 0; r < P; ++r) {
    const Int3 c = grid.coord_of(r);
    store = ParticleStore{};
    for (std::uint32_t k = owner_offsets[r]; k < owner_offsets[r + 1]; ++k) {
      const std::uint32_t i = by_owner[k];
      store.push_owned(i + 1, 0, positions[i], {0, 0, 0}, {0, 0, 0}, c);
    }
    const std::size_t n_owned = store.n_owned;
    const std::size_t n_ghost = ghost_offsets[r + 1] - ghost_offsets[r];
    store.resize(n_owned, n_owned + n_ghost);
    for (std::size_t g = 0; g < n_ghost; ++g) {
      const std::uint32_t e = by_dest[ghost_offsets[r] + g];
      const std::uint32_t i = all.particle[e];
      const std::size_t j = n_owned + g;
      store.id[j] = i + 1;
      store.x[j] = positions[i];
      store.shift[j] = all.shift[e];
      store.home[j] = grid.box_of(positions[i]) + all.shift[e] * grid.dims();
    }
    cells.build(ws, store, box, grid.lo(c), grid.hi(c), R, R);
    list.build(ws, store, cells, PairRule{method, c, grid.cuts()}, R);
    long long pairs = 0;
    const auto& off = list.offsets();
    const auto& nbr = list.neighbors();
    const bool typed = !options.types.empty();
    const auto T = static_cast<std::size_t>(options.type_count);
    for (std::size_t i = 0; i < store.size(); ++i)
      for (std::uint32_t k = off[i]; k < off[i + 1]; ++k) {
        const std::uint32_t j = nbr[k];  // the listed images (any box length)
        const Vec3 d =
            image_displacement(store.x[i], store.x[j], store.shift[i], store.shift[j], box.length);
        const double pair_cutoff_sq =
            typed ? options.pair_cutoff_sq[options.types[store.id[i] - 1] * T +
                                           options.types[store.id[j] - 1]]
                  : cutoff_sq;
        pairs += d.x * d.x + d.y * d.y + d.z * d.z < pair_cutoff_sq;
      }
    ev.pairs[r] = pairs;
  }
  return ev;
}

double max_over_mean(const std::vector<long long>& v) {
  const ModelStats s = stats_of(v);
  return s.mean > 0 ? static_cast<double>(s.max) / s.mean : 1.0;
}

}  // namespace

ModelResult model_decomposition(std::span<const Vec3> positions, const Box& box, Method method,
                                double cutoff, double skin, int ranks,
                                const ModelOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const double R = cutoff + skin;
  if (options.balance == Balance::Time)
    throw std::invalid_argument("scanmd model: balance by time cannot be modelled");
  const std::vector<Int3> candidates =
      candidate_grids(ranks, options.requested_grid, box, method, R);
  ModelResult res;
  res.import_best_grid = candidates.front();
  RankGrid grid(candidates.front(), box);
  const bool pairs = options.balance == Balance::Pairs;
  std::vector<long long> cost;
  CostMarginals marginals;
  if (options.balance != Balance::None) {
    cost = pairs ? pair_costs(nullptr, box, R, positions)
                 : std::vector<long long>(positions.size(), 1);
    // As a real run: the grid the start balances best.
    marginals = cost_marginals(nullptr, box.length, positions, cost);
    if (candidates.size() > 1)
      grid = RankGrid(choose_balanced_grid(candidates, marginals, options.tolerance).dims, box);
  }
  Evaluation ev =
      evaluate(positions, box, method, cutoff, R, grid, options.count_pairs || pairs, options);
  // The max/mean of the balanced load: pairs counted, or particles owned.
  auto load_imbalance = [&](const Evaluation& e) {
    if (pairs) return max_over_mean(e.pairs);
    std::vector<long long> owned(grid.size(), 0);
    for (const std::uint32_t r : e.owner) ++owned[r];
    return max_over_mean(owned);
  };
  if (options.balance != Balance::None && grid.size() > 1) {
    // As a real run's setup balance step (Simulation::balance): beyond the tolerance, cut
    // planes from the model's cost, then (pairs) corrections by each rank's counted pairs;
    // the best cuts seen are kept.
    double best_imbalance = load_imbalance(ev);
    if (best_imbalance > options.tolerance) {
      GridCuts best = grid.cuts();
      Evaluation best_ev = ev;
      for (int pass = 0; pass <= (pairs ? kPairRefinements : 0); ++pass) {
        std::vector<long long> weights = cost;
        if (pass > 0) {
          std::vector<long long> modelled(grid.size(), 0), scale(grid.size());
          for (std::size_t i = 0; i < positions.size(); ++i) modelled[ev.owner[i]] += cost[i];
          for (int r = 0; r < grid.size(); ++r) scale[r] = measured_scale(modelled[r], ev.pairs[r]);
          for (std::size_t i = 0; i < positions.size(); ++i) weights[i] *= scale[ev.owner[i]];
        }
        const GridCuts cuts = balanced_cuts(nullptr, grid, positions, weights);
        if (cuts == grid.cuts()) break;
        grid.set_cuts(cuts);
        ev = evaluate(positions, box, method, cutoff, R, grid, options.count_pairs || pairs,
                      options);
        const double now = load_imbalance(ev);
        if (now < best_imbalance) {
          best = cuts;
          best_imbalance = now;
          best_ev = ev;
        }
        if (now <= options.tolerance) break;
      }
      grid.set_cuts(best);
      ev = std::move(best_ev);
    }
  }
  res.cuts = grid.cuts();

  const std::size_t n = positions.size();
  const int P = grid.size();
  res.method = method;
  res.balance = options.balance;
  res.ranks = P;
  res.grid = grid.dims();
  res.box_edge = grid.sub_length();
  res.r_over_b = R / std::cbrt(res.box_edge.x * res.box_edge.y * res.box_edge.z);
  for (int r = 0; r < P; ++r)  // each box its own (balanced boxes differ)
    res.analytic += analytic_import_volume(method, grid.box_length(grid.coord_of(r)), R) / P;
  res.analytic *= static_cast<double>(n) / box.volume();
  res.imports_per_rank = std::move(ev.imports);
  res.pairs_per_rank = std::move(ev.pairs);
  res.bytes_per_rank = std::move(ev.bytes);
  res.bytes = stats_of(res.bytes_per_rank);
  for (const long long p : res.pairs_per_rank) res.pairs_total += p;
  res.imports = stats_of(res.imports_per_rank);
  res.pairs = stats_of(res.pairs_per_rank);
  res.tower_mean = static_cast<double>(ev.tower) / P;
  res.plate_mean = static_cast<double>(ev.plate) / P;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

}  // namespace scanmd
