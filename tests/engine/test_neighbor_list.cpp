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

#include <algorithm>
#include <cmath>
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

void check_list(const std::string& name, const std::vector<Vec3>& x, Vec3 L, double R, Method m) {
  SCOPED_TRACE(name + " " + std::string(method_name(m)));
  Communicator comm(MPI_COMM_WORLD);
  ASSERT_EQ(comm.size(), 1);
  long long ambiguous = 0;
  const std::vector<test::BrutePair> want = test::brute_pairs_within(x, L, R, &ambiguous);
  ASSERT_EQ(ambiguous, 0);

  std::size_t ghosts = 0;
  const std::vector<test::ListedPair> got =
      test::listed_pairs(comm, x, L, m, R, {1, 1, 1}, &ghosts);
  EXPECT_GT(ghosts, 0u) << "periodic images expected";

  std::map<std::pair<std::uint64_t, std::uint64_t>, std::pair<int, double>> seen;
  for (const test::ListedPair& p : got) {
    ASSERT_NE(p.a, p.b) << "a particle listed with its own image";
    ASSERT_LT(p.d_sq, test::kListReach * test::kListReach * R * R)
        << "pair " << p.a << "-" << p.b << " listed beyond R";
    ASSERT_TRUE(p.minimum_image) << "pair " << p.a << "-" << p.b << " listed with a wrong image";
    auto& s = seen[{p.a, p.b}];
    ++s.first;
    s.second = p.d_sq;
  }
  std::size_t periodic = 0;
  for (const test::BrutePair& w : want) {
    const int expected = m == Method::FullShell && !w.direct ? 2 : 1;
    periodic += !w.direct;
    auto it = seen.find({w.a, w.b});
    const int count = it == seen.end() ? 0 : it->second.first;
    ASSERT_EQ(count, expected) << "pair " << w.a << "-" << w.b
                               << (w.direct ? " (direct)" : " (periodic)");
    if (it != seen.end()) seen.erase(it);
  }
  EXPECT_GT(periodic, 0u);
  // What is left lies beyond R, within the search sphere's reach (checked above), once (twice
  // through a ghost in full shell).
  for (const auto& [pair, s] : seen) {
    EXPECT_GE(s.second, R * R) << "pair " << pair.first << "-" << pair.second;
    EXPECT_LE(s.first, m == Method::FullShell ? 2 : 1)
        << "pair " << pair.first << "-" << pair.second;
  }
}

void check_list(const ListCase& c, Method m) {
  const std::vector<Vec3> x = test::random_positions(c.n, c.L, 0.8, 4242 + c.n);
  ASSERT_GT(test::brute_pairs_within(x, c.L, c.R).size(), 5 * c.n);
  check_list(c.name, x, c.L, c.R, m);
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

// The search test runs in float (engine/pair_candidate.hpp): pairs a hair inside R, far from
// the grid's origin where a float coordinate errs most (a 60σ box: 4e-6), are all listed, and
// pairs 1e-4·R beyond R are not. Pairs at R·(1 − 1e-9) or R·(1 + 1e-4) in random directions,
// their centres 10σ apart (within 0.25σ of a lattice site 1σ from the faces: no other particle
// within R), some
// across the periodic faces.
TEST_P(NeighborListCompleteness, PairsJustInsideRListedFarFromTheOrigin) {
  const double R = 2.8, a = 10.0;
  const Vec3 L{60.0, 60.0, 60.0};
  std::vector<Vec3> x;
  std::uint64_t state = 12345;
  auto uniform = [&] {  // (0, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (static_cast<double>(state >> 11) + 0.5) * 0x1p-53;
  };
  auto wrap = [&](double v, double l) { return v < 0 ? v + l : (v >= l ? v - l : v); };
  auto site = [&](int c) { return a * c + 1.0 + 0.5 * (uniform() - 0.5); };
  for (int cz = 0; cz < 6; ++cz)
    for (int cy = 0; cy < 6; ++cy)
      for (int cx = 0; cx < 6; ++cx) {
        const Vec3 c{site(cx), site(cy), site(cz)};
        const double ct = 2 * uniform() - 1, phi = 2 * 3.141592653589793 * uniform();
        const double st = std::sqrt(1 - ct * ct);
        const double d = (cx + cy + cz) % 2 == 0 ? R * (1 - 1e-9) : R * (1 + 1e-4);
        const Vec3 u{st * std::cos(phi), st * std::sin(phi), ct};
        x.push_back(c);
        x.push_back({wrap(c.x + d * u.x, L.x), wrap(c.y + d * u.y, L.y), wrap(c.z + d * u.z, L.z)});
      }
  ASSERT_EQ(test::brute_pairs_within(x, L, R).size(), 108u);
  check_list("just_inside_R", x, L, R, GetParam());
}

// The most terms of one slot, as row and as neighbour, counted over the entries: the oracle of
// the list's max_terms() (the bound of each term's fixed-point value, engine/fixed_terms.hpp).
std::uint32_t most_terms(const std::vector<test::ListedPair>& entries) {
  std::map<std::uint32_t, std::uint32_t> terms;
  for (const test::ListedPair& e : entries) {
    ++terms[e.row];
    ++terms[e.slot];
  }
  std::uint32_t most = 0;
  for (const auto& [slot, t] : terms) most = std::max(most, t);
  return most;
}

// Lists entry for entry the same (`what` names the case).
void expect_same_list(const std::vector<test::ListedPair>& got,
                      const std::vector<test::ListedPair>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t e = 0; e < want.size(); ++e)
    ASSERT_TRUE(got[e].a == want[e].a && got[e].b == want[e].b && got[e].d_sq == want[e].d_sq)
        << what << " entry " << e;
}

