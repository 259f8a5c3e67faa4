// tests/decomposition/test_rank_grid.cpp — decomposition/rank_grid.hpp: choose_grid and
// analytic_import_volume (label `decomposition`, no MPI).
//
// Oracles:
//  * the import-volume formulas of DESIGN.md §4, typed in again here (HS, NT; full shell = 2·HS,
//    the whole rounded shell; eighth shell and midpoint), plus their cube special cases and the
//    P → ∞ limit;
//  * a numerical integration of the import region *as ImportRegion::classify defines it* for a
//    box in an infinite grid (home of a point = the box holding it): its volume must be the
//    analytic one, tying the formulas to the region the code really imports;
//  * choose_grid: exhaustive enumeration of px·py·pz = P with the formula above — the chosen grid
//    has the minimum volume; requested grids are honoured; bad ones throw naming
//    decomposition.grid; primes give a 1×1×P-type grid for a cubic box.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "decomposition/import_rule.hpp"
#include "decomposition/rank_grid.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

constexpr double kPi = 3.14159265358979323846;

double v_hs(Vec3 b, double R) {
  return R * (b.x * b.y + b.y * b.z + b.z * b.x) + (kPi / 2) * R * R * (b.x + b.y + b.z) +
         (2.0 / 3.0) * kPi * R * R * R;
}
double v_nt(Vec3 b, double R) {
  return 2 * R * b.x * b.y + R * (b.x + b.y) * b.z + (kPi / 2) * R * R * b.z;
}
// Eighth shell (upper octant) and midpoint (full shell of thickness R/2) share the volume
// R·(faces) + (π/4)R²·(edges) + (π/6)R³ (DESIGN.md §4: 3b²R + (3/4)πbR² + (π/6)R³ for a cube).
double v_es(Vec3 b, double R) {
  return R * (b.x * b.y + b.y * b.z + b.z * b.x) + (kPi / 4) * R * R * (b.x + b.y + b.z) +
         (kPi / 6) * R * R * R;
}
double v_oracle(Method m, Vec3 b, double R) {
  switch (m) {
    case Method::HalfShell:
      return v_hs(b, R);
    case Method::NeutralTerritory:
      return v_nt(b, R);
    case Method::FullShell:
      return 2 * v_hs(b, R);
    case Method::EighthShell:
    case Method::Midpoint:
      return v_es(b, R);
  }
  return -1;
}

constexpr auto& kMethods = kAllMethods;

TEST(AnalyticImportVolume, MatchesDesignFormulas) {
  const Vec3 boxes[] = {
      {1, 1, 1}, {2, 3, 5}, {16.8, 16.8, 8.4}, {0.5, 7, 2.25}, {33.59, 33.59, 33.59}};
  for (double R : {0.5, 2.8, 4.3})
    for (const Vec3& b : boxes)
      for (Method m : kMethods) {
        const double want = v_oracle(m, b, R);
        EXPECT_NEAR(analytic_import_volume(m, b, R), want, 1e-12 * want)
            << method_name(m) << " b = " << b.x << "," << b.y << "," << b.z << " R = " << R;
      }
  // Cube special cases quoted in DESIGN.md.
  const double b = 3.7, R = 2.8;
  EXPECT_NEAR(analytic_import_volume(Method::HalfShell, {b, b, b}, R),
              3 * R * b * b + 1.5 * kPi * R * R * b + (2.0 / 3.0) * kPi * R * R * R, 1e-10);
  const double bxy = 4.1, bz = 2.3;
  EXPECT_NEAR(analytic_import_volume(Method::NeutralTerritory, {bxy, bxy, bz}, R),
              2 * R * bxy * bxy + 2 * R * bxy * bz + (kPi / 2) * R * R * bz, 1e-10);
  EXPECT_NEAR(analytic_import_volume(Method::EighthShell, {b, b, b}, R),
              3 * b * b * R + 0.75 * kPi * b * R * R + kPi / 6 * R * R * R, 1e-10);
  // Midpoint = full shell of thickness R/2.
  EXPECT_NEAR(analytic_import_volume(Method::Midpoint, {2, 3, 5}, R),
              analytic_import_volume(Method::FullShell, {2, 3, 5}, R / 2), 1e-10);
  // P → ∞: the half shell tends to (2/3)πR³, neutral territory to 0.
  EXPECT_NEAR(analytic_import_volume(Method::HalfShell, {1e-9, 1e-9, 1e-9}, R),
              (2.0 / 3.0) * kPi * R * R * R, 1e-6);
  EXPECT_NEAR(analytic_import_volume(Method::NeutralTerritory, {1e-9, 1e-9, 1e-9}, R), 0.0, 1e-6);
}

