// tests/decomposition/test_import_rule.cpp — decomposition/import_rule.hpp: ImportRegion::classify
// and PairRule::lists_pair (label `decomposition`, no MPI).
//
// Oracles, all by brute force over the periodic grid of boxes:
//  * lists_pair(i, j) and lists_pair(j, i) are never both true (any method, random homes);
//  * neutral territory: for a pair of images with any home offset, exactly one box of the
//    periodic grid (over all boxes and all periodic translations) lists it;
//  * the whole selection, geometrically: for two particles closer than R in a periodic box cut
//    into a random grid (boxes possibly thinner than R), each box holds its owned particles and
//    the images its ImportRegion accepts (tried for all 27 shifts, homes = owner box + S·grid,
//    as DESIGN.md §4 defines them); count the boxes that list the pair among their held images
//    within R. Half shell, neutral territory, eighth shell, midpoint: exactly 1. Full shell: 1
//    when both particles share an owner and interact without a periodic shift, else 2.
//  * midpoint ties: pairs of lattice sites whose midpoints lie (in exact arithmetic) on a cut
//    plane or on the periodic boundary are each listed by exactly one box, the box above the
//    plane, as a particle on the plane belongs to it.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "decomposition/export_selection.hpp"
#include "decomposition/import_rule.hpp"
#include "decomposition/rank_grid.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

constexpr auto& kMethods = kAllMethods;

Int3 random_int3(test::Rng& rng, int lo, int hi) {
  return {rng.integer(lo, hi), rng.integer(lo, hi), rng.integer(lo, hi)};
}

TEST(PairRule, NeverBothOrders) {
  test::Rng rng(1);
  const Vec3 L{9.0, 10.0, 12.5};
  for (Method m : kMethods)
    for (int t = 0; t < 100000; ++t) {
      const Int3 dims = random_int3(rng, 1, 4);
      const PairRule rule{
          m,
          {rng.integer(0, dims.x - 1), rng.integer(0, dims.y - 1), rng.integer(0, dims.z - 1)},
          GridCuts::equal_boxes(dims, L)};
      PairSide i{rng.uniform() < 0.5,
                 random_int3(rng, -1, 4),
                 static_cast<std::uint64_t>(rng.integer(0, 50)),
                 static_cast<std::uint64_t>(rng.integer(1, 50)),
                 {rng.uniform() * L.x, rng.uniform() * L.y, rng.uniform() * L.z}};
      PairSide j{rng.uniform() < 0.5,
                 random_int3(rng, -1, 4),
                 static_cast<std::uint64_t>(rng.integer(0, 50)),
                 static_cast<std::uint64_t>(rng.integer(1, 50)),
                 {rng.uniform() * L.x, rng.uniform() * L.y, rng.uniform() * L.z}};
      if (i.order == j.order) ++j.order;
      if (i.id == j.id) ++j.id;
      const bool ij = rule.lists_pair(i, j);
      const bool ji = rule.lists_pair(j, i);
      ASSERT_FALSE(ij && ji) << method_name(m);
      if ((m == Method::HalfShell || m == Method::FullShell) && i.owned && j.owned) {
        ASSERT_TRUE(ij || ji) << "two owned particles: one order must list the pair";
      }
      if (ij) {
        ASSERT_TRUE(rule.can_head(i.owned, i.home))
            << method_name(m) << ": listed under a particle that cannot head a row";
      }
      if (m != Method::Midpoint) {  // the short form agrees with the PairSide form
        ASSERT_EQ(ij, rule.lists_pair(i.owned, j.owned, i.home, j.home, i.order, j.order));
      }
    }
}

