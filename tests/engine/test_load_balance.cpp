// tests/engine/test_load_balance.cpp — engine/load_balance.hpp without MPI (comm = null: the
// positions are all particles, as in scanmd model).
//
// Oracles:
//  * cut planes: counting by hand which box each particle falls in (AxisCuts::box_of) — planes of
//    a lattice split evenly whenever the box count divides the plane count, each cut strictly
//    between two planes, three quarters into the gap; a plane that straddles k/n goes to the
//    nearer side;
//  * predicted_imbalance: the same hand count of the cost per box, for a cost that varies along
//    one axis only (where the prediction is exact);
//  * choose_balanced_grid: a slab whose 68 planes 16 boxes cannot split, but 4 can;
//  * pair_costs: on a uniform fcc lattice every particle sees the same density (no aliasing of
//    lattice planes on the coarse grid), and a region twice as dense costs twice as much;
//  * measured_scale: the ratio in 1/1024 steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/lattice.hpp"
#include "engine/load_balance.hpp"

namespace scanmd {
namespace {

// `planes` planes across z of 4 x 4 particles each, plane k at z = k·L/planes.
std::vector<Vec3> planes_along_z(int planes, Vec3 L) {
  std::vector<Vec3> x;
  for (int k = 0; k < planes; ++k)
    for (int i = 0; i < 16; ++i)
      x.push_back({L.x * (i % 4 + 0.5) / 4, L.y * (i / 4 + 0.5) / 4, L.z * k / planes});
  return x;
}

std::vector<long long> cost_per_box(const AxisCuts& cuts, std::span<const Vec3> x,
                                    std::span<const long long> cost) {
  std::vector<long long> out(cuts.n, 0);
  for (std::size_t i = 0; i < x.size(); ++i) out[cuts.box_of(x[i].z)] += cost[i];
  return out;
}

TEST(LoadBalance, CutsSplitLatticePlanesEvenlyBetweenPlanes) {
  const Vec3 L{10, 10, 48 * 0.9};
  const Box box = Box::make(L);
  const std::vector<Vec3> x = planes_along_z(48, L);
  const std::vector<long long> ones(x.size(), 1);
  for (int n : {2, 3, 4, 6, 8, 12, 16, 24}) {
    RankGrid grid({1, 1, n}, box);
    const GridCuts cuts = balanced_cuts(nullptr, grid, x, ones);
    const std::vector<long long> per_box = cost_per_box(cuts.z, x, ones);
    for (int c = 0; c < n; ++c) EXPECT_EQ(per_box[c], 16 * 48 / n) << "n = " << n << " box " << c;
    const double s = L.z / 48, bin = L.z / kBalanceBins;
    for (int c = 1; c < n; ++c) {
      const double below = (48 / n * c - 1) * s;  // the last plane of box c − 1
      EXPECT_NEAR(cuts.z.at[c], below + 0.75 * s, 2 * bin) << "n = " << n << " cut " << c;
    }
    EXPECT_EQ(cuts.x, grid.cuts().x) << "an axis with one box keeps its cuts";
  }
}

TEST(LoadBalance, StraddlingPlaneGoesToTheNearerSide) {
  const Vec3 L{10, 10, 10};
  RankGrid grid({1, 1, 2}, Box::make(L));
  // Five planes of unequal weights; the oracle is the split between planes closest to half
  // (10 10 | 10 1 9; 10 11 | 10 10 9, 4 over half rather than 15 under; 30 | 1 1 1 1).
  const std::vector<Vec3> x{{1, 1, 1}, {1, 1, 3}, {1, 1, 5}, {1, 1, 7}, {1, 1, 9}};
  for (const std::vector<long long>& w :
       {std::vector<long long>{10, 10, 10, 1, 9}, std::vector<long long>{10, 11, 10, 10, 9},
        std::vector<long long>{30, 1, 1, 1, 1}}) {
    const GridCuts cuts = balanced_cuts(nullptr, grid, x, w);
    long long total = 0, best = 0;
    for (long long v : w) total += v;
    // The hand oracle: the split (after plane j) closest to half.
    long long below = 0, best_gap = total;
    for (std::size_t j = 0; j + 1 < w.size(); ++j) {
      below += w[j];
      if (std::llabs(2 * below - total) < best_gap) {
        best_gap = std::llabs(2 * below - total);
        best = below;
      }
    }
    EXPECT_EQ(cost_per_box(cuts.z, x, w)[0], best) << "weights " << w[0] << " " << w[1];
  }
}

TEST(LoadBalance, PredictionIsExactForOneAxisCost) {
  const Vec3 L{8, 8, 40};
  const Box box = Box::make(L);
  std::vector<Vec3> x;
  std::vector<long long> cost;
  std::uint64_t state = 12345;
  for (int i = 0; i < 5000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double z = L.z * static_cast<double>(state >> 11) / 9007199254740992.0;
    x.push_back({1.0 + (i % 7), 2.0 + (i % 5), z});
    cost.push_back(1 + static_cast<long long>(20.0 * std::exp(-(z - 12) * (z - 12) / 18)));
  }
  const CostMarginals m = cost_marginals(nullptr, L, x, cost);
  for (int n : {2, 3, 5, 8, 13}) {
    RankGrid grid({1, 1, n}, box);
    const std::vector<long long> per_box = cost_per_box(balanced_cuts(grid, m).z, x, cost);
    long long total = 0, worst = 0;
    for (long long v : per_box) {
      total += v;
      worst = std::max(worst, v);
    }
    EXPECT_DOUBLE_EQ(predicted_imbalance(m, {1, 1, n}), static_cast<double>(worst) * n / total)
        << "n = " << n;
    EXPECT_LT(predicted_imbalance(m, {1, 1, n}), 1.02) << "5000 scattered particles split well";
  }
}

TEST(LoadBalance, GridChoiceAvoidsBoxesThatCannotSplitTheSlab) {
  // 68 planes across z: 16 boxes hold 4 or 5 of them (max/mean 5/4.25), 4 boxes 17 each.
  const Vec3 L{12, 12, 68};
  const std::vector<Vec3> x = planes_along_z(68, L);
  const std::vector<long long> ones(x.size(), 1);
  const CostMarginals m = cost_marginals(nullptr, L, x, ones);
  EXPECT_NEAR(predicted_imbalance(m, {1, 1, 16}), 5.0 / 4.25, 1e-12);
  EXPECT_NEAR(predicted_imbalance(m, {1, 1, 4}), 1.0, 1e-12);
  const BalancedGridChoice c =
      choose_balanced_grid({{1, 1, 16}, {1, 2, 8}, {2, 2, 4}, {4, 4, 1}}, m, 1.05);
  EXPECT_EQ(c.import_best, (Int3{1, 1, 16}));
  EXPECT_NEAR(c.import_best_predicted, 5.0 / 4.25, 1e-12);
  // 8 boxes: 9 / 8.5 planes, beyond 1.05; x and y (4 rows each) split by 2 evenly: 2x2x4 is the
  // first within the tolerance.
  EXPECT_EQ(c.dims, (Int3{2, 2, 4}));
  EXPECT_LE(c.predicted, 1.05);
  // None within the tolerance: the best predicted.
  const BalancedGridChoice none = choose_balanced_grid({{1, 1, 16}, {1, 2, 8}}, m, 1.0);
  EXPECT_EQ(none.dims, (Int3{1, 2, 8}));  // 8 boxes: 9/8.5 beats 5/4.25
}

TEST(LoadBalance, PairCostIsTheLocalDensityWithoutLatticeAliasing) {
  // A uniform fcc lattice whose plane spacing does not divide the coarse cells.
  const FccLattice lattice = FccLattice::from_density(0.73, {12, 12, 20});
  const Box box = lattice.box();
  std::vector<Vec3> x;
  lattice.for_each_site(
      {0, 0, 0}, box.length, [](Vec3) { return true; },
      [&](std::uint64_t, Vec3 q) { x.push_back(q); });
  const std::vector<long long> cost = pair_costs(nullptr, box, 2.8, x);
  const auto [lo, hi] = std::minmax_element(cost.begin(), cost.end());
  EXPECT_LE(static_cast<double>(*hi) / static_cast<double>(*lo), 1.03)
      << "every site of a uniform lattice sees the same density";
  // Keep only the sites with z < L/2 plus every other site above: the upper half is half as
  // dense; far from the two interfaces the cost halves.
  std::vector<Vec3> two;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i].z < box.length.z / 2 || i % 2 == 0) two.push_back(x[i]);
  const std::vector<long long> c2 = pair_costs(nullptr, box, 2.8, two);
  double dense = 0, sparse = 0;
  int n_dense = 0, n_sparse = 0;
  const double Lz = box.length.z;
  for (std::size_t i = 0; i < two.size(); ++i) {
    const double z = two[i].z;
    if (z > 0.15 * Lz && z < 0.35 * Lz) dense += c2[i], ++n_dense;
    if (z > 0.65 * Lz && z < 0.85 * Lz) sparse += c2[i], ++n_sparse;
  }
  EXPECT_NEAR((dense / n_dense) / (sparse / n_sparse), 2.0, 0.1);
}

TEST(LoadBalance, MeasuredScale) {
  EXPECT_EQ(measured_scale(100, 50), 512);
  EXPECT_EQ(measured_scale(100, 300), 3072);
  EXPECT_EQ(measured_scale(0, 10), 1) << "nothing modelled";
  EXPECT_EQ(measured_scale(10, 0), 1) << "at least 1: every particle weighs something";
  const std::vector<long long> cost{3, 5, 2};
  EXPECT_EQ(measured_costs(cost, 20), (std::vector<long long>{6144, 10240, 4096}));
}

}  // namespace
}  // namespace scanmd
