// tests/engine/test_lattice.cpp — lattice starts in a region (engine/lattice.hpp, [region] decks).
//
// Oracle: the whole lattice in LAMMPS' one-process order (k, j, i, basis; for_each_site over the
// whole box) filtered by the region and numbered 1..N as it goes — what `create_atoms ... region`
// gives on one process. for_each_site_in, called per sub-box of several grids with ownership by
// sub-box (as each rank calls it), must emit exactly those (id, position) pairs, each once, and
// count_in must be N. Regions: a slab across z, a slab across x, a sphere, and the whole box (whose
// ids must equal for_each_site's).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "engine/config.hpp"
#include "engine/lattice.hpp"

namespace scanmd {
namespace {

using Sites = std::map<std::uint64_t, std::tuple<double, double, double>>;

Sites oracle(const FccLattice& lattice, const RegionSection& region) {
  Sites out;
  std::uint64_t n = 0;
  const Vec3 L = lattice.box().length;
  lattice.for_each_site(
      {0, 0, 0}, L, [](Vec3) { return true; },
      [&](std::uint64_t, Vec3 x) {
        if (region.contains(x)) out[++n] = {x.x, x.y, x.z};
      });
  return out;
}

Sites by_pieces(const FccLattice& lattice, const RegionSection& region, Int3 pieces) {
  Sites out;
  const Vec3 L = lattice.box().length;
  const Vec3 b{L.x / pieces.x, L.y / pieces.y, L.z / pieces.z};
  auto piece_of = [&](Vec3 x) {
    return Int3{std::min(pieces.x - 1, static_cast<int>(x.x / b.x)),
                std::min(pieces.y - 1, static_cast<int>(x.y / b.y)),
                std::min(pieces.z - 1, static_cast<int>(x.z / b.z))};
  };
  for (int pz = 0; pz < pieces.z; ++pz)
    for (int py = 0; py < pieces.y; ++py)
      for (int px = 0; px < pieces.x; ++px) {
        const Int3 c{px, py, pz};
        lattice.for_each_site_in(
            [&](Vec3 x) { return region.contains(x); }, {px * b.x, py * b.y, pz * b.z},
            {(px + 1) * b.x, (py + 1) * b.y, (pz + 1) * b.z},
            [&](Vec3 x) { return piece_of(x) == c; },
            [&](std::uint64_t id, Vec3 x) {
              EXPECT_TRUE(out.emplace(id, std::make_tuple(x.x, x.y, x.z)).second)
                  << "id " << id << " emitted twice";
            });
      }
  return out;
}

TEST(LatticeRegion, IdsContiguousInLammpsOrderWhateverTheSplit) {
  const FccLattice lattice = FccLattice::from_density(0.73, {5, 6, 9});
  const Vec3 L = lattice.box().length;
  RegionSection slab_z;
  slab_z.style = RegionStyle::Slab;
  slab_z.axis = 2;
  slab_z.lo = 0.31 * L.z;
  slab_z.hi = 0.77 * L.z;
  RegionSection slab_x = slab_z;
  slab_x.axis = 0;
  slab_x.lo = 0.0;
  slab_x.hi = 0.5 * L.x;
  RegionSection sphere;
  sphere.style = RegionStyle::Sphere;
  sphere.center = {0.5 * L.x, 0.4 * L.y, 0.6 * L.z};
  sphere.radius = 3.1;
  for (const auto& [name, region] : {std::pair<std::string, RegionSection>{"slab z", slab_z},
                                     {"slab x", slab_x},
                                     {"sphere", sphere},
                                     {"box", RegionSection{}}}) {
    SCOPED_TRACE(name);
    const Sites want = oracle(lattice, region);
    ASSERT_GT(want.size(), 50u);
    ASSERT_LT(want.size(), name == "box" ? lattice.site_count() + 1 : lattice.site_count());
    const RegionSection& r = region;  // (a structured binding: clang 14 cannot capture it)
    EXPECT_EQ(lattice.count_in([&r](Vec3 x) { return r.contains(x); }), want.size());
    EXPECT_EQ(want.rbegin()->first, want.size());  // 1..N
    for (const Int3 pieces : {Int3{1, 1, 1}, Int3{2, 3, 2}, Int3{1, 1, 7}, Int3{4, 1, 1}}) {
      SCOPED_TRACE("pieces " + std::to_string(pieces.x) + "x" + std::to_string(pieces.y) + "x" +
                   std::to_string(pieces.z));
      EXPECT_TRUE(by_pieces(lattice, region, pieces) == want);
    }
  }
  // The whole box numbers the sites as for_each_site does.
  Sites plain;
  lattice.for_each_site(
      {0, 0, 0}, L, [](Vec3) { return true; },
      [&](std::uint64_t id, Vec3 x) {
        plain[id] = {x.x, x.y, x.z};
      });
  EXPECT_TRUE(plain == oracle(lattice, RegionSection{}));
}

}  // namespace
}  // namespace scanmd
