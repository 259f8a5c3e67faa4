#include "engine/neighbor_list.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <omp.h>

#include "engine/candidate_runs.hpp"
#include "engine/pair_candidate.hpp"
#include "kernels/scan.hpp"

namespace scanmd {

// The rows the AVX-512 list build scans together lie in at most this many neighbouring cells of
// one x-row of the grid: their runs are one cell longer than a single cell's, but each vector of
// candidates serves about twice the rows (builds alternating in one run, the 32 000-atom melt:
// 3-10 % faster than one cell; three cells gained 0-6 % more, within the spread).
constexpr std::uint32_t kCellSpan = 2;

template <bool GeneralRule>
void NeighborList::collect(const ParticleStore& p, const CellList& cells, const PairRule& rule,
                           float r_sq, float inner_sq, std::size_t row_begin, std::size_t row_end,
                           RowScratch& s) {
  const std::uint32_t n_owned = static_cast<std::uint32_t>(p.n_owned);
  const auto& order = cells.order();
  const auto& offsets = cells.offsets();
  const Int3 dims = cells.dims();
  const int reach = cells.reach();
  const CandidateScan scan = uses_avx512(kernel_)                       ? CandidateScan::Avx512
                             : rows_kernel(kernel_) == PairKernel::Avx2 ? CandidateScan::Avx2
                                                                        : CandidateScan::Scalar;
  // Candidates are written unconditionally and kept by advancing `at` (stream compaction
  // without branches: about three quarters of the candidates are rejected, at random).
  std::size_t at = 0;
  struct CellStencil {
    std::uint32_t key_lo = ~0u, key_hi = ~0u;  // the first and last cells' flat keys
    int lo_x = 0, x0 = 0, x1 = 0;              // the first cell's x; the runs' first and last
    std::uint32_t begin[25], end[25];
    std::uint32_t first_end[25], last_begin[25];  // where the runs' first cell ends, last begins
    bool ghosts[25];
    int runs = 0;
    std::size_t capacity = 0;
  } stencil;
  // Half and full shell by the AVX-512 scan, rows in cell order (no inner cutoff): the owned
  // rows of one or two neighbouring cells share their runs, and are scanned together
  // (keep_candidate_rows_avx512).
  // Neutral territory: the owned rows (one home box, one rule by classes), which keep owned
  // candidates only after them, as half shell's do.
  const bool nt_rows = rule.method == Method::NeutralTerritory;
  PairRule::RowClasses owned_classes{0, 0};
  if (nt_rows) owned_classes = rule.nt_row_classes(rule.coord);
  const bool cell_rows = !GeneralRule && scan == CandidateScan::Avx512 && inner_sq >= r_sq &&
                         (rule.method == Method::HalfShell || rule.method == Method::FullShell ||
                          (nt_rows && (owned_classes.after & PairRule::kOwnBox) != 0 &&
                           (owned_classes.any & PairRule::kOwnBox) == 0));
  // The runs of two cells reach one cell further along x than a row's own: a candidate there
  // lies more than `reach` cell edges from the row along x. Where that clearly exceeds the
  // float search sphere (with a margin for the floats' rounding, 2^-20 of the radius and of the
  // grid's extent) the distance test rejects it anyway; otherwise (cells within a hair of their
  // least edge) rows leave out the end cell beyond their reach (CellRows::skip).
  const double edge_x = 1.0 / cells.grid().inv.x;
  const bool trim_ends = reach * edge_x < std::sqrt(static_cast<double>(r_sq)) * (1.0 + 0x1p-20) +
                                              0x1p-20 * cells.grid().extent();
  for (std::size_t i = row_begin; i < row_end; ++i) {
    const bool i_owned = i < n_owned;
    const Int3 home_i = p.home[i];
    if (!rule.can_head(i_owned, home_i)) {
      counts_[i] = 0;
      continue;
    }
    const std::size_t before = at;
    const std::uint32_t k_i = rank_[i];
    const SearchPoint qi{qx_[k_i], qy_[k_i], qz_[k_i]};
    const PairSide side_i =
        GeneralRule ? PairSide{i_owned, home_i, k_i, p.id[i], p.x[i]} : PairSide{};
    // The rows scanned together (cell_rows): an owned i and the next owned rows whose cells lie
    // in i's x-row of the grid within kCellSpan cells of each other, up to kCellRows; otherwise
    // i alone.
    const std::uint32_t key_i = cells.key(i);
    std::uint32_t key_lo = key_i, key_hi = key_i;
    int cell_m = 1;
    const bool batch = cell_rows && i_owned && (!nt_rows || home_i == rule.coord);
    if (batch) {
      const std::uint32_t row_start = key_i - key_i % static_cast<std::uint32_t>(dims.x);
      for (; cell_m < kCellRows && i + cell_m < row_end && i + cell_m < n_owned; ++cell_m) {
        const std::uint32_t k = cells.key(i + cell_m);
        const std::uint32_t lo = std::min(key_lo, k), hi = std::max(key_hi, k);
        if (k - row_start >= static_cast<std::uint32_t>(dims.x) || hi - lo >= kCellSpan) break;
        key_lo = lo;
        key_hi = hi;
      }
    }
    // The rows' candidate runs (contiguous x-runs of cells), whether each holds a ghost, and
    // their total length: found once for the rows of one cell, or cells (rows follow the cell
    // order: the owned particles are sorted by cell).
    if (key_lo != stencil.key_lo || key_hi != stencil.key_hi) {
      stencil.key_lo = key_lo;
      stencil.key_hi = key_hi;
      const Int3 ci = cells.cell_of(i);
      const int lo_x = ci.x - static_cast<int>(key_i - key_lo);
      const int hi_x = ci.x + static_cast<int>(key_hi - key_i);
      stencil.runs = 0;
      stencil.capacity = 0;
      const int x0 = std::max(0, lo_x - reach), x1 = std::min(dims.x - 1, hi_x + reach);
      stencil.lo_x = lo_x;
      stencil.x0 = x0;
      stencil.x1 = x1;
      const bool two = key_hi != key_lo;  // (one cell: no row skips an end cell)
      for (int cz = std::max(0, ci.z - reach); cz <= std::min(dims.z - 1, ci.z + reach); ++cz)
        for (int cy = std::max(0, ci.y - reach); cy <= std::min(dims.y - 1, ci.y + reach); ++cy) {
          const int first = cells.flat({x0, cy, cz}), last = cells.flat({x1, cy, cz});
          const std::uint32_t b = offsets[first];
          const std::uint32_t e = offsets[last + 1];
          stencil.begin[stencil.runs] = b;
          stencil.end[stencil.runs] = e;
          stencil.first_end[stencil.runs] = two ? offsets[first + 1] : b;
          stencil.last_begin[stencil.runs] = two ? offsets[last] : e;
          stencil.ghosts[stencil.runs] = ghosts_before_[e] != ghosts_before_[b];
          stencil.capacity += e - b;
          ++stencil.runs;
        }
    }
    std::uint32_t run_begin[25];
    const std::uint32_t* const run_end = stencil.end;
    const bool* const run_ghosts = stencil.ghosts;
    const int runs = stencil.runs;
    std::copy(stencil.begin, stencil.begin + runs, run_begin);
    // (Each row may keep the whole stencil.)
    const std::size_t capacity = stencil.capacity * static_cast<std::size_t>(cell_m);
    // (kCandidateSlack entries of slack: the vector scans write whole vectors,
    // engine/candidate_runs.hpp.)
    if (at + capacity + kCandidateSlack > s.candidates.size()) {
      // Grown to the size the rows so far project for the whole range (plus a twentieth), not
      // doubled: this buffer becomes the list (thread 0's), and its capacity stays for the next
      // build, so later builds rarely grow it at all.
      const std::size_t need = at + capacity + kCandidateSlack;
      if (need > s.candidates.capacity()) {
        const double done = static_cast<double>(i - row_begin + 1);
        const double projected =
            1.05 * static_cast<double>(at) * static_cast<double>(row_end - row_begin) / done;
        s.candidates.reserve(
            std::max(need + need / 8, static_cast<std::size_t>(projected) + capacity));
      }
      // Touch only what the rows need, 64 Ki entries at a time: capacity beyond that stays
      // unmapped, so it costs no resident memory.
      s.candidates.resize(std::min(s.candidates.capacity(), need + 65536));
    }
    std::uint32_t* out = s.candidates.data();
    if (batch) {
      // Runs of owned particles only clipped after the rows' least position (the rule masks the
      // other rows' candidates at or before them), the empty ones dropped. Rows of two cells:
      // each leaves out the union's end cell that lies beyond its own reach.
      CellRows rows;
      rows.rows = cell_m;
      std::uint32_t k_least = k_i;
      for (int m = 0; m < cell_m; ++m) {
        const std::size_t row = i + static_cast<std::size_t>(m);
        const std::uint32_t k = rank_[row];
        rows.k[m] = k;
        rows.q[m] = SearchPoint{qx_[k], qy_[k], qz_[k]};
        k_least = std::min(k_least, k);
        const int x = stencil.lo_x + static_cast<int>(cells.key(row) - key_lo);
        if (trim_ends)
          rows.skip[m] = static_cast<std::uint8_t>(
              (std::max(0, x - reach) > stencil.x0 ? kSkipFirst : 0) |
              (std::min(dims.x - 1, x + reach) < stencil.x1 ? kSkipLast : 0));
      }
      std::uint32_t live_begin[25], live_end[25], live_first_end[25], live_last_begin[25];
      int live = 0;
      for (int r = 0; r < runs; ++r) {
        live_begin[live] = run_ghosts[r] || run_begin[r] > k_least
                               ? run_begin[r]
                               : std::min(run_end[r], k_least + 1);
        live_end[live] = run_end[r];
        live_first_end[live] = stencil.first_end[r];
        live_last_begin[live] = stencil.last_begin[r];
        live += live_begin[live] < run_end[r];
      }
      rows.first_end = live_first_end;
      rows.last_begin = live_last_begin;
      if (nt_rows) {
        rows.cls = nt_class_.data();
        rows.any = owned_classes.any;
        rows.after = owned_classes.after;
      }
      const CandidateRuns c{qx_.data(), qy_.data(), qz_.data(), order.data(),
                            live_begin, live_end,   live};
      // Row 0 straight into the list; the others after it in s.far, then moved into place.
      const std::size_t row_room = stencil.capacity + kCandidateSlack;
      if (s.far.size() < row_room * kCellRows) s.far.resize(row_room * kCellRows);
      rows.out[0] = out + at;
      for (int m = 1; m < cell_m; ++m) rows.out[m] = s.far.data() + row_room * std::size_t(m);
      keep_candidate_rows_avx512(c, r_sq, n_owned, rows);
      for (int m = 0; m < cell_m; ++m) {
        if (m > 0) std::copy(rows.out[m], rows.out[m] + rows.kept[m], out + at);
        counts_[i + static_cast<std::size_t>(m)] = static_cast<std::uint32_t>(rows.kept[m]);
        at += rows.kept[m];
      }
      i += static_cast<std::size_t>(cell_m - 1);
      continue;
    }
    if constexpr (!GeneralRule) {
      // Neutral territory: the rule by classes (PairRule::nt_row_classes), which keeps exactly
      // the pairs lists_pair keeps; half and full shell: ghosts, and owned particles after i.
      const bool classes = rule.method == Method::NeutralTerritory;
      RowRuleClasses by_class{nt_class_.data(), 0, 0};
      if (classes) {
        const PairRule::RowClasses rc = rule.nt_row_classes(home_i);
        by_class.any = rc.any;
        by_class.after = rc.after;
      }
      // A run of owned particles only keeps nothing at or before i in the cell order: it
      // starts after i (about half the stencil's candidates, inside the box, skipped). (Rows of
      // neutral territory's tower: all of such a run below our layer, none of it above.)
      const bool owned_all = classes && (by_class.any & PairRule::kOwnBox) != 0;
      const bool owned_none = classes && !owned_all && (by_class.after & PairRule::kOwnBox) == 0;
      for (int r = 0; r < runs; ++r)
        if (!owned_all && !run_ghosts[r]) {
          if (owned_none)
            run_begin[r] = run_end[r];
          else if (run_begin[r] <= k_i)
            run_begin[r] = std::min(run_end[r], k_i + 1);
        }
      // The runs left empty (those before i: about half the stencil's) dropped, in order: each
      // would still cost the scans a vector of no lanes. (Compaction without branches.)
      std::uint32_t live_begin[25], live_end[25];
      int live = 0;
      for (int r = 0; r < runs; ++r) {
        live_begin[live] = run_begin[r];
        live_end[live] = run_end[r];
        live += run_begin[r] < run_end[r];
      }
      const CandidateRuns c{qx_.data(), qy_.data(), qz_.data(), order.data(),
                            live_begin, live_end,   live};
      // Near and far in one pass: the row is ordered as it is collected.
      if (s.far.size() < capacity + kCandidateSlack)
        s.far.resize(capacity + capacity / 2 + kCandidateSlack);
      const KeptCandidates kept =
          classes
              ? keep_candidates_classes(scan, c, by_class, qi, r_sq, inner_sq, k_i, out + at,
                                        s.far.data())
              : keep_candidates(scan, c, qi, r_sq, inner_sq, k_i, n_owned, out + at, s.far.data());
      std::copy(s.far.begin(), s.far.begin() + static_cast<std::ptrdiff_t>(kept.far),
                out + at + kept.near);
      at += kept.near + kept.far;
    } else {
      // Eighth shell lists a pair of two owned particles (one home: this box) under the first
      // in the cell order, as half shell does: runs without ghosts take the half-shell scan.
      // (Not midpoint: a pair near a cut plane can belong to the next box.)
      const bool owned_runs_fast = i_owned && rule.method == Method::EighthShell;
      for (int r = 0; r < runs; ++r) {
        if (owned_runs_fast && !run_ghosts[r]) {
          const std::uint32_t b[1] = {std::max(run_begin[r], std::min(run_end[r], k_i + 1))};
          const std::uint32_t e[1] = {run_end[r]};
          if (b[0] == e[0]) continue;  // (a run before i: nothing to scan)
          const CandidateRuns c{qx_.data(), qy_.data(), qz_.data(), order.data(), b, e, 1};
          // All as near (inner = R): the row is ordered below, with the general candidates.
          // (s.far only takes the scalar version's unconditional writes.)
          if (s.far.size() < capacity + kCandidateSlack)
            s.far.resize(capacity + capacity / 2 + kCandidateSlack);
          std::uint32_t* none = s.far.data();
          at += keep_candidates(scan, c, qi, r_sq, r_sq, k_i, n_owned, out + at, none).near;
          continue;
        }
        // The general rule (lists_candidate<true>: within the search sphere, not i itself, and
        // the method's rule) in two passes over the run: the distance by the candidate scan
        // (n_owned = 0: every candidate within it is kept, in candidate order), then the rule on
        // those only.
        const std::uint32_t b[1] = {run_begin[r]};
        const std::uint32_t e[1] = {run_end[r]};
        const CandidateRuns c{qx_.data(), qy_.data(), qz_.data(), order.data(), b, e, 1};
        if (s.far.size() < capacity + kCandidateSlack)
          s.far.resize(capacity + capacity / 2 + kCandidateSlack);
        const std::size_t within =
            keep_candidates(scan, c, qi, r_sq, r_sq, k_i, 0, out + at, s.far.data()).near;
        std::size_t kept = at;
        for (std::size_t w = at; w < at + within; ++w) {
          const std::uint32_t j = out[w];
          const std::uint32_t k = rank_[j];
          const bool keep =
              k != k_i &&
              rule.lists_pair(side_i, PairSide{j < n_owned, home_sorted_[k], k, p.id[j], p.x[j]});
          out[kept] = j;  // kept or not, advancing only when kept: compaction without branches
          kept += keep;
        }
        at = kept;
      }
    }
    // Row order (general rule): inside the interaction cutoff first (stable, branch-free), the
    // rest after.
    if (GeneralRule && inner_sq < r_sq) {
      const std::size_t row = at - before;
      if (s.far.size() < row) s.far.resize(2 * row);
      std::size_t near = before, n_far = 0;
      for (std::size_t k = before; k < at; ++k) {
        const std::uint32_t j = out[k];
        const std::uint32_t k_j = rank_[j];
        const bool inside =
            search_distance_sq(qi, SearchPoint{qx_[k_j], qy_[k_j], qz_[k_j]}) < inner_sq;
        out[near] = j;
        near += inside;
        s.far[n_far] = j;
        n_far += !inside;
      }
      std::copy(s.far.begin(), s.far.begin() + static_cast<std::ptrdiff_t>(n_far), out + near);
    }
    counts_[i] = static_cast<std::uint32_t>(at - before);
  }
  s.kept = at;
}

void NeighborList::build(kernels::Workspace& ws, const ParticleStore& p, const CellList& cells,
                         const PairRule& rule, double import_cutoff, double inner_cutoff) {
  const std::size_t n = p.size();
  if (cells.reach() > 2)
    throw std::logic_error("NeighborList: cell reach above 2 is not supported");
  const auto& order = cells.order();
  resize_with_slack(rank_, n);
  // (16 more: room for whole vectors past the end.)
  qx_ = ws.get<float>(kPositionSlot, n + 16).first(n);
  qy_ = ws.get<float>(kPositionSlot + 1, n + 16).first(n);
  qz_ = ws.get<float>(kPositionSlot + 2, n + 16).first(n);
  resize_with_slack(counts_, n);
  const int threads = std::max(1, threads_);
  scratch_.resize(static_cast<std::size_t>(threads));
  // Thread 0 collects straight into the list's own buffer (no second list-sized array).
  scratch_[0].candidates.swap(neighbors_);
  const double r_sq = import_cutoff * import_cutoff;
  const SearchSphere search = scanmd::search_sphere(cells.grid(), import_cutoff);
  // First build: reserve what a uniform fluid would need, (2/3)·π·R³·ρ pairs per owned
  // particle and 5% more, so the buffer is not grown (each growth holds the old and the new
  // buffer at once: the peak memory of the run). Later builds keep the last capacity.
  if (scratch_[0].candidates.capacity() == 0 && cells.box_volume() > 0.0) {
    const double rho = static_cast<double>(p.n_owned) / cells.box_volume();
    const double per_row = 1.05 * (2.0 / 3.0) * 3.141592653589793 * r_sq * import_cutoff * rho;
    const double owned = static_cast<double>(p.n_owned);
    const std::size_t margin = 4096;  // one row's unconditional writes
    // Thread 0's buffer becomes the whole list; the others hold their share of the rows.
    for (std::size_t t = 0; t < scratch_.size(); ++t)
      if (scratch_[t].candidates.capacity() == 0)
        scratch_[t].candidates.reserve(
            static_cast<std::size_t>(per_row * (t == 0 ? owned : owned / threads)) + margin);
  }
  // Rows split among threads by owned particles (ghost rows, after them, go to the last).
  std::vector<std::size_t> at(static_cast<std::size_t>(threads) + 1, n);
  for (int t = 0; t < threads; ++t)
    at[static_cast<std::size_t>(t)] = p.n_owned * static_cast<std::size_t>(t) / threads;
  // Without an inner cutoff every neighbour counts as near: rows keep the cell order. (The
  // split only orders a row: r_c² rounded to float is near enough.)
  const float inner_sq =
      inner_cutoff > 0.0 ? static_cast<float>(inner_cutoff * inner_cutoff) : search.r_sq;
  // Half and full shell have a two-line rule, inlined, neutral territory a rule by classes of
  // the candidates; the other methods ask the PairRule.
  const bool nt = rule.method == Method::NeutralTerritory;
  const bool general =
      !(rule.method == Method::HalfShell || rule.method == Method::FullShell || nt);
  if (general)
    resize_with_slack(home_sorted_, n);
  else
    std::vector<Int3>().swap(home_sorted_);  // only the general rule reads it
  if (nt) resize_with_slack(nt_class_, n);
  const Vec3 L = cells.box_length();
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t i = order[k];
      rank_[i] = static_cast<std::uint32_t>(k);
      const SearchPoint q = search.point(CellGrid::binning_position(p.x[i], p.shift[i], L));
      qx_[k] = q.x;
      qy_[k] = q.y;
      qz_[k] = q.z;
      if (general) home_sorted_[k] = p.home[i];
      if (nt) nt_class_[k] = rule.nt_class(p.home[i]);
    }
#pragma omp single
    {
      resize_with_slack(ghosts_before_, n + 1);
      std::uint32_t ghosts = 0;
      for (std::size_t k = 0; k < n; ++k) {
        ghosts_before_[k] = ghosts;
        ghosts += order[k] >= p.n_owned;
      }
      ghosts_before_[n] = ghosts;
    }
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    if (general)
      collect<true>(p, cells, rule, search.r_sq, inner_sq, at[t], at[t + 1], scratch_[t]);
    else
      collect<false>(p, cells, rule, search.r_sq, inner_sq, at[t], at[t + 1], scratch_[t]);
  }

  // Rows were collected in row order, so the scanned counts are their offsets; each thread's
  // rows go to their offsets.
  resize_with_slack(offsets_, n + 1);
  const std::uint32_t total = kernels::exclusive_scan<std::uint32_t>(
      ws, counts_, std::span<std::uint32_t>(offsets_.data(), n));
  offsets_[n] = total;
  scratch_[0].candidates.resize(total);  // thread 0's rows are in place, from offset 0
  neighbors_.swap(scratch_[0].candidates);
  // Each thread's rows go to their offsets (thread 0's are in place); terms per particle (as i:
  // counts_; as j: counted by each thread over the entries it collected, still in its cache,
  // thread 0 into counts_, the others into their own arrays, kept between builds), and their
  // maximum.
  std::uint32_t most = 0;
