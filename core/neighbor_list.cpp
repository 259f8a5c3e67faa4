#include "core/neighbor_list.hpp"

#include "kernels/scan.hpp"

namespace scanmd {

template <class Visit>
void NeighborList::for_each_listed(const ParticleStore& p, const CellList& cells,
                                   const PairRule& rule, double r_sq, std::size_t i,
                                   Visit&& visit) const {
  const std::size_t n_owned = p.n_owned;
  const bool i_owned = i < n_owned;
  if (!rule.can_head(i_owned, p.home[i])) return;
  const Vec3 qi = cells.position(i);
  const Int3 ci = cells.cell_of(i);
  const Int3 dims = cells.dims();
  const auto& offsets = cells.offsets();
  const auto& order = cells.order();
  const std::uint64_t id_i = p.id[i];
  const Int3 home_i = p.home[i];
  for (int dz = -1; dz <= 1; ++dz) {
    const int cz = ci.z + dz;
    if (cz < 0 || cz >= dims.z) continue;
    for (int dy = -1; dy <= 1; ++dy) {
      const int cy = ci.y + dy;
      if (cy < 0 || cy >= dims.y) continue;
      for (int dx = -1; dx <= 1; ++dx) {
        const int cx = ci.x + dx;
        if (cx < 0 || cx >= dims.x) continue;
        const int c = cells.flat({cx, cy, cz});
        for (std::uint32_t k = offsets[c]; k < offsets[c + 1]; ++k) {
          const std::uint32_t j = order[k];
          if (j == i) continue;
          const bool j_owned = j < n_owned;
          // Cheap half of the owned-owned rule before any arithmetic.
          if (i_owned && j_owned && p.id[j] < id_i) continue;
          const Vec3 qj = cells.position(j);
          const double ddx = qi.x - qj.x, ddy = qi.y - qj.y, ddz = qi.z - qj.z;
          if (ddx * ddx + ddy * ddy + ddz * ddz >= r_sq) continue;
          if (!rule.lists_pair(i_owned, j_owned, home_i, p.home[j], id_i, p.id[j])) continue;
          visit(j);
        }
      }
    }
  }
}

void NeighborList::build(kernels::Workspace& ws, const ParticleStore& p, const CellList& cells,
                         const PairRule& rule, double import_cutoff) {
  const std::size_t n = p.size();
  const double r_sq = import_cutoff * import_cutoff;
  counts_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t c = 0;
    for_each_listed(p, cells, rule, r_sq, i, [&](std::uint32_t) { ++c; });
    counts_[i] = c;
  }
  offsets_.resize(n + 1);
  const std::uint32_t total =
      kernels::exclusive_scan<std::uint32_t>(ws, counts_, std::span<std::uint32_t>(offsets_.data(), n));
  offsets_[n] = total;
  neighbors_.resize(total);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t at = offsets_[i];
    for_each_listed(p, cells, rule, r_sq, i, [&](std::uint32_t j) { neighbors_[at++] = j; });
  }
}

}  // namespace scanmd
