#include "decomposition/export_selection.hpp"

#include <cmath>

namespace scanmd {

ExportSelector::ExportSelector(const RankGrid& grid, const Box& box, Method method,
                               double import_cutoff)
    : grid_(grid), box_(box), method_(method), r_(import_cutoff) {}

ImportRegion ExportSelector::region(Int3 c) const {
  return {method_, c, grid_.lo(c), grid_.hi(c), r_ * r_ * (1.0 + 1e-12), r_ * (1.0 + 1e-12)};
}

void ExportSelector::select(std::span<const Vec3> x, Int3 owner, ExportList& out) const {
  const Int3 dims = grid_.dims();
  const Vec3 b = grid_.sub_length();
  const Vec3 L = box_.length;
  const double r = r_;
  // Images that can come within R of [0, L) along one axis.
  auto shifts_for = [r](double xa, double len, int* s) { return image_shifts(xa, len, r, s); };
  // Boxes along one axis whose extent may come within R of q (one box of slack each side;
  // classify() makes the exact test).
  auto box_range = [r](double q, double bb, int np, int& lo, int& hi) {
    lo = static_cast<int>(std::floor((q - r) / bb)) - 1;
    hi = static_cast<int>(std::floor((q + r) / bb)) + 1;
    lo = lo < 0 ? 0 : lo;
    hi = hi > np - 1 ? np - 1 : hi;
  };
  for (std::size_t i = 0; i < x.size(); ++i) {
    const Vec3 xi = x[i];
    int sx[3], sy[3], sz[3];
    const int nsx = shifts_for(xi.x, L.x, sx), nsy = shifts_for(xi.y, L.y, sy),
              nsz = shifts_for(xi.z, L.z, sz);
    for (int a = 0; a < nsx; ++a)
      for (int bb = 0; bb < nsy; ++bb)
        for (int cc = 0; cc < nsz; ++cc) {
          const Int3 S{sx[a], sy[bb], sz[cc]};
          const Vec3 q{xi.x + S.x * L.x, xi.y + S.y * L.y, xi.z + S.z * L.z};
          const Int3 home = owner + S * dims;
          int x0, x1, y0, y1, z0, z1;
          box_range(q.x, b.x, dims.x, x0, x1);
          box_range(q.y, b.y, dims.y, y0, y1);
          box_range(q.z, b.z, dims.z, z0, z1);
          for (int kz = z0; kz <= z1; ++kz)
            for (int ky = y0; ky <= y1; ++ky)
              for (int kx = x0; kx <= x1; ++kx) {
                const Int3 X{kx, ky, kz};
                if (X == owner && S == Int3{0, 0, 0}) continue;  // its own particle
                const ImportKind kind = region(X).classify(q, home);
                if (kind == ImportKind::None) continue;
                out.dest.push_back(static_cast<std::uint32_t>(grid_.rank_of(X)));
                out.particle.push_back(static_cast<std::uint32_t>(i));
                out.shift.push_back(S);
                out.kind.push_back(kind);
              }
        }
  }
}

}  // namespace scanmd