// Also with the owned particles in cell order (as after a rebuild's sort), where the AVX-512
// build scans the rows of neighbouring cells together; and each list's max_terms() is the
// count of its entries (the threads count their shares of the list).
TEST_P(NeighborListCompleteness, SameListWithEveryKernelAndThreadCount) {
  Communicator comm(MPI_COMM_WORLD);
  for (const ListCase& c : kCases)
    for (bool sorted : {false, true}) {
      const std::vector<Vec3> x = test::random_positions(c.n, c.L, 0.8, 4242 + c.n);
      const auto want = test::listed_pairs(comm, x, c.L, GetParam(), c.R, {1, 1, 1}, nullptr,
                                           PairKernel::Scalar, 1, sorted);
      int compared = 0;
      for (PairKernel k : {PairKernel::Scalar, PairKernel::Avx2, PairKernel::Avx512}) {
        if (!cpu_runs(k)) continue;
        for (int threads : {1, 2, 3}) {
          std::uint32_t max_terms = 0;
          const auto got = test::listed_pairs(comm, x, c.L, GetParam(), c.R, {1, 1, 1}, nullptr, k,
                                              threads, sorted, &max_terms);
          const std::string what = c.name + (sorted ? " sorted " : " ") + pair_kernel_name(k) +
                                   " x" + std::to_string(threads);
          expect_same_list(got, want, what);
          EXPECT_EQ(max_terms, most_terms(got)) << what;
          ++compared;
        }
      }
      EXPECT_GE(compared, 3);
    }
}

// The AVX-512 build scans the rows of two neighbouring cells over runs one cell longer than
// each row's own; a row must not list a candidate of the cell beyond its reach, even one within
// the float search sphere (a little wider than R). Sparse particles (cells of edge R, reach 1)
// in a box whose cells are a hair longer than R: i near the top of cell 5, i2 in cell 6 (rows
// scanned together), j in cell 7 at R + 1e-5 from i — within the float sphere, outside i's
// stencil (cells 4 to 6): the scalar build does not list it under i, nor may the AVX-512 one.
TEST(NeighborListCellRows, RowsScannedTogetherListOnlyTheirOwnCells) {
  if (!cpu_runs(PairKernel::Avx512)) GTEST_SKIP() << "this CPU cannot run avx512";
  Communicator comm(MPI_COMM_WORLD);
  const double R = 2.8;
  const double e = 14.0 * R * (1.0 + 1e-7);  // the grid: the box and R of pad each side
  const double edge = e / 14.0;
  const Vec3 L{e - 2.0 * R, e - 2.0 * R, e - 2.0 * R};
  const double origin = -R, mid = 0.5 * L.y;
  const double xi = origin + 6.0 * edge - 1e-6;
  const std::vector<Vec3> x{
      {xi, mid, mid}, {origin + 6.0 * edge + 0.5, mid, mid}, {xi + edge + 1e-5, mid, mid}};
  ASSERT_GT((x[2].x - x[0].x), R);
  for (Method m : {Method::HalfShell, Method::FullShell}) {
    const auto want =
        test::listed_pairs(comm, x, L, m, R, {1, 1, 1}, nullptr, PairKernel::Scalar, 1, true);
    const auto got =
        test::listed_pairs(comm, x, L, m, R, {1, 1, 1}, nullptr, PairKernel::Avx512, 1, true);
    for (const auto& p : want) EXPECT_FALSE(p.a == 1 && p.b == 3) << "the scalar build lists 1-3";
    expect_same_list(got, want, std::string(method_name(m)));
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