TEST(PairRule, NeutralTerritoryExactlyOneBoxInPeriodicGrid) {
  test::Rng rng(2);
  for (int t = 0; t < 1500; ++t) {
    const Int3 dims = random_int3(rng, 1, 4);
    const Int3 a{rng.integer(0, dims.x - 1), rng.integer(0, dims.y - 1),
                 rng.integer(0, dims.z - 1)};
    const Int3 o = random_int3(rng, -3, 3);  // home offset of the pair's second image
    const std::uint64_t ka = rng.integer(0, 1000), kb = ka + 1 + rng.integer(0, 10);
    int boxes = 0;
    for (int cz = 0; cz < dims.z; ++cz)
      for (int cy = 0; cy < dims.y; ++cy)
        for (int cx = 0; cx < dims.x; ++cx) {
          const PairRule rule{Method::NeutralTerritory, {cx, cy, cz}};
          // |o| <= 3 and dims >= 1: translations within ±3 grids reach every placement.
          for (int tz = -3; tz <= 3; ++tz)
            for (int ty = -3; ty <= 3; ++ty)
              for (int tx = -3; tx <= 3; ++tx) {
                const Int3 ha = a + Int3{tx, ty, tz} * dims, hb = ha + o;
                // The same box may see the pair in one order or the other; the cell order
                // (ka, kb) is per rank, either way round.
                boxes += rule.lists_pair(false, false, ha, hb, ka, kb) ||
                         rule.lists_pair(false, false, hb, ha, kb, ka);
              }
        }
    ASSERT_EQ(boxes, 1) << "offset " << o.x << "," << o.y << "," << o.z << " grid " << dims.x << "x"
                        << dims.y << "x" << dims.z;
  }
}

// The host list build's form of neutral territory's rule (PairRule::nt_class, nt_row_classes:
// a candidate kept by its class, and by the cell order for two particles of this box) against
// lists_pair itself, for every head our column can hold and every candidate home within ±3
// boxes of ours, both orders.
TEST(PairRule, NeutralTerritoryClassesAreListsPair) {
  const Int3 C{1, -2, 3};
  const PairRule rule{Method::NeutralTerritory, C};
  int heads = 0, kept = 0;
  for (int hz = -3; hz <= 3; ++hz) {
    const Int3 hi = C + Int3{0, 0, hz};  // can_head: our column
    ASSERT_TRUE(rule.can_head(hz == 0, hi));
    const PairRule::RowClasses rc = rule.nt_row_classes(hi);
    ++heads;
    for (int oz = -3; oz <= 3; ++oz)
      for (int oy = -3; oy <= 3; ++oy)
        for (int ox = -3; ox <= 3; ++ox) {
          const Int3 hj = C + Int3{ox, oy, oz};
          const std::uint32_t cls = rule.nt_class(hj);
          for (const auto& [ki, kj] : {std::pair<int, int>{5, 9}, std::pair<int, int>{9, 5}}) {
            const bool by_class = (cls & rc.any) != 0 || ((cls & rc.after) != 0 && kj > ki);
            const bool listed =
                rule.lists_pair(hz == 0, hj == C, hi, hj, static_cast<std::uint64_t>(ki),
                                static_cast<std::uint64_t>(kj));
            ASSERT_EQ(by_class, listed) << "head offset z " << hz << ", candidate offset " << ox
                                        << "," << oy << "," << oz << ", orders " << ki << "," << kj;
            kept += listed;
          }
        }
  }
  // Heads outside our column head no row.
  EXPECT_FALSE(rule.can_head(false, C + Int3{1, 0, 0}));
  EXPECT_FALSE(rule.can_head(false, C + Int3{0, -1, 2}));
  EXPECT_EQ(heads, 7);
  EXPECT_GT(kept, 0);
}