#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const RowScratch& s = scratch_[t];
    const std::uint32_t* mine = neighbors_.data();
    std::uint32_t* c = counts_.data();
    std::size_t kept = offsets_[at[1]];
    if (t > 0) {
      kept = s.kept;
      std::copy(s.candidates.begin(), s.candidates.begin() + static_cast<std::ptrdiff_t>(kept),
                neighbors_.begin() + offsets_[at[t]]);
      mine = s.candidates.data();
      resize_with_slack(scratch_[t].as_j, n);
      std::fill(scratch_[t].as_j.begin(), scratch_[t].as_j.begin() + static_cast<std::ptrdiff_t>(n),
                0u);
      c = scratch_[t].as_j.data();
    }
    for (std::size_t k = 0; k < kept; ++k) ++c[mine[k]];
#pragma omp barrier
#pragma omp for schedule(static) reduction(max : most)
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t terms = counts_[i];
      for (std::size_t u = 1; u < scratch_.size(); ++u) terms += scratch_[u].as_j[i];
      most = std::max(most, terms);
    }
  }
  max_terms_ = most;
  cell_order_.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n));
  ++generation_;

  // The build's arrays (about 40 B per particle) stay between builds, at their size: the next
  // build writes them again without a page fault (freeing them returned their pages, and
  // getting them back cost a few percent of a bonded run that rebuilds every fourth step).
}

void NeighborList::release_build_arrays() {
  std::vector<std::uint32_t>().swap(rank_);
  qx_ = qy_ = qz_ = {};
  std::vector<Int3>().swap(home_sorted_);
  std::vector<std::uint32_t>().swap(nt_class_);
  std::vector<std::uint32_t>().swap(ghosts_before_);
  std::vector<std::uint32_t>().swap(counts_);
  for (RowScratch& s : scratch_) std::vector<std::uint32_t>().swap(s.as_j);
}

}  // namespace scanmd
