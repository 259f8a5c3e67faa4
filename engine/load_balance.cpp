// Rectilinear load balancing (see load_balance.hpp).
#include "engine/load_balance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scanmd {

namespace {

double coordinate(Vec3 x, int axis) {
  return axis == 0 ? x.x : (axis == 1 ? x.y : x.z);
}

// The bin edges of the n − 1 interior cuts. Cut k goes to the side of the bin that crosses k/n
// of the total that leaves the sum closer to k/n (so whole lattice planes round to the nearer
// side, not always up), three quarters into the empty gap there: between two lattice planes,
// not at the middle, where the midpoints of the pairs across the gap lie (the midpoint method
// would split them by rounding), and nearer the upper plane, as the box boundary at 0 sits on a
// lattice start's first plane, so that every box of a lattice start holds the same planes of
// pair midpoints; at least one bin per box.
std::vector<int> quantile_edges(const std::vector<long long>& hist, long long total, int n) {
  const int bins = static_cast<int>(hist.size());
  std::vector<long long> below(bins + 1, 0);  // below[e]: the cost in bins [0, e)
  for (int b = 0; b < bins; ++b) below[b + 1] = below[b] + hist[b];
  std::vector<int> edges;
  int previous = 0;
  for (int k = 1; k < n; ++k) {
    // The first edge with n·below >= k·total (exact integers).
    int e = previous + 1;
    while (e < bins && below[e] * n < total * k) ++e;
    int lo = e, hi = e;  // the empty gap around the chosen edge: edges [lo, hi] give one sum
    if (e > 0 && hist[e - 1] > 0) {
      const long long over = below[e] * n - total * k;       // >= 0
      const long long under = total * k - below[e - 1] * n;  // > 0
      if (under < over) lo = hi = e - 1;                     // the crossing bin goes up
    }
    while (lo > 0 && hist[lo - 1] == 0) --lo;
    while (hi < bins && hist[hi] == 0) ++hi;
    const int cut = std::clamp(lo + 3 * (hi - lo) / 4, previous + 1, bins - (n - k));
    edges.push_back(cut);
    previous = cut;
  }
  return edges;
}

}  // namespace

CostMarginals cost_marginals(const Communicator* comm, Vec3 length, std::span<const Vec3> x,
                             std::span<const long long> cost) {
  CostMarginals m;
  m.length = length;
  std::vector<long long> all(3 * static_cast<std::size_t>(kBalanceBins), 0);
  for (int axis = 0; axis < 3; ++axis) {
    const double per_length = kBalanceBins / coordinate(length, axis);
    long long* hist = all.data() + static_cast<std::size_t>(axis) * kBalanceBins;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const int b = static_cast<int>(coordinate(x[i], axis) * per_length);
      hist[std::clamp(b, 0, kBalanceBins - 1)] += cost[i];
    }
  }
  if (comm) comm->sum(std::span<long long>(all));
  for (int axis = 0; axis < 3; ++axis)
    m.hist[axis].assign(all.begin() + static_cast<std::ptrdiff_t>(axis) * kBalanceBins,
                        all.begin() + static_cast<std::ptrdiff_t>(axis + 1) * kBalanceBins);
  for (int b = 0; b < kBalanceBins; ++b) m.total += m.hist[0][b];
  return m;
}

GridCuts balanced_cuts(const RankGrid& grid, const CostMarginals& m) {
  GridCuts cuts = grid.cuts();
  if (m.total <= 0) return cuts;
  for (int axis = 0; axis < 3; ++axis) {
    const AxisCuts& old = cuts.axis(axis);
    if (old.n == 1 || old.n > kMaxBalancedBoxes) continue;  // more boxes than AxisCuts holds
    std::vector<double> interior;
    for (const int e : quantile_edges(m.hist[axis], m.total, old.n))
      interior.push_back(old.len * e / kBalanceBins);
    cuts.axis(axis) = AxisCuts::moved(interior, old.len);
  }
  return cuts;
}

GridCuts balanced_cuts(const Communicator* comm, const RankGrid& grid, std::span<const Vec3> x,
                       std::span<const long long> cost) {
  const GridCuts& c = grid.cuts();
  return balanced_cuts(grid, cost_marginals(comm, c.length(), x, cost));
}

double predicted_imbalance(const CostMarginals& m, Int3 dims) {
  if (m.total <= 0) return 1.0;
  double product = 1.0;
  const int n_of[3] = {dims.x, dims.y, dims.z};
  for (int axis = 0; axis < 3; ++axis) {
    const int n = n_of[axis];
    if (n == 1) continue;
    std::vector<int> edges;
    if (n <= kMaxBalancedBoxes) {
      edges = quantile_edges(m.hist[axis], m.total, n);
    } else {  // kept equal: box c starts at bin floor(c·bins/n) (to the bin)
      for (int c = 1; c < n; ++c)
        edges.push_back(static_cast<int>(static_cast<long long>(c) * kBalanceBins / n));
    }
    edges.push_back(kBalanceBins);
    long long worst = 0, sum = 0;
    int b = 0;
    for (const int e : edges) {
      for (; b < e; ++b) sum += m.hist[axis][b];
      worst = std::max(worst, sum);
      sum = 0;
    }
    product *= static_cast<double>(worst) * n / static_cast<double>(m.total);
  }
  return product;
}