TEST(ImportRegion, ClassifyFollowsTheMethodDefinitions) {
  // A box [0,2)x[0,3)x[0,4) at coord (1,1,1), R = 1.5.
  const double R = 1.5;
  auto region = [&](Method m) {
    return ImportRegion{m, {1, 1, 1}, {0, 0, 0}, {2, 3, 4}, R * R, R};
  };
  const Vec3 above_x{2.5, 1.0, 1.0};  // 0.5 beyond the +x face
  const Vec3 below_x{-0.5, 1.0, 1.0};
  const Vec3 far{3.6, 1.0, 1.0};     // 1.6 beyond: outside R
  const Vec3 corner{2.9, 3.9, 4.9};  // gaps 0.9 each: distance 1.56 > R
  const Vec3 near_corner{2.5, 3.5, 4.5};
  EXPECT_EQ(region(Method::FullShell).classify(above_x, {2, 1, 1}), ImportKind::Shell);
  EXPECT_EQ(region(Method::FullShell).classify(below_x, {0, 1, 1}), ImportKind::Shell);
  EXPECT_EQ(region(Method::FullShell).classify(far, {2, 1, 1}), ImportKind::None);
  EXPECT_EQ(region(Method::FullShell).classify(corner, {2, 2, 2}), ImportKind::None);
  EXPECT_EQ(region(Method::FullShell).classify(near_corner, {2, 2, 2}), ImportKind::Shell);
  EXPECT_EQ(region(Method::HalfShell).classify(above_x, {2, 1, 1}), ImportKind::Shell);
  EXPECT_EQ(region(Method::HalfShell).classify(below_x, {0, 1, 1}), ImportKind::None);
  EXPECT_EQ(region(Method::HalfShell).classify({1, 1, -0.5}, {1, 1, 0}), ImportKind::None);
  EXPECT_EQ(region(Method::HalfShell).classify({1, 1, 4.5}, {1, 1, 2}), ImportKind::Shell);
  EXPECT_EQ(region(Method::HalfShell).classify({-0.5, 3.5, 1}, {0, 2, 1}), ImportKind::None);
  EXPECT_EQ(region(Method::HalfShell).classify({2.5, -0.5, 1}, {2, 0, 1}), ImportKind::Shell);
  const ImportRegion nt = region(Method::NeutralTerritory);
  EXPECT_EQ(nt.classify({1, 1, 5.4}, {1, 1, 2}), ImportKind::Tower);
  EXPECT_EQ(nt.classify({1, 1, -1.4}, {1, 1, 0}), ImportKind::Tower);
  EXPECT_EQ(nt.classify({1, 1, 5.6}, {1, 1, 2}), ImportKind::None);
  EXPECT_EQ(nt.classify({2.5, 1, 2}, {2, 1, 1}), ImportKind::Plate);
  EXPECT_EQ(nt.classify({-0.5, 1, 2}, {0, 1, 1}), ImportKind::None);    // the other half plate
  EXPECT_EQ(nt.classify({2.5, 3.5, 2}, {2, 2, 1}), ImportKind::Plate);  // plate corner, r 0.71
  EXPECT_EQ(nt.classify({1, 3.5, 2}, {1, 2, 1}), ImportKind::Plate);
  EXPECT_EQ(nt.classify({1, -0.5, 2}, {1, 0, 1}), ImportKind::None);
  EXPECT_EQ(nt.classify({-0.5, 3.5, 2}, {0, 2, 1}), ImportKind::None);  // lex: x first
  EXPECT_EQ(nt.classify({2.5, 1, 4.5}, {2, 1, 2}), ImportKind::None);   // neither tower nor plate
}

