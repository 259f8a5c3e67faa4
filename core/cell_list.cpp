#include "core/cell_list.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/counting_sort.hpp"

namespace scanmd {

CellGrid CellGrid::make(Vec3 lo, Vec3 hi, double pad, double search_radius) {
  const double min_cell_edge = 0.5 * search_radius;
  const Vec3 origin{lo.x - pad, lo.y - pad, lo.z - pad};
  const Vec3 extent{hi.x - lo.x + 2 * pad, hi.y - lo.y + 2 * pad, hi.z - lo.z + 2 * pad};
  auto cells_along = [&](double e) { return std::max(1, static_cast<int>(e / min_cell_edge)); };
  const Int3 dims{cells_along(extent.x), cells_along(extent.y), cells_along(extent.z)};
  return {origin, {dims.x / extent.x, dims.y / extent.y, dims.z / extent.z}, dims};
}

void CellList::build(kernels::Workspace& ws, const ParticleStore& p, const Box& box, Vec3 lo,
                     Vec3 hi, double pad, double search_radius) {
  reach_ = 2;
  const CellGrid grid = CellGrid::make(lo, hi, pad, search_radius);
  dims_ = grid.dims;

  const std::size_t n = p.size();
  resize_with_slack(q_, n);
  resize_with_slack(cell_, n);
  resize_with_slack(keys_, n);
  const Vec3 L = box.length;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 q = CellGrid::binning_position(p.x[i], p.shift[i], L);
    q_[i] = q;
    const Int3 c = grid.cell_of(q);
    cell_[i] = c;
    keys_[i] = static_cast<std::uint32_t>(grid.flat(c));
  }
  offsets_.resize(cell_count() + 1);
  resize_with_slack(order_, n);
  kernels::counting_sort(ws, keys_, static_cast<std::uint32_t>(cell_count()), offsets_, order_);
}

}  // namespace scanmd
