// tests/engine/test_neighbor_list.cpp — completeness and uniqueness of the neighbour list on one
// rank (engine/neighbor_list.hpp with the halo of decomposition/ and the cell list).
//
// The list is built from the public pieces exactly as Simulation::rebuild builds it
// (test_support.hpp: listed_pairs); the Simulation does not expose its NeighborList.
// Oracle: brute_pairs_within — every minimum-image pair of ids closer than R = r_c + skin.
// Half shell, neutral territory, eighth shell and midpoint: every such pair listed exactly
// once in the union of rows,
// under the right periodic image, and nothing at distance >= R. Full shell: a pair is listed
// once when both particles are owned and interact directly, twice when it goes through a ghost
// (periodic image on one rank): each side lists it.
// Cases: dense cells (edge R/2, reach 2) and sparse ones (edge R, reach 1).
// Build options: every candidate-scan kernel the CPU runs and 1–3 threads give the scalar,
// one-thread list entry for entry (same rows, same order).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/simulation.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

struct ListCase {
  std::string name;
  Vec3 L;
  std::size_t n;
  double R;
};

void check_list(const ListCase& c, Method m) {
  SCOPED_TRACE(c.name + " " + std::string(method_name(m)));
  Communicator comm(MPI_COMM_WORLD);
  ASSERT_EQ(comm.size(), 1);
  const std::vector<Vec3> x = test::random_positions(c.n, c.L, 0.8, 4242 + c.n);
  long long ambiguous = 0;
  const std::vector<test::BrutePair> want = test::brute_pairs_within(x, c.L, c.R, &ambiguous);
  ASSERT_EQ(ambiguous, 0);
  ASSERT_GT(want.size(), 5 * c.n);

  std::size_t ghosts = 0;
  const std::vector<test::ListedPair> got =
      test::listed_pairs(comm, x, c.L, m, c.R, {1, 1, 1}, &ghosts);
  EXPECT_GT(ghosts, 0u) << "periodic images expected";

  std::map<std::pair<std::uint64_t, std::uint64_t>, int> seen;
  for (const test::ListedPair& p : got) {
    ASSERT_NE(p.a, p.b) << "a particle listed with its own image";
    ASSERT_LT(p.d_sq, c.R * c.R) << "pair " << p.a << "-" << p.b << " listed beyond R";
    ASSERT_TRUE(p.minimum_image) << "pair " << p.a << "-" << p.b << " listed with a wrong image";
    ++seen[{p.a, p.b}];
  }
  std::size_t periodic = 0;
  for (const test::BrutePair& w : want) {
    const int expected = m == Method::FullShell && !w.direct ? 2 : 1;
    periodic += !w.direct;
    auto it = seen.find({w.a, w.b});
    const int count = it == seen.end() ? 0 : it->second;
    ASSERT_EQ(count, expected) << "pair " << w.a << "-" << w.b
                               << (w.direct ? " (direct)" : " (periodic)");
    if (it != seen.end()) seen.erase(it);
  }
  EXPECT_GT(periodic, 0u);
  EXPECT_TRUE(seen.empty()) << seen.size() << " listed pairs are not within R, e.g. "
                            << seen.begin()->first.first << "-" << seen.begin()->first.second;
}

const ListCase kCases[] = {
    {"cube", {8.5, 8.5, 8.5}, 500, 2.8},
    {"non_cubic", {5.7, 6.4, 9.1}, 250, 2.8},  // edges close to 2R
    {"large_R", {9.0, 9.0, 9.0}, 500, 4.3},
    // Under one particle per R/2 cell (0.8 · 0.8³ = 0.41): cells of edge R, reach 1
    // (engine/cell_list.hpp), as in a WCA fluid.
    {"sparse_cells", {10.0, 10.0, 10.0}, 800, 1.6},
};

class NeighborListCompleteness : public ::testing::TestWithParam<Method> {};

TEST_P(NeighborListCompleteness, EveryPairWithinROnceNothingBeyond) {
  for (const ListCase& c : kCases) check_list(c, GetParam());
}

TEST_P(NeighborListCompleteness, SameListWithEveryKernelAndThreadCount) {
  Communicator comm(MPI_COMM_WORLD);
  for (const ListCase& c : kCases) {
    const std::vector<Vec3> x = test::random_positions(c.n, c.L, 0.8, 4242 + c.n);
    const auto want = test::listed_pairs(comm, x, c.L, GetParam(), c.R, {1, 1, 1});
    int compared = 0;
    for (PairKernel k : {PairKernel::Scalar, PairKernel::Avx2, PairKernel::Avx512}) {
      if (!cpu_runs(k)) continue;
      for (int threads : {1, 2, 3}) {
        const auto got =
            test::listed_pairs(comm, x, c.L, GetParam(), c.R, {1, 1, 1}, nullptr, k, threads);
        ASSERT_EQ(got.size(), want.size())
            << c.name << " " << pair_kernel_name(k) << " x" << threads;
        for (std::size_t e = 0; e < want.size(); ++e)
          ASSERT_TRUE(got[e].a == want[e].a && got[e].b == want[e].b && got[e].d_sq == want[e].d_sq)
              << c.name << " " << pair_kernel_name(k) << " x" << threads << " entry " << e;
        ++compared;
      }
    }
    EXPECT_GE(compared, 3);
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, NeighborListCompleteness, ::testing::ValuesIn(kAllMethods),
                         [](const auto& info) {
                           std::string s(method_name(info.param));
                           std::erase(s, '-');
                           return s;
                         });

}  // namespace
}  // namespace scanmd