// Volume of {q : classify(q, home(q)) != None} for the box C = (0,0,0) of edge b in an infinite
// grid, points of C itself excluded (those are owned, not imported), by stratified sampling: one
// uniformly random point in each cell of a lattice whose cell faces fall on the box faces, about
// `per_edge` cells across the largest padded edge (unbiased; no lattice aliasing against R).
double integrated_region_volume(Method m, Vec3 b, double R, int per_edge) {
  const ImportRegion region{m, {0, 0, 0}, {0, 0, 0}, b, R * R, R};
  const double h0 = (std::max({b.x, b.y, b.z}) + 2 * R) / per_edge;
  auto axis = [&](double len, double& h, int& pad, int& n) {
    const int cells = std::max(1, static_cast<int>(std::ceil(len / h0)));
    h = len / cells;
    pad = static_cast<int>(std::ceil(R / h)) + 1;
    n = cells + 2 * pad;
  };
  double hx, hy, hz;
  int px, py, pz, nx, ny, nz;
  axis(b.x, hx, px, nx);
  axis(b.y, hy, py, ny);
  axis(b.z, hz, pz, nz);
  long long inside = 0;
  test::Rng rng(static_cast<std::uint64_t>(m) + 17);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const Vec3 q{(i - px + rng.uniform()) * hx, (j - py + rng.uniform()) * hy,
                     (k - pz + rng.uniform()) * hz};
        const Int3 home{static_cast<int>(std::floor(q.x / b.x)),
                        static_cast<int>(std::floor(q.y / b.y)),
                        static_cast<int>(std::floor(q.z / b.z))};
        if (home == Int3{0, 0, 0}) continue;
        inside += region.classify(q, home) != ImportKind::None;
      }
  return inside * hx * hy * hz;
}

TEST(AnalyticImportVolume, EqualsVolumeOfClassifiedRegion) {
  struct Case {
    Vec3 b;
    double R;
  };
  double worst = 0;
  for (const Case& c : {Case{{3.0, 4.0, 5.0}, 2.0}, Case{{1.5, 2.0, 1.0}, 2.8}}) {
    for (Method m : kMethods) {
      const double got = integrated_region_volume(m, c.b, c.R, 100);
      const double want = v_oracle(m, c.b, c.R);
      worst = std::max(worst, std::fabs(got / want - 1));
      EXPECT_NEAR(got, want, 0.01 * want)
          << method_name(m) << " b = " << c.b.x << "," << c.b.y << "," << c.b.z << " R = " << c.R;
    }
  }
  RecordProperty("max_relative_deviation", test::sci(worst));
}

TEST(ChooseGrid, ProductIsRankCountAndVolumeIsMinimal) {
  const Box boxes[] = {Box::cube(33.59), Box::make({20, 30, 50}), Box::make({10, 10, 40})};
  const double R = 2.8;
  for (const Box& box : boxes)
    for (Method m : kMethods)
      for (int P = 1; P <= 48; ++P) {
        const Int3 g = choose_grid(P, {0, 0, 0}, box, m, R);
        ASSERT_GE(std::min({g.x, g.y, g.z}), 1);
        ASSERT_EQ(g.x * g.y * g.z, P) << method_name(m);
        auto vol = [&](Int3 d) {
          return v_oracle(m, {box.length.x / d.x, box.length.y / d.y, box.length.z / d.z}, R);
        };
        double best = INFINITY;
        for (int px = 1; px <= P; ++px)
          for (int py = 1; py <= P; ++py)
            if (P % (px * py) == 0) best = std::min(best, vol({px, py, P / (px * py)}));
        EXPECT_LE(vol(g), best * (1 + 1e-9))
            << method_name(m) << " P = " << P << ": chose " << g.x << "x" << g.y << "x" << g.z;
      }
}

