#include "core/neighbor_list.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/pair_candidate.hpp"
#include "kernels/scan.hpp"

namespace scanmd {

template <bool GeneralRule>
void NeighborList::collect(const ParticleStore& p, const CellList& cells, const PairRule& rule,
                           double r_sq, double inner_sq) {
  const std::size_t n = p.size();
  const std::uint32_t n_owned = static_cast<std::uint32_t>(p.n_owned);
  const auto& order = cells.order();
  const auto& offsets = cells.offsets();
  const Int3 dims = cells.dims();
  const int reach = cells.reach();
  if (reach > 2) throw std::logic_error("NeighborList: cell reach above 2 is not supported");
  // Candidates are written unconditionally and kept by advancing `at` (stream compaction
  // without branches: about three quarters of the candidates are rejected, at random).
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool i_owned = i < n_owned;
    const Int3 home_i = p.home[i];
    if (!rule.can_head(i_owned, home_i)) {
      counts_[i] = 0;
      continue;
    }
    const std::size_t before = at;
    const std::uint32_t k_i = rank_[i];
    const Vec3 qi = q_sorted_[k_i];
    const PairSide side_i =
        GeneralRule ? PairSide{i_owned, home_i, k_i, p.id[i], p.x[i]} : PairSide{};
    const Int3 ci = cells.cell_of(i);
    // The row's candidate runs (contiguous x-runs of cells) and their total length.
    std::uint32_t run_begin[25], run_end[25];
    int runs = 0;
    std::size_t capacity = 0;
    const int x0 = std::max(0, ci.x - reach), x1 = std::min(dims.x - 1, ci.x + reach);
    for (int cz = std::max(0, ci.z - reach); cz <= std::min(dims.z - 1, ci.z + reach); ++cz)
      for (int cy = std::max(0, ci.y - reach); cy <= std::min(dims.y - 1, ci.y + reach); ++cy) {
        run_begin[runs] = offsets[cells.flat({x0, cy, cz})];
        run_end[runs] = offsets[cells.flat({x1, cy, cz}) + 1];
        capacity += run_end[runs] - run_begin[runs];
        ++runs;
      }
    if (at + capacity > candidates_.size())
      candidates_.resize(std::max<std::size_t>(2 * candidates_.size(), at + capacity));
    std::uint32_t* out = candidates_.data();
    for (int r = 0; r < runs; ++r)
      for (std::uint32_t k = run_begin[r]; k < run_end[r]; ++k) {
        const std::uint32_t j = order[k];
        const bool keep = lists_candidate<GeneralRule>(
            rule, r_sq, qi, q_sorted_[k], j, static_cast<std::uint32_t>(k), k_i, n_owned, side_i,
            [&] { return PairSide{j < n_owned, home_sorted_[k], k, p.id[j], p.x[j]}; });
        out[at] = j;  // kept or not, advancing only when kept: compaction without branches
        at += keep;
      }
    // Row order: inside the interaction cutoff first (stable, branch-free), the rest after.
    if (inner_sq < r_sq) {
      const std::size_t row = at - before;
      if (far_.size() < row) far_.resize(2 * row);
      std::size_t near = before, n_far = 0;
      for (std::size_t k = before; k < at; ++k) {
        const std::uint32_t j = out[k];
        const Vec3 qj = cells.position(j);
        const double dx = qi.x - qj.x, dy = qi.y - qj.y, dz = qi.z - qj.z;
        const bool inside = dx * dx + dy * dy + dz * dz < inner_sq;
        out[near] = j;
        near += inside;
        far_[n_far] = j;
        n_far += !inside;
      }
      std::copy(far_.begin(), far_.begin() + static_cast<std::ptrdiff_t>(n_far), out + near);
    }
    counts_[i] = static_cast<std::uint32_t>(at - before);
  }
  candidates_.resize(at);
}

void NeighborList::build(kernels::Workspace& ws, const ParticleStore& p, const CellList& cells,
                         const PairRule& rule, double import_cutoff, double inner_cutoff) {
  const std::size_t n = p.size();
  const auto& order = cells.order();
  rank_.resize(n);
  q_sorted_.resize(n);
  home_sorted_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t i = order[k];
    rank_[i] = static_cast<std::uint32_t>(k);
    q_sorted_[k] = cells.position(i);
    home_sorted_[k] = p.home[i];
  }
  counts_.resize(n);
  const double r_sq = import_cutoff * import_cutoff;
  // Without an inner cutoff every neighbour counts as near: rows keep the cell order.
  const double inner_sq = inner_cutoff > 0.0 ? inner_cutoff * inner_cutoff : r_sq;
  // Half and full shell have a two-line rule, inlined; the other methods ask the PairRule.
  if (rule.method == Method::HalfShell || rule.method == Method::FullShell)
    collect<false>(p, cells, rule, r_sq, inner_sq);
  else
    collect<true>(p, cells, rule, r_sq, inner_sq);

  // Rows were collected in row order, so the scanned counts are their offsets.
  offsets_.resize(n + 1);
  const std::uint32_t total = kernels::exclusive_scan<std::uint32_t>(
      ws, counts_, std::span<std::uint32_t>(offsets_.data(), n));
  offsets_[n] = total;
  neighbors_.resize(total);
  std::copy(candidates_.begin(), candidates_.end(), neighbors_.begin());
  for (std::uint32_t j : neighbors_) ++counts_[j];  // counts_ now: terms per particle
  max_terms_ = n ? *std::max_element(counts_.begin(), counts_.end()) : 0;
}

}  // namespace scanmd
