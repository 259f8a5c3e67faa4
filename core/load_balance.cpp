// Rectilinear load balancing (see load_balance.hpp).
#include "core/load_balance.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace scanmd {

namespace {
double coordinate(Vec3 x, int axis) { return axis == 0 ? x.x : (axis == 1 ? x.y : x.z); }
}  // namespace

GridCuts balanced_cuts(const Communicator* comm, const RankGrid& grid, std::span<const Vec3> x,
                       std::span<const long long> cost) {
  GridCuts cuts = grid.cuts();
  for (int axis = 0; axis < 3; ++axis) {
    const AxisCuts& old = cuts.axis(axis);
    const int n = old.n;
    if (n == 1 || n > kMaxBalancedBoxes) continue;  // more boxes than AxisCuts holds: kept equal
    const double len = old.len;
    std::vector<long long> hist(kBalanceBins, 0);
    const double per_length = kBalanceBins / len;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const int b = static_cast<int>(coordinate(x[i], axis) * per_length);
      hist[std::clamp(b, 0, kBalanceBins - 1)] += cost[i];
    }
    if (comm) comm->sum(std::span<long long>(hist));
    long long total = 0;
    for (const long long h : hist) total += h;
    if (total <= 0) continue;
    std::vector<double> interior;
    long long below = 0;  // the cost in bins [0, edge)
    int edge = 0, previous = 0;
    for (int k = 1; k < n; ++k) {
      while (edge < kBalanceBins && below * n < total * k) below += hist[edge++];
      // At least one bin for this box and for each box after it.
      const int e = std::clamp(edge, previous + 1, kBalanceBins - (n - k));
      while (edge < e) below += hist[edge++];
      interior.push_back(len * e / kBalanceBins);
      previous = e;
    }
    cuts.axis(axis) = AxisCuts::moved(interior, len);
  }
  return cuts;
}

std::vector<long long> pair_costs(const Communicator* comm, const Box& box, double import_cutoff,
                                  std::span<const Vec3> x) {
  auto cells_along = [&](double len) {
    return std::clamp(static_cast<int>(2.0 * len / import_cutoff), 1, 64);
  };
  const Int3 m{cells_along(box.length.x), cells_along(box.length.y), cells_along(box.length.z)};
  const Vec3 per{m.x / box.length.x, m.y / box.length.y, m.z / box.length.z};
  auto cell_of = [&](Vec3 x) {
    const int cx = std::clamp(static_cast<int>(x.x * per.x), 0, m.x - 1);
    const int cy = std::clamp(static_cast<int>(x.y * per.y), 0, m.y - 1);
    const int cz = std::clamp(static_cast<int>(x.z * per.z), 0, m.z - 1);
    return static_cast<std::size_t>(cx) + static_cast<std::size_t>(m.x) * (cy + static_cast<std::size_t>(m.y) * cz);
  };
  std::vector<long long> density(static_cast<std::size_t>(m.x) * m.y * m.z, 0);
  for (const Vec3& q : x) ++density[cell_of(q)];
  if (comm) comm->sum(std::span<long long>(density));
  std::vector<long long> cost(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) cost[i] = density[cell_of(x[i])];
  return cost;
}

double imbalance(const Communicator& comm, long long load) {
  const long long max = comm.max(load), sum = comm.sum(load);
  if (sum <= 0) return 1.0;
  return static_cast<double>(max) * comm.size() / static_cast<double>(sum);
}

std::string describe_cuts(const GridCuts& cuts) {
  std::string out;
  for (int axis = 0; axis < 3; ++axis) {
    const AxisCuts& a = cuts.axis(axis);
    if (a.n == 1) continue;
    out += fmt::format("{}{}:", out.empty() ? "" : "; ", "xyz"[axis]);
    for (int c = 0; c <= a.n; ++c) out += fmt::format(" {:.6g}", c == a.n ? a.len : a.lo(c));
  }
  return out.empty() ? "one box" : out;
}

}  // namespace scanmd