// candidate_grids: every factorisation once, in order of import volume, choose_grid's first.
TEST(ChooseGrid, CandidatesAreEveryFactorisationInVolumeOrder) {
  const Box box = Box::make({20, 30, 50});
  for (Method m : kMethods)
    for (int P : {1, 12, 64, 90}) {
      const std::vector<Int3> c = candidate_grids(P, {0, 0, 0}, box, m, 2.8);
      std::set<std::tuple<int, int, int>> seen;
      int expected = 0;
      for (int px = 1; px <= P; ++px)
        for (int py = 1; py <= P; ++py) expected += P % (px * py) == 0;
      ASSERT_EQ(static_cast<int>(c.size()), expected) << method_name(m) << " P = " << P;
      for (std::size_t k = 0; k < c.size(); ++k) {
        EXPECT_EQ(c[k].x * c[k].y * c[k].z, P);
        EXPECT_TRUE(seen.insert({c[k].x, c[k].y, c[k].z}).second) << "listed twice";
        if (k > 0) {
          auto vol = [&](Int3 d) {
            return v_oracle(m, {box.length.x / d.x, box.length.y / d.y, box.length.z / d.z}, 2.8);
          };
          EXPECT_LE(vol(c[k - 1]), vol(c[k]) * (1 + 1e-9)) << method_name(m) << " P = " << P;
        }
      }
      EXPECT_EQ(c.front(), choose_grid(P, {0, 0, 0}, box, m, 2.8));
    }
}

TEST(ChooseGrid, PrimesGiveOneByOneByP) {
  for (Method m : kMethods)
    for (int P : {2, 3, 5, 7, 11, 13, 31}) {
      const Int3 g = choose_grid(P, {0, 0, 0}, Box::cube(40.0), m, 2.8);
      std::array<int, 3> s{g.x, g.y, g.z};
      std::sort(s.begin(), s.end());
      EXPECT_EQ(s, (std::array<int, 3>{1, 1, P})) << method_name(m);
    }
}

TEST(ChooseGrid, RequestedGridHonoured) {
  const Box box = Box::cube(33.59);
  for (Method m : kMethods) {
    EXPECT_EQ(choose_grid(6, {2, 3, 1}, box, m, 2.8), (Int3{2, 3, 1}));
    EXPECT_EQ(choose_grid(6, {1, 1, 6}, box, m, 2.8), (Int3{1, 1, 6}));
    EXPECT_EQ(choose_grid(8, {1, 2, 4}, box, m, 2.8), (Int3{1, 2, 4}));
    EXPECT_EQ(choose_grid(1, {1, 1, 1}, box, m, 2.8), (Int3{1, 1, 1}));
    // Partly fixed: non-zero entries kept, the rest chosen.
    const Int3 z2 = choose_grid(8, {0, 0, 2}, box, m, 2.8);
    EXPECT_EQ(z2.z, 2);
    EXPECT_EQ(z2.x * z2.y * z2.z, 8);
    const Int3 x3 = choose_grid(12, {3, 0, 0}, box, m, 2.8);
    EXPECT_EQ(x3.x, 3);
    EXPECT_EQ(x3.x * x3.y * x3.z, 12);
  }
}

