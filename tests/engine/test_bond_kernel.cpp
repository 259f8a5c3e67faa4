// The AVX-512 FENE block of the bonded force pass (engine/bond_fene_avx512.hpp) against its
// oracle, the scalar terms of the same bonds (bond_geometry, BondFene::eval without energy,
// bond_fixed: what engine/bonded_forces.cpp computes one bond at a time): the same fixed-point
// forces, bit for bit, over stretched and compressed bonds, across the periodic boundary, two
// bond types, blocks of 1 to 8 bonds; and the blocks it must leave to the scalar loop.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "base/box.hpp"
#include "engine/bond_fene_avx512.hpp"
#include "engine/pair_kernel.hpp"
#include "physics/bonded/bond_fene.hpp"
#include "physics/bonded/bonded_terms.hpp"

namespace scanmd {
namespace {

struct Bonds {
  std::vector<Vec3> x;
  std::vector<BondedTerm> terms;
};

// n bonds between fresh atom pairs at distances in [r_lo, r_hi), random directions, some
// partners wrapped across the boundary of a box of edge 10; types 1 and 2 alternating, or all 2.
Bonds random_bonds(std::size_t n, double r_lo, double r_hi, std::uint32_t seed,
                   bool two_types = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0), g(-1.0, 1.0);
  Bonds b;
  const double L = 10.0;
  auto wrap = [&](double q) { return q - L * std::floor(q / L); };
  for (std::size_t k = 0; k < n; ++k) {
    const Vec3 a{u(rng) * L, u(rng) * L, u(rng) * L};
    Vec3 d{g(rng), g(rng), g(rng)};
    const double norm = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    const double r = r_lo + (r_hi - r_lo) * u(rng);
    d = {d.x * r / norm, d.y * r / norm, d.z * r / norm};
    b.x.push_back(a);
    b.x.push_back({wrap(a.x + d.x), wrap(a.y + d.y), wrap(a.z + d.z)});
    const auto i = static_cast<std::uint32_t>(2 * k);
    const auto type = static_cast<std::uint32_t>(two_types ? 1 + k % 2 : 2);
    b.terms.push_back({{i, i + 1, 0}, type, 2, 3, true});
  }
  return b;
}

const std::vector<BondCoeff> kCoeff = {{30.0, 1.5, 1.0, 1.0}, {20.0, 1.3, 0.7, 0.9}};

TEST(FeneAvx512, SameBitsAsTheScalarTerms) {
  if (!cpu_runs(PairKernel::Avx512)) GTEST_SKIP() << "this CPU cannot run AVX-512";
  const Box box = Box::cube(10.0);
  // From compressed (the WCA part on) to stretched past the held rlogarg (r > 0.95 R0); blocks
  // of two types (the coefficients gathered per lane) and of one (broadcast).
  for (const bool two_types : {true, false}) {
    const Bonds b = random_bonds(2000, 0.7, 1.47, 5, two_types);
    int lj = 0, held = 0;
    for (std::size_t k = 0; k < b.terms.size();) {
      const std::size_t m = 1 + k % 8;  // blocks of every length
      const std::size_t count = std::min(m, b.terms.size() - k);
      std::int64_t fx[8], fy[8], fz[8];
      ASSERT_TRUE(fene_forces_avx512(b.x.data(), b.terms.data() + k, count, kCoeff.data(),
                                     box.length, box.half_length, fx, fy, fz));
      for (std::size_t l = 0; l < count; ++l) {
        const BondedTerm& t = b.terms[k + l];
        const BondCoeff& c = kCoeff[t.type - 1];
        const BondGeometry geo =
            bond_geometry(b.x[t.at[0]], b.x[t.at[1]], box.length, box.half_length);
        const BondTerms terms = BondFene::eval(geo.rsq, c, false);
        bool overflow = false;
        const BondFixed want = bond_fixed(geo, terms, false, overflow);
        ASSERT_FALSE(overflow);
        lj += geo.rsq < 1.2599210498948732 * c.sigma * c.sigma;
        held += 1.0 - geo.rsq / (c.r0 * c.r0) < 0.1;
        EXPECT_EQ(fx[l], want.f.x) << "bond " << k + l;
        EXPECT_EQ(fy[l], want.f.y) << "bond " << k + l;
        EXPECT_EQ(fz[l], want.f.z) << "bond " << k + l;
      }
      k += count;
    }
    EXPECT_GT(lj, 100);   // the WCA part of FENE is exercised
    EXPECT_GT(held, 10);  // and the held logarithm's argument
  }
}

TEST(FeneAvx512, LeavesBadBondsAndHugeForcesToTheScalarLoop) {
  if (!cpu_runs(PairKernel::Avx512)) GTEST_SKIP() << "this CPU cannot run AVX-512";
  const Box box = Box::cube(10.0);
  std::int64_t fx[8], fy[8], fz[8];
  Bonds b = random_bonds(8, 0.9, 1.1, 6);
  ASSERT_TRUE(fene_forces_avx512(b.x.data(), b.terms.data(), 8, kCoeff.data(), box.length,
                                 box.half_length, fx, fy, fz));
  // A bad bond (r >= 2 R0: rlogarg <= −3) in the last lane.
  Bonds bad = b;
  bad.x[15] = {bad.x[14].x + 3.1, bad.x[14].y, bad.x[14].z};
  EXPECT_FALSE(fene_forces_avx512(bad.x.data(), bad.terms.data(), 8, kCoeff.data(), box.length,
                                  box.half_length, fx, fy, fz));
  // ... but not counted when its lane is past the block's end.
  EXPECT_TRUE(fene_forces_avx512(bad.x.data(), bad.terms.data(), 7, kCoeff.data(), box.length,
                                 box.half_length, fx, fy, fz));
  // Overlapping atoms: the WCA force beyond the fixed point's range.
  Bonds huge = b;
  huge.x[1] = {huge.x[0].x + 1e-5, huge.x[0].y, huge.x[0].z};
  EXPECT_FALSE(fene_forces_avx512(huge.x.data(), huge.terms.data(), 8, kCoeff.data(), box.length,
                                  box.half_length, fx, fy, fz));
}

}  // namespace
}  // namespace scanmd
