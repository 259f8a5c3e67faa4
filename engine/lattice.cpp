#include "engine/lattice.hpp"

#include <algorithm>
#include <cmath>

namespace scanmd {

FccLattice FccLattice::from_density(double density, std::array<int, 3> cells) {
  return {std::pow(4.0 / density, 1.0 / 3.0), cells};
}

Box FccLattice::box() const {
  return Box::make({cells[0] * constant, cells[1] * constant, cells[2] * constant});
}

namespace {
constexpr double kBasis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};

// The unit cells [i0, i1] × [j0, j1] × [k0, k1] whose sites may lie in [lo, hi) (one cell of
// slack each way against rounding).
struct CellRange {
  int i0, i1, j0, j1, k0, k1;
};
CellRange cells_overlapping(const FccLattice& l, Vec3 lo, Vec3 hi) {
  auto range = [&](double a, double b, int n, int& first, int& last) {
    first = std::max(0, static_cast<int>(std::floor(a / l.constant)) - 1);
    last = std::min(n - 1, static_cast<int>(std::floor(b / l.constant)) + 1);
  };
  CellRange r{};
  range(lo.x, hi.x, l.cells[0], r.i0, r.i1);
  range(lo.y, hi.y, l.cells[1], r.j0, r.j1);
  range(lo.z, hi.z, l.cells[2], r.k0, r.k1);
  return r;
}
}  // namespace

Vec3 FccLattice::site(int i, int j, int k, int m) const {
  return {(i + kBasis[m][0]) * constant, (j + kBasis[m][1]) * constant,
          (k + kBasis[m][2]) * constant};
}

std::uint64_t FccLattice::count_in(const std::function<bool(Vec3)>& region) const {
  std::uint64_t n = 0;
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j)
      for (int i = 0; i < cells[0]; ++i)
        for (int m = 0; m < 4; ++m) n += region(site(i, j, k, m));
  return n;
}

void FccLattice::for_each_site_in(const std::function<bool(Vec3)>& region, Vec3 lo, Vec3 hi,
                                  const std::function<bool(Vec3)>& keep,
                                  const std::function<void(std::uint64_t, Vec3)>& emit) const {
  const auto [i0, i1, j0, j1, k0, k1] = cells_overlapping(*this, lo, hi);
  // Region sites before each row (k, j): a running count over every row, in id order.
  std::uint64_t before = 0;
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j) {
      const bool visit = k >= k0 && k <= k1 && j >= j0 && j <= j1;
      for (int i = 0; i < cells[0]; ++i)
        for (int m = 0; m < 4; ++m) {
          const Vec3 x = site(i, j, k, m);
          if (!region(x)) continue;
          ++before;
          if (visit && i >= i0 && i <= i1 && keep(x)) emit(before, x);
        }
    }
}

void FccLattice::for_each_site(Vec3 lo, Vec3 hi, const std::function<bool(Vec3)>& keep,
                               const std::function<void(std::uint64_t, Vec3)>& emit) const {
  const auto [i0, i1, j0, j1, k0, k1] = cells_overlapping(*this, lo, hi);
  const std::uint64_t nx = cells[0], ny = cells[1];
  for (int k = k0; k <= k1; ++k)
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i)
        for (int m = 0; m < 4; ++m) {
          const Vec3 x = site(i, j, k, m);
          if (!keep(x)) continue;
          emit(1 + m + 4 * (i + nx * (j + ny * static_cast<std::uint64_t>(k))), x);
        }
}

}  // namespace scanmd