TEST(ChooseGrid, BadRequestedGridThrowsNamingTheKey) {
  const Box box = Box::cube(33.59);
  struct Bad {
    int ranks;
    Int3 grid;
  };
  for (const Bad& b : {Bad{2, {3, 1, 1}}, Bad{8, {2, 2, 1}}, Bad{4, {-1, 2, 2}}, Bad{8, {5, 0, 0}},
                       Bad{8, {0, 0, 3}}, Bad{6, {4, 0, 1}}}) {
    try {
      const Int3 g = choose_grid(b.ranks, b.grid, box, Method::HalfShell, 2.8);
      ADD_FAILURE() << "grid [" << b.grid.x << "," << b.grid.y << "," << b.grid.z << "] on "
                    << b.ranks << " ranks accepted as " << g.x << "x" << g.y << "x" << g.z;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("decomposition.grid"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(choose_grid(0, {0, 0, 0}, box, Method::HalfShell, 2.8), std::invalid_argument);
}

}  // namespace
}  // namespace scanmd

namespace scanmd {
namespace {

// GridCuts (decomposition/grid_cuts.hpp). Equal boxes: box_of, lo, hi are the first version's
// formulas (floor(x·n/L) clamped, c·L/n) bit for bit. Moved cuts: box_of is the box whose
// [lo, hi) holds x (linear scan oracle), and boxes_near covers every box within r of a point,
// images outside [0, L) included (brute force over the boxes' extents).
TEST(GridCuts, EqualBoxesKeepTheFirstFormulas) {
  test::Rng rng(17);
  for (int t = 0; t < 2000; ++t) {
    const int n = static_cast<int>(rng.integer(1, 9));
    const double len = rng.uniform(1.0, 50.0);
    const AxisCuts a = AxisCuts::equal_boxes(n, len);
    const double x = rng.uniform(-0.01, 1.01) * len;
    const int c = static_cast<int>(x * (n / len));
    EXPECT_EQ(a.box_of(x), c < 0 ? 0 : (c >= n ? n - 1 : c));
    const int k = static_cast<int>(rng.integer(0, n - 1));
    EXPECT_EQ(a.lo(k), k * (len / n));
    EXPECT_EQ(a.hi(k), (k + 1) * (len / n));
  }
}

TEST(GridCuts, MovedCutsOwnershipAndNearBoxes) {
  test::Rng rng(23);
  for (int t = 0; t < 300; ++t) {
    const int n = static_cast<int>(rng.integer(2, 12));
    const double len = rng.uniform(5.0, 40.0);
    std::vector<double> interior;
    for (int c = 1; c < n; ++c) interior.push_back(rng.uniform(0.0, len));
    std::sort(interior.begin(), interior.end());
    if (std::adjacent_find(interior.begin(), interior.end()) != interior.end()) continue;
    const AxisCuts a = AxisCuts::moved(interior, len);
    EXPECT_EQ(a.lo(0), 0.0);
    EXPECT_EQ(a.hi(n - 1), len);
    for (int s = 0; s < 50; ++s) {
      const double x = rng.uniform(0.0, len);
      int want = n - 1;
      for (int c = 0; c < n; ++c)
        if (x >= a.lo(c) && x < a.hi(c)) want = c;
      EXPECT_EQ(a.box_of(x), want) << "x = " << x;
      const double q = rng.uniform(-0.5, 1.5) * len, r = rng.uniform(0.1, 0.6) * len;
      int first = 0, last = 0;
      a.boxes_near(q, r, first, last);
      for (int c = 0; c < n; ++c) {
        const double gap = q < a.lo(c) ? a.lo(c) - q : (q > a.hi(c) ? q - a.hi(c) : 0.0);
        if (gap < r) {
          EXPECT_GE(c, first) << "box " << c << " within r of " << q << " is not visited";
          EXPECT_LE(c, last) << "box " << c << " within r of " << q << " is not visited";
        }
      }
    }
  }
  EXPECT_THROW(AxisCuts::moved({3.0, 2.0}, 10.0), std::invalid_argument);
  EXPECT_THROW(AxisCuts::moved({3.0, 10.0}, 10.0), std::invalid_argument);
}

}  // namespace
}  // namespace scanmd
