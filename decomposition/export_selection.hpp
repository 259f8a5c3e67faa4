// Export selection: which boxes need an image of each owned particle — the part of a halo
// plan that depends on the decomposition method, as a pure function of positions.
//
// For every owned particle of box C (wrapped position x), every periodic image
// q = x + S·L (S ∈ {-1,0,1}³: with L >= 2R no farther image can reach a box) and every box X
// whose extent comes within R of q, ImportRegion::classify decides whether X imports that
// image. The result is a list of (destination box, particle, shift, kind) entries, in
// particle order. The real halo exchange (MPI) and the virtual decomposition (`scanmd
// model`, P ranks in one process) both run this same code.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/box.hpp"
#include "decomposition/import_rule.hpp"
#include "decomposition/rank_grid.hpp"

namespace scanmd {

// The periodic image shifts S along one axis that can bring a wrapped coordinate xa ∈ [0, len)
// within r of [0, len): −1 when xa is within r of the upper edge, 0, +1 when within r of the
// lower edge (a 1e-9·len margin each way). Writes them to s in that order; returns how many.
// Shared by the host selection below and the CUDA backend's single-rank ghost creation.
SCANMD_HD inline int image_shifts(double xa, double len, double r, int* s) {
  int m = 0;
  if (xa > len - r - 1e-9 * len) s[m++] = -1;
  s[m++] = 0;
  if (xa < r + 1e-9 * len) s[m++] = 1;
  return m;
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
  ExportSelector(const RankGrid& grid, const Box& box, Method method, double import_cutoff);

  // Appends the entries of the owned particles `x` of box `owner`.
  void select(std::span<const Vec3> x, Int3 owner, ExportList& out) const;

  double import_cutoff() const { return r_; }
  // Import region of box c (R padded by a relative 1e-12 against rounding at the edge).
  ImportRegion region(Int3 c) const;

 private:
  RankGrid grid_;
  Box box_;
  Method method_;
  double r_;
};

}  // namespace scanmd