// Neutral territory with angles (the bonded shell, R_b): the owner of an angle's vertex holds
// both its ends. Oracles by brute force: the box's distance to the point computed here, the home
// offsets of the tower and plate from DESIGN.md §4, and the pair rule itself.
TEST(ImportRegion, NeutralTerritoryBondedShellHoldsTheEndsOfItsAngles) {
  // A 3x3x3 grid of boxes of edge 3 (L = 9), box (1,1,1) = [3,6)³; bonds up to 2, skin 0.4:
  // R = 2.4 (one bond + skin: what R covers under neutral territory), R_b = 2.4.
  const double bond = 2.0, Rb = 2.4, R = 2.4;
  const ExportGeometry g{
      Method::NeutralTerritory, GridCuts::equal_boxes({3, 3, 3}, {9, 9, 9}), {9, 9, 9}, R, Rb};
  const ExportGeometry plain{
      Method::NeutralTerritory, GridCuts::equal_boxes({3, 3, 3}, {9, 9, 9}), {9, 9, 9}, R};
  const Int3 C{1, 1, 1};
  const ImportRegion region = g.region(C), nt = plain.region(C);
  const PairRule rule{Method::NeutralTerritory, C};
  auto home_of = [](Vec3 q) {
    return Int3{static_cast<int>(std::floor(q.x / 3)), static_cast<int>(std::floor(q.y / 3)),
                static_cast<int>(std::floor(q.z / 3))};
  };
  auto gap = [](double q) { return q < 3 ? 3 - q : (q > 6 ? q - 6 : 0.0); };
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int missing_without = 0, bonded_seen = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    // A vertex in the box, an end within one bond of it (a random direction and length).
    const Vec3 v{3 + 3 * u(rng), 3 + 3 * u(rng), 3 + 3 * u(rng)};
    Vec3 d{2 * u(rng) - 1, 2 * u(rng) - 1, 2 * u(rng) - 1};
    const double len = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    if (len < 1e-3 || len > 1) continue;
    const double r = bond * u(rng);
    const Vec3 e{v.x + d.x / len * r, v.y + d.y / len * r, v.z + d.z / len * r};
    const Int3 home = home_of(e);
    if (home == C) continue;  // owned by the box itself
    const ImportKind kind = region.classify(e, home), without = nt.classify(e, home);
    ASSERT_NE(kind, ImportKind::None) << "an end " << r << " from its vertex is not held";
    // The bonded shell adds to the tower and plate, changes none of them, and holds exactly the
    // rest within R_b.
    const double dist_sq = gap(e.x) * gap(e.x) + gap(e.y) * gap(e.y) + gap(e.z) * gap(e.z);
    if (without != ImportKind::None) {
      EXPECT_EQ(kind, without);
    } else {
      ++missing_without;
      EXPECT_EQ(kind, ImportKind::Bonded);
      EXPECT_LT(dist_sq, Rb * Rb);
    }
    if (kind != ImportKind::Bonded) continue;
    ++bonded_seen;
    // No pair rule lists a bonded-shell image: not with a particle of the box's column (a tower
    // or the box's own), nor with a plate particle (same layer, a positive column offset).
    EXPECT_FALSE(home.x == C.x && home.y == C.y) << "a bonded image in the column is a tower";
    EXPECT_FALSE(home.z == C.z && lex_sign({home.x - C.x, home.y - C.y, 0}) > 0);
    for (const Int3 other : {C, Int3{1, 1, 0}, Int3{1, 1, 2}, Int3{2, 1, 1}, Int3{1, 2, 1}}) {
      EXPECT_FALSE(rule.lists_pair(false, false, home, other, 1, 2));
      EXPECT_FALSE(rule.lists_pair(false, false, other, home, 1, 2));
    }
  }
  // The tower and plate alone miss many ends (why the shell exists); the trials reach them.
  EXPECT_GT(missing_without, 1000);
  EXPECT_GT(bonded_seen, 1000);
  // Beyond R_b, outside the tower and plate: not imported.
  EXPECT_EQ(region.classify({0.5, 0.5, 0.5}, {0, 0, 0}), ImportKind::None);    // 4.3 away
  EXPECT_EQ(region.classify({2.0, 2.0, 2.0}, {0, 0, 0}), ImportKind::Bonded);  // 1.7 away
  // Other methods ignore R_b.
  const ExportGeometry hs{Method::HalfShell, g.cuts, g.length, R, Rb};
  EXPECT_EQ(hs.region(C).bonded_r_sq, 0.0);
}

// ---- the whole selection, geometrically --------------------------------------------------

struct Image {
  Vec3 q;  // binning position x + S·L
  Int3 home;
  bool owned;
  Vec3 x;  // wrapped position
};

std::vector<Image> images_held(const ImportRegion& region, const RankGrid& grid, Vec3 x, Vec3 L) {
  std::vector<Image> out;
  const Int3 owner = grid.box_of(x);
  const Int3 dims = grid.dims();
  if (owner == region.coord) out.push_back({x, owner, true, x});
  for (int sz = -1; sz <= 1; ++sz)
    for (int sy = -1; sy <= 1; ++sy)
      for (int sx = -1; sx <= 1; ++sx) {
        const Int3 S{sx, sy, sz};
        if (owner == region.coord && S == Int3{0, 0, 0}) continue;
        const Vec3 q{x.x + sx * L.x, x.y + sy * L.y, x.z + sz * L.z};
        const Int3 home = owner + S * dims;
        if (region.classify(q, home) != ImportKind::None) out.push_back({q, home, false, x});
      }
  return out;
}