BalancedGridChoice choose_balanced_grid(const std::vector<Int3>& candidates, const CostMarginals& m,
                                        double tolerance) {
  if (candidates.empty()) throw std::invalid_argument("choose_balanced_grid: no candidate grid");
  BalancedGridChoice out;
  out.import_best = candidates.front();
  out.import_best_predicted = predicted_imbalance(m, out.import_best);
  out.dims = out.import_best;
  out.predicted = out.import_best_predicted;
  if (out.predicted <= tolerance) return out;
  for (const Int3& dims : candidates) {
    const double p = predicted_imbalance(m, dims);
    if (p <= tolerance) return {dims, p, out.import_best, out.import_best_predicted};
    if (p < out.predicted) {
      out.dims = dims;
      out.predicted = p;
    }
  }
  return out;
}

long long measured_scale(long long modelled, long long measured) {
  if (modelled <= 0) return 1;
  // 2^10 steps of resolution in the ratio; the products stay far below 2^63.
  const double ratio = static_cast<double>(measured) / static_cast<double>(modelled);
  return std::max(1LL, std::llround(1024.0 * ratio));
}

std::vector<long long> measured_costs(std::span<const long long> cost, long long measured) {
  long long modelled = 0;
  for (const long long c : cost) modelled += c;
  const long long scale = measured_scale(modelled, measured);
  std::vector<long long> out(cost.begin(), cost.end());
  for (long long& c : out) c *= scale;
  return out;
}

namespace {

// Cloud-in-cell weights of a coordinate on a periodic grid of m cells (centres at (c + ½)/per):
// the two cells and the integer weights (sum kCicOne) of each.
constexpr long long kCicOne = 256;
struct CicAxis {
  int c0, c1;
  long long w0, w1;
};
CicAxis cic_axis(double q, double per, int m) {
  const double u = q * per - 0.5;
  const double f0 = std::floor(u);
  int c0 = static_cast<int>(f0);
  const long long w1 = std::clamp(std::llround((u - f0) * kCicOne), 0LL, kCicOne);
  c0 = ((c0 % m) + m) % m;
  return {c0, (c0 + 1) % m, kCicOne - w1, w1};
}

}  // namespace

std::vector<long long> pair_costs(const Communicator* comm, const Box& box, double import_cutoff,
                                  std::span<const Vec3> x) {
  // Cells of edge >= 1.5 R: the cloud-in-cell kernel (two cells) then spans several lattice
  // planes, and a uniform lattice gives every site the same cost within 2 %.
  auto cells_along = [&](double len) {
    return std::clamp(static_cast<int>(len / (1.5 * import_cutoff)), 1, 64);
  };
  const Int3 m{cells_along(box.length.x), cells_along(box.length.y), cells_along(box.length.z)};
  const Vec3 per{m.x / box.length.x, m.y / box.length.y, m.z / box.length.z};
  auto index = [&](int cx, int cy, int cz) {
    return static_cast<std::size_t>(cx) +
           static_cast<std::size_t>(m.x) * (cy + static_cast<std::size_t>(m.y) * cz);
  };
  // Deposit: every particle spreads kCicOne³ over the 8 cells around it (integers: the global
  // sum is exact, the same on every rank whatever the order).
  std::vector<long long> density(static_cast<std::size_t>(m.x) * m.y * m.z, 0);
  std::vector<CicAxis> w(3 * x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    w[3 * i] = cic_axis(x[i].x, per.x, m.x);
    w[3 * i + 1] = cic_axis(x[i].y, per.y, m.y);
    w[3 * i + 2] = cic_axis(x[i].z, per.z, m.z);
    const CicAxis &a = w[3 * i], &b = w[3 * i + 1], &c = w[3 * i + 2];
    for (int k = 0; k < 8; ++k)
      density[index(k & 1 ? a.c1 : a.c0, k & 2 ? b.c1 : b.c0, k & 4 ? c.c1 : c.c0)] +=
          (k & 1 ? a.w1 : a.w0) * (k & 2 ? b.w1 : b.w0) * (k & 4 ? c.w1 : c.w0);
  }
  if (comm) comm->sum(std::span<long long>(density));
  // Interpolate back with the same weights: the density at each particle, smooth across cells
  // (a lattice's planes do not alias onto the grid), in units of 1/16 particle per cell.
  std::vector<long long> cost(x.size());
  constexpr double kUnit =
      16.0 / (double(kCicOne) * kCicOne * kCicOne * kCicOne * kCicOne * kCicOne);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const CicAxis &a = w[3 * i], &b = w[3 * i + 1], &c = w[3 * i + 2];
    double sum = 0.0;
    for (int k = 0; k < 8; ++k)
      sum += static_cast<double>((k & 1 ? a.w1 : a.w0) * (k & 2 ? b.w1 : b.w0) *
                                 (k & 4 ? c.w1 : c.w0)) *
             static_cast<double>(
                 density[index(k & 1 ? a.c1 : a.c0, k & 2 ? b.c1 : b.c0, k & 4 ? c.c1 : c.c0)]);
    cost[i] = std::max(1LL, std::llround(sum * kUnit));
  }
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
