// Export selection: which boxes need an image of each owned particle — the part of a halo
// plan that depends on the decomposition method, as a pure function of positions.
//
// For every owned particle of box C (wrapped position x), every periodic image
// q = x + S·L that comes within R of the box [0, L) (S ∈ {-1,0,1}³ when L >= 2R; a box shorter
// than that along an axis has more images there, several of them in one box) and every box X
// whose extent comes within R of q, ImportRegion::classify decides whether X imports that
// image (visit_exports, the one copy of the rule). The result is a list of (destination box,
// particle, shift, kind) entries, in particle order. The real halo exchange (MPI), the virtual
// decomposition (`scanmd model`, P ranks in one process) and the CUDA backend's export
// selection on the device (engine/cuda/ghosts.cu) all run this same code.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <cmath>

#include "base/box.hpp"
#include "decomposition/grid_cuts.hpp"
#include "decomposition/import_rule.hpp"
#include "decomposition/rank_grid.hpp"

namespace scanmd {

// The periodic image shifts S along one axis that bring a wrapped coordinate xa ∈ [0, len)
// within r of [0, len), as the range [lo, hi]: S = −k (k >= 1) while the image lies less than r
// below 0 (xa > k·len − r), 0, S = +k while it lies less than r above len (xa < r − (k−1)·len);
// a 1e-9·len margin each way. With len >= 2r that is −1 when xa is within r of the upper edge
// and +1 when within r of the lower edge; shorter boxes have more. Shared by the host selection
// below and the CUDA backend's export selection on the device.
SCANMD_HD inline void image_range(double xa, double len, double r, int& lo, int& hi) {
  lo = 0;
  while (xa > (1 - lo) * len - r - 1e-9 * len) --lo;
  hi = 0;
  while (xa < r + 1e-9 * len - hi * len) ++hi;
}

// What export selection needs, as plain values (host loops and CUDA kernels alike).
struct ExportGeometry {
  Method method;
  GridCuts cuts;  // the rank grid's boxes: box X spans [cuts.lo(X), cuts.hi(X))
  Vec3 length;    // L
  double r;       // R = cutoff + skin
  // Neutral territory with angles: R_b, the bonded shell's width (import_rule.hpp; at most R,
  // 0: none).
  double bonded_r = 0.0;

  // Import region of box c (R padded by a relative 1e-12 against rounding at the edge; the
  // midpoint rule's ties widen it by midpoint_tie per axis).
  SCANMD_HD ImportRegion region(Int3 c) const {
    const Vec3 tie =
        method == Method::Midpoint
            ? Vec3{midpoint_tie(cuts.x.len), midpoint_tie(cuts.y.len), midpoint_tie(cuts.z.len)}
            : Vec3{0.0, 0.0, 0.0};
    return {method,
            c,
            cuts.lo(c),
            cuts.hi(c),
            r * r * (1.0 + 1e-12),
            r * (1.0 + 1e-12),
            tie,
            method == Method::NeutralTerritory ? bonded_r * bonded_r * (1.0 + 1e-12) : 0.0};
  }
};

// The export rule, once: for the owned particle at wrapped x in box `owner`, calls
// emit(c, S, home, X, kind) for the c-th (image S, importing box X) pair — every periodic image
// q = x + S·L (S from image_range per axis), home
// = owner + S·dims, and every box X whose extent comes within R of q (one box of slack each side,
// classify() makes the exact test) that imports it, except the particle itself in its own box.
// Order: Sx, Sy, Sz outer (ascending), then Xz, Xy, Xx. Returns the count.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Emit>
SCANMD_HD inline std::uint32_t visit_exports(const ExportGeometry& g, Vec3 x, Int3 owner,
                                             Emit&& emit) {
  const Vec3 L = g.length;
  const double r = g.r;
  const Int3 dims = g.cuts.dims();
  int sx0, sx1, sy0, sy1, sz0, sz1;
  image_range(x.x, L.x, r, sx0, sx1);
  image_range(x.y, L.y, r, sy0, sy1);
  image_range(x.z, L.z, r, sz0, sz1);
  std::uint32_t count = 0;
  for (int a = sx0; a <= sx1; ++a)
    for (int bb = sy0; bb <= sy1; ++bb)
      for (int cc = sz0; cc <= sz1; ++cc) {
        const Int3 S{a, bb, cc};
        const Vec3 q{x.x + S.x * L.x, x.y + S.y * L.y, x.z + S.z * L.z};
        const Int3 home = owner + S * dims;
        int x0, x1, y0, y1, z0, z1;  // boxes whose extent may come within R of q
        g.cuts.x.boxes_near(q.x, r, x0, x1);
        g.cuts.y.boxes_near(q.y, r, y0, y1);
        g.cuts.z.boxes_near(q.z, r, z0, z1);
        for (int kz = z0; kz <= z1; ++kz)
          for (int ky = y0; ky <= y1; ++ky)
            for (int kx = x0; kx <= x1; ++kx) {
              const Int3 X{kx, ky, kz};
              if (X == owner && S == Int3{0, 0, 0}) continue;  // its own particle
              const ImportKind kind = g.region(X).classify(q, home);
              if (kind == ImportKind::None) continue;
              emit(count, S, home, X, kind);
              ++count;
            }
      }
  return count;
}

struct ExportList {
  std::vector<std::uint32_t> dest;      // destination rank (RankGrid::rank_of of the box)
  std::vector<std::uint32_t> particle;  // index into the owned particles given
  std::vector<Int3> shift;              // S
  std::vector<ImportKind> kind;
  void clear() {
    dest.clear();
    particle.clear();
    shift.clear();
    kind.clear();
  }
  std::size_t size() const { return dest.size(); }
};

class ExportSelector {
 public:
  // `bonded_shell`: R_b of neutral territory with angles (ExportGeometry::bonded_r; 0: none).
  ExportSelector(const RankGrid& grid, const Box& box, Method method, double import_cutoff,
                 double bonded_shell = 0.0);

  // Appends the entries of the owned particles `x` of box `owner`. From kThreadedFrom
  // particles on the OpenMP threads share it (the same list as one thread's). One call at a
  // time per selector: the threads' lists are its scratch.
  void select(std::span<const Vec3> x, Int3 owner, ExportList& out) const;
  static constexpr std::size_t kThreadedFrom = 4096;

  double import_cutoff() const { return geometry_.r; }
  const ExportGeometry& geometry() const { return geometry_; }
  ImportRegion region(Int3 c) const { return geometry_.region(c); }

 private:
  RankGrid grid_;
  ExportGeometry geometry_;
  mutable std::vector<ExportList> parts_;  // select's per-chunk lists, kept between calls
};

}  // namespace scanmd
