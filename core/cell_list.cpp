#include "core/cell_list.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/counting_sort.hpp"

namespace scanmd {

void CellList::build(kernels::Workspace& ws, const ParticleStore& p, const Box& box, Vec3 lo,
                     Vec3 hi, double pad, double search_radius) {
  const double min_cell_edge = 0.5 * search_radius;
  reach_ = 2;
  const Vec3 origin{lo.x - pad, lo.y - pad, lo.z - pad};
  const Vec3 extent{hi.x - lo.x + 2 * pad, hi.y - lo.y + 2 * pad, hi.z - lo.z + 2 * pad};
  auto cells_along = [&](double e) { return std::max(1, static_cast<int>(e / min_cell_edge)); };
  dims_ = {cells_along(extent.x), cells_along(extent.y), cells_along(extent.z)};
  const Vec3 inv{dims_.x / extent.x, dims_.y / extent.y, dims_.z / extent.z};

  const std::size_t n = p.size();
  q_.resize(n);
  cell_.resize(n);
  keys_.resize(n);
  const Vec3 L = box.length;
  for (std::size_t i = 0; i < n; ++i) {
    const Int3 s = p.shift[i];
    const Vec3 q{p.x[i].x + s.x * L.x, p.x[i].y + s.y * L.y, p.x[i].z + s.z * L.z};
    q_[i] = q;
    const Int3 c{clamp_cell(static_cast<int>(std::floor((q.x - origin.x) * inv.x)), dims_.x),
                 clamp_cell(static_cast<int>(std::floor((q.y - origin.y) * inv.y)), dims_.y),
                 clamp_cell(static_cast<int>(std::floor((q.z - origin.z) * inv.z)), dims_.z)};
    cell_[i] = c;
    keys_[i] = static_cast<std::uint32_t>(flat(c));
  }
  offsets_.resize(cell_count() + 1);
  order_.resize(n);
  kernels::counting_sort(ws, keys_, static_cast<std::uint32_t>(cell_count()), offsets_, order_);
}

}  // namespace scanmd