TEST(ImportAndPairRules, EachPairComputedByExactlyOneBox) {
  test::Rng rng(3);
  const Vec3 L{9.0, 10.0, 12.5};
  for (Method m : kMethods) {
    int checked = 0, periodic = 0, thin = 0;
    for (int t = 0; t < 2500; ++t) {
      const Int3 dims = random_int3(rng, 1, 4);
      const Box box = Box::make(L);
      const RankGrid grid(dims, box);
      const double R = rng.uniform(0.8, 4.4);  // L >= 2R
      thin += R > std::min({grid.sub_length().x, grid.sub_length().y, grid.sub_length().z});
      const Vec3 a{rng.uniform() * L.x, rng.uniform() * L.y, rng.uniform() * L.z};
      Vec3 d;
      do {
        d = {rng.uniform(-R, R), rng.uniform(-R, R), rng.uniform(-R, R)};
      } while (d.x * d.x + d.y * d.y + d.z * d.z >= R * R * (1 - 1e-9));
      const Vec3 raw{a.x + d.x, a.y + d.y, a.z + d.z};
      const Vec3 b{test::wrap_into(raw.x, L.x), test::wrap_into(raw.y, L.y),
                   test::wrap_into(raw.z, L.z)};
      const bool direct = b.x == raw.x && b.y == raw.y && b.z == raw.z;
      periodic += !direct;
      int boxes = 0;
      for (int r = 0; r < grid.size(); ++r) {
        const Int3 C = grid.coord_of(r);
        const ImportRegion region{
            m, C, grid.lo(C), grid.hi(C), R * R * (1 + 1e-12), R * (1 + 1e-12)};
        const PairRule rule{m, C, grid.cuts()};
        for (const Image& ia : images_held(region, grid, a, L))
          for (const Image& ib : images_held(region, grid, b, L)) {
            const double ex = ia.q.x - ib.q.x, ey = ia.q.y - ib.q.y, ez = ia.q.z - ib.q.z;
            if (ex * ex + ey * ey + ez * ez >= R * R) continue;
            // The particles' order on this box: any antisymmetric tie-break; ids a = 1, b = 2.
            const PairSide sa{ia.owned, ia.home, 1, 1, ia.x}, sb{ib.owned, ib.home, 2, 2, ib.x};
            boxes += rule.lists_pair(sa, sb) || rule.lists_pair(sb, sa);
          }
      }
      const bool same_owner = grid.box_of(a) == grid.box_of(b);
      const int expected = m == Method::FullShell && !(same_owner && direct) ? 2 : 1;
      ASSERT_EQ(boxes, expected) << method_name(m) << " grid " << dims.x << "x" << dims.y << "x"
                                 << dims.z << " R " << R << " a " << a.x << "," << a.y << "," << a.z
                                 << " b " << b.x << "," << b.y << "," << b.z;
      ++checked;
    }
    EXPECT_GT(periodic, 100);
    EXPECT_GT(thin, 300) << "boxes thinner than R must be exercised";
    RecordProperty(std::string(method_name(m)) + "_pairs", checked);
  }
}

// Sites of a lattice with 48 planes per axis (spacing h, box 48·h), cut into 8 equal boxes along
// x: the cuts at k·L/8 and the boundary at 0 lie on lattice planes, and so do the midpoints of
// the pairs (i, j) whose minimum-image sum i + j' is a multiple of 12 — exactly, but not in
// rounded arithmetic. Every such pair within R is listed by the box above the plane and by no
// other (before the tie, rounding gave part of the plane at 0 to the last box).
TEST(PairRule, MidpointTiesGoToTheBoxAbove) {
  const double h = 1.76298 / 2;
  const Vec3 L{48 * h, 48 * h, 48 * h};
  const Box box = Box::make(L);
  const RankGrid grid({8, 1, 1}, box);
  const double R = 2.8;
  const ExportGeometry geometry{Method::Midpoint, grid.cuts(), L, R};
  int ties = 0, rounded_below = 0;
  for (int i = 0; i < 48; ++i)
    for (int j = 0; j < 48; ++j)
      for (int dy = -2; dy <= 2; ++dy) {
        const int jm = j - i > 24 ? j - 48 : (i - j > 24 ? j + 48 : j);  // minimum image of j
        const int dx = i - jm;
        if ((i + jm) % 12 != 0 || (dx == 0 && dy == 0) || (dx * dx + dy * dy) * h * h >= R * R)
          continue;
        const Vec3 a{i * h, 5.5 * h, 2.5 * h}, b{j * h, (5.5 + dy) * h, 2.5 * h};
        const int plane = (i + jm) / 12;    // the midpoint's cut plane, -1 .. 8
        const int above = (plane + 8) % 8;  // the box above it
        const double m = a.x + 0.5 * ((b.x - a.x) + (jm - j) / 48 * L.x);  // as the rule does
        rounded_below += m < plane * grid.cuts().x.b;
        std::vector<int> listed;
        for (int r = 0; r < grid.size(); ++r) {
          const Int3 C = grid.coord_of(r);
          const ImportRegion region = geometry.region(C);
          const PairRule rule{Method::Midpoint, C, grid.cuts()};
          bool lists = false;
          for (const Image& ia : images_held(region, grid, a, L))
            for (const Image& ib : images_held(region, grid, b, L)) {
              const double ex = ia.q.x - ib.q.x, ey = ia.q.y - ib.q.y, ez = ia.q.z - ib.q.z;
              if (ex * ex + ey * ey + ez * ez >= R * R) continue;
              const PairSide sa{ia.owned, ia.home, 1, 1, ia.x}, sb{ib.owned, ib.home, 2, 2, ib.x};
              lists = lists || rule.lists_pair(sa, sb) || rule.lists_pair(sb, sa);
            }
          if (lists) listed.push_back(C.x);
        }
        ASSERT_EQ(listed.size(), 1u) << "sites " << i << ", " << j << " dy " << dy;
        EXPECT_EQ(listed[0], above) << "sites " << i << ", " << j << " dy " << dy;
        ++ties;
      }
  EXPECT_GT(ties, 100);
  EXPECT_GT(rounded_below, 0) << "some midpoints must round below their plane for this to test";
}

// Export selection on several OpenMP threads (export_selection.cpp) makes the list one thread
// makes, entry for entry and in the same order: the ghost order, and so the state hash, depend
// on it.
TEST(ExportSelection, SameListOnAnyThreadCount) {
  const Box box = Box::cube(24.0);
  const RankGrid grid({2, 3, 2}, box);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Int3 owner{1, 2, 0};
  const Vec3 lo = grid.lo(owner), hi = grid.hi(owner);
  std::vector<Vec3> x(30000);
  for (Vec3& q : x)
    q = {lo.x + u(rng) * (hi.x - lo.x), lo.y + u(rng) * (hi.y - lo.y),
         lo.z + u(rng) * (hi.z - lo.z)};
  const int before = omp_get_max_threads();
  for (const Method m : {Method::HalfShell, Method::NeutralTerritory, Method::FullShell,
                         Method::EighthShell, Method::Midpoint}) {
    const ExportSelector selector(grid, box, m, 2.8);
    omp_set_num_threads(1);
    ExportList one;
    selector.select(x, owner, one);
    ASSERT_GT(one.size(), 1000u) << "method " << static_cast<int>(m);
    for (const int threads : {2, 3, 5}) {
      omp_set_num_threads(threads);
      ExportList many;
      selector.select(x, owner, many);
      ASSERT_EQ(many.size(), one.size()) << threads << " threads";
      EXPECT_EQ(many.dest, one.dest);
      EXPECT_EQ(many.particle, one.particle);
      EXPECT_EQ(many.kind, one.kind);
      for (std::size_t k = 0; k < one.size(); ++k)
        ASSERT_TRUE(many.shift[k] == one.shift[k]) << "entry " << k;
    }
  }
  omp_set_num_threads(before);
}

// ExportSelector::select skips the particles farther than R from every face of their box
// (export_selection.cpp); the oracle is visit_exports itself, the whole rule, called on every
// particle: the same entries in the same order, for every method, equal and unequal boxes
// (cut planes moved), a grid of one box (only periodic images) and a box shorter than 2R, with
// particles placed near faces and edges too. The particles it does not skip go through the
// host's per-axis version of the rule (visit_exports_by_axis), or visit_exports itself where an
// axis has more images than its arrays hold (the box 1.2 long, R = 2.8); neutral territory with
// a bonded shell too.
TEST(ExportSelection, SkippingInteriorParticlesChangesNothing) {
  struct Case {
    Vec3 length;
    Int3 dims;
    double r;
    bool moved_cuts;
    double bonded = 0.0;
  };
  const Case cases[] = {
      {{24.0, 24.0, 24.0}, {2, 3, 2}, 2.8, false},     {{24.0, 20.0, 30.0}, {3, 2, 2}, 2.8, true},
      {{20.0, 20.0, 20.0}, {1, 1, 1}, 1.42, false},    {{9.0, 12.0, 5.0}, {1, 2, 1}, 2.8, false},
      {{24.0, 20.0, 30.0}, {3, 2, 2}, 2.8, true, 2.1}, {{1.2, 12.0, 30.0}, {1, 2, 3}, 2.8, false}};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const Case& c : cases) {
    const Box box = Box::make(c.length);
    RankGrid grid(c.dims, box);
    if (c.moved_cuts) {
      GridCuts cuts = grid.cuts();
      cuts.x = AxisCuts::moved({7.0, 16.0}, c.length.x);  // boxes of 7, 9 and 8 along x
      grid.set_cuts(cuts);
    }
    for (int r = 0; r < grid.size(); ++r) {
      const Int3 owner = grid.coord_of(r);
      const Vec3 lo = grid.lo(owner), hi = grid.hi(owner);
      std::vector<Vec3> x(4000);
      for (std::size_t i = 0; i < x.size(); ++i) {
        // A third uniform, the rest within R·(1 ± 1e-5) of a face or at a face exactly.
        auto coord = [&](double a, double b) {
          const double w = u(rng);
          if (i % 3 == 0 || w < 0.3) return a + u(rng) * (b - a);
          const double d = c.r * (1.0 + (u(rng) - 0.5) * 2e-5);
          const double q = w < 0.6 ? a + d : (w < 0.9 ? b - d : a);
          return q < a ? a : (q >= b ? a : q);
        };
        x[i] = {coord(lo.x, hi.x), coord(lo.y, hi.y), coord(lo.z, hi.z)};
      }
      for (const Method m : kAllMethods) {
        SCOPED_TRACE(std::string(method_name(m)) + " box " + std::to_string(r));
        const ExportSelector selector(grid, box, m, c.r, c.bonded);
        ExportList got;
        selector.select(x, owner, got);
        ExportList want;
        const ExportGeometry g{m, grid.cuts(), box.length, c.r, c.bonded};
        for (std::size_t i = 0; i < x.size(); ++i)
          visit_exports(g, x[i], owner, [&](std::uint32_t, Int3 S, Int3, Int3 X, ImportKind kind) {
            want.dest.push_back(static_cast<std::uint32_t>(grid.rank_of(X)));
            want.particle.push_back(static_cast<std::uint32_t>(i));
            want.shift.push_back(S);
            want.kind.push_back(kind);
          });
        ASSERT_EQ(got.size(), want.size());
        EXPECT_GT(want.size(), 0u);
        EXPECT_EQ(got.dest, want.dest);
        EXPECT_EQ(got.particle, want.particle);
        EXPECT_EQ(got.kind, want.kind);
        for (std::size_t k = 0; k < want.size(); ++k)
          ASSERT_TRUE(got.shift[k] == want.shift[k]) << "entry " << k;
      }
    }
  }
}

}  // namespace
}  // namespace scanmd
