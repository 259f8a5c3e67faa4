// tests/engine/test_pair_kernel.cpp — the vector pair kernels (engine/pair_rows.hpp) and their
// run-time choice (engine/pair_kernel.hpp), for every vector pair style.
//
// Oracle: the scalar terms, pair by pair — pair_displacement, the style's eval and pair_force_fixed
// (base/box.hpp, engine/fixed_terms.hpp), +F on i and −F on j — over a synthetic CSR list of random
// rows: lengths 0 to 40 (every tail of the 4- and 8-lane loops), neighbours in random order, pairs
// across the periodic boundary, a third beyond the cutoff. Each kernel this CPU runs must give
// exactly the oracle's force integers and pair count; a pair whose term is out of range must be
// reported as an overflow; on a thermo step's pass (PairRows::energy) the energy and virial sums
// too. A kernel the CPU lacks is skipped with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/cluster_list.hpp"
#include "engine/fixed_terms.hpp"
#include "engine/pair_clusters.hpp"
#include "engine/pair_kernel.hpp"
#include "engine/pair_rows.hpp"
#include "physics/pair/styles.hpp"
#include "physics/pair/table_file.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

struct Rows {
  std::vector<Vec3> x;
  std::vector<std::uint32_t> offsets, neighbors;
  Vec3 L;
};

// Random positions (no two closer than `closest`) and rows of random other particles within 2.8
// of the row's particle (minimum image), some beyond the 2.5 cutoff.
Rows random_rows(std::uint64_t seed, double closest = 0.8) {
  Rows r;
  r.L = {9.3, 8.1, 10.7};
  r.x = test::random_positions(600, r.L, closest, seed);
  test::Rng rng(seed + 1);
  const std::size_t n = r.x.size();
  r.offsets.push_back(0);
  const Vec3 H{r.L.x / 2, r.L.y / 2, r.L.z / 2};
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::uint32_t> near;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const Vec3 d = pair_displacement(r.x[i], r.x[j], r.L, H);
      if (d.x * d.x + d.y * d.y + d.z * d.z < 2.8 * 2.8)
        near.push_back(static_cast<std::uint32_t>(j));
    }
    for (std::size_t k = near.size(); k > 1; --k)  // Fisher–Yates: neighbours in random order
      std::swap(near[k - 1],
                near[static_cast<std::size_t>(rng.integer(0, static_cast<int>(k) - 1))]);
    near.resize(std::min<std::size_t>(near.size(), static_cast<std::size_t>(rng.integer(0, 40))));
    r.neighbors.insert(r.neighbors.end(), near.begin(), near.end());
    r.offsets.push_back(static_cast<std::uint32_t>(r.neighbors.size()));
  }
  return r;
}

// Each vector style with coefficients of its natural units, cutoff 2.5: its deck example unless
// specialised below.
template <class E>
typename E::Params params_of() {
  Coefficients c{};
  for (std::size_t i = 0; i < E::kExample.size(); ++i) c[i] = E::kExample[i];
  for (std::size_t g = 0; g < E::kGlobalExample.size(); ++g)
    c[E::kCoefficients.size() + g] = E::kGlobalExample[g];
  return E::make(c, 2.5, E::kShift);
}
template <>
LJCut::Params params_of<LJCut>() {
  return LJCut::make({1.0, 1.0}, 2.5, false);
}
template <>
Morse::Params params_of<Morse>() {
  return Morse::make({1.0, 5.0, 1.0}, 2.5, false);
}
template <>
LJSmoothLinear::Params params_of<LJSmoothLinear>() {
  return LJSmoothLinear::make({1.0, 1.0}, 2.5, false);
}
template <>
Yukawa::Params params_of<Yukawa>() {
  return Yukawa::make({1.0, 2.0}, 2.5, true);  // a, kappa
}
template <>
Gauss::Params params_of<Gauss>() {
  return Gauss::make({-1.0, 1.5}, 2.5, true);
}
template <>
Buck::Params params_of<Buck>() {
  return Buck::make({1000.0, 0.2, 1.0}, 2.5, false);
}
template <>
MieCut::Params params_of<MieCut>() {
  return MieCut::make({1.0, 1.0, 14.0, 6.5}, 2.5, true);
}
template <>
Soft::Params params_of<Soft>() {
  return Soft::make({10.0}, 2.5, false);
}
// LJ tabulated from r = 0.75 (below the rows' closest pairs, 0.8) to 2.5, 300 points, onto 1000
// internal points: spline, or linear when table_linear is set.
bool table_linear = false;
template <>
Table::Params params_of<Table>() {
  static std::vector<double> blocks[2];
  std::vector<double>& block = blocks[table_linear ? 0 : 1];
  if (block.empty()) {
    std::string text = "LJ\nN 300\n\n";
    for (int i = 0; i < 300; ++i) {
      const double r = 0.75 + (2.5 - 0.75) * i / 299.0, s6 = 1 / (r * r * r * r * r * r);
      text += std::to_string(i + 1) + " " + std::to_string(r) + " " +
              std::to_string(4 * (s6 * s6 - s6)) + " " +
              std::to_string(24 * (2 * s6 * s6 - s6) / r) + "\n";
    }
    const table::Internal t = table::build(
        table::parse_section(text, "lj", "LJ"),
        table_linear ? table::Interpolation::Linear : table::Interpolation::Spline, 1000, 2.5);
    block = {1000.0, table_linear ? 0.0 : 1.0, t.innersq, t.invdelta, t.deltasq6};
    block.insert(block.end(), t.arrays.begin(), t.arrays.end());
  }
  return Table::make({}, 2.5, false, block.data());
}

template <class E>
PairRows<E> rows_of(const Rows& r, double limit_sq) {
  return {r.offsets.data(),
          r.neighbors.data(),
          r.x.data(),
          r.L,
          {r.L.x / 2, r.L.y / 2, r.L.z / 2},
          params_of<E>(),
          limit_sq};
}

template <class E>
RowsTotals run(PairKernel k, const PairRows<E>& rows, std::size_t b, std::size_t e, Fix3* f) {
  return k == PairKernel::Avx512 ? pair_rows_avx512<E>(rows, b, e, f)
                                 : pair_rows_avx2<E>(rows, b, e, f);
}

// The scalar loop's terms, one pair at a time (with `energy`: its energy and virial sums too).
template <class E>
RowsTotals oracle(const PairRows<E>& rows, std::size_t n, std::vector<Fix3>& f,
                  fixed::Wide* energy = nullptr, fixed::Wide* virial = nullptr) {
  RowsTotals t;
  for (std::size_t i = 0; i < n; ++i)
    for (std::uint32_t k = rows.offsets[i]; k < rows.offsets[i + 1]; ++k) {
      const std::uint32_t j = rows.neighbors[k];
      const Vec3 d = pair_displacement(rows.x[i], rows.x[j], rows.length, rows.half_length);
      const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      const typename E::Params& params =
          rows.type != nullptr ? rows.table[rows.type[i] * rows.types + rows.type[j]] : rows.params;
      if (r2 >= params.cutoff_sq) continue;
      ++t.pairs;
      const PairTerms<double> terms = E::eval(r2, params);
      const Fix3 F = pair_force_fixed(d, r2, terms, rows.limit_sq, t.overflow);
      if (energy != nullptr) {
        *energy += pair_energy_fixed(terms, t.overflow);
        *virial += pair_virial_fixed(terms, r2, t.overflow);
      }
      f[i].x += F.x, f[i].y += F.y, f[i].z += F.z;
      f[j].x -= F.x, f[j].y -= F.y, f[j].z -= F.z;
    }
  return t;
}

// Several species: three types at random, the pair table's entries each of its own coefficients
// (the style's example with its first coefficient, a strength, scaled by 1 + (a + b)/10) and cutoff
// (2.5 − 0.1 (a + b) for types a, b: 1-1 the longest), symmetric. The table style: the spline and
// linear blocks of params_of<Table> alternating. Each lane must take its own pair's constants: a
// kernel that used one lane's for the whole vector, or row i's like pair, would change forces,
// pairs and energies.
template <class E>
std::vector<typename E::Params> species_table(std::uint32_t types) {
  std::vector<typename E::Params> table(types * types);
  for (std::uint32_t a = 0; a < types; ++a)
    for (std::uint32_t b = 0; b < types; ++b) {
      const double cutoff = 2.5 - 0.1 * (a + b);
      if constexpr (std::is_same_v<E, Table>) {
        table_linear = (a + b) % 2 == 1;
        typename E::Params p = params_of<Table>();
        table_linear = false;
        p.cutoff_sq = cutoff * cutoff;  // within the tables' range (to 2.5)
        table[a * types + b] = p;
      } else {
        Coefficients c{};
        for (std::size_t k = 0; k < E::kExample.size(); ++k) c[k] = E::kExample[k];
        for (std::size_t g = 0; g < E::kGlobalExample.size(); ++g)
          c[E::kCoefficients.size() + g] = E::kGlobalExample[g];
        c[0] *= 1.0 + 0.1 * (a + b);
        table[a * types + b] = E::make(c, cutoff, E::kShift);
      }
    }
  return table;
}

class VectorKernel : public ::testing::TestWithParam<PairKernel> {};

// With `energy` (a thermo step's pass) the energy and virial sums must be the oracle's too.
// With `types` > 1 the particles take types 0..types−1 at random over species_table's pairs.
template <class E>
void expect_same_bits(PairKernel kernel, double closest = 0.8, bool energy = false,
                      std::uint32_t types = 1) {
  SCOPED_TRACE(std::string(E::kName) + (MixedPrecisionStyle<E> ? " (mixed)" : "") +
               (energy ? ", energy pass" : "") +
               (types > 1 ? ", " + std::to_string(types) + " species" : ""));
  const std::vector<typename E::Params> table =
      types > 1 ? species_table<E>(types) : std::vector<typename E::Params>{};
  for (std::uint64_t seed : {11u, 12u, 13u}) {
    const Rows r = random_rows(seed, closest);
    const std::size_t n = r.x.size();
    PairRows<E> rows = rows_of<E>(r, pair_term_limit_sq(200));
    rows.energy = energy;
    std::vector<std::uint32_t> type;
    if (types > 1) {
      test::Rng rng(seed + 7);
      type.resize(n);
      for (auto& t : type)
        t = static_cast<std::uint32_t>(rng.integer(0, static_cast<int>(types) - 1));
      rows.type = type.data();
      rows.table = table.data();
      rows.types = types;
    }
    std::vector<Fix3> want(n, Fix3{0, 0, 0}), got(n, Fix3{0, 0, 0});
    fixed::Wide e_want = 0, w_want = 0;
    const RowsTotals t_want = oracle(rows, n, want, &e_want, &w_want);
    ASSERT_FALSE(t_want.overflow);
    ASSERT_GT(t_want.pairs, 3000);
    // AVX-512: the positions by transposed loads and by gathers (PositionLoads).
    for (const bool gather : {false, true}) {
      if (gather && kernel != PairKernel::Avx512) break;
      SCOPED_TRACE(gather ? "positions by gathers" : "positions by transposed loads");
      rows.gather = gather;
      std::fill(got.begin(), got.end(), Fix3{0, 0, 0});
      // In two parts, as two threads would split the rows.
      RowsTotals t_got = run(kernel, rows, 0, n / 3, got.data());
      const RowsTotals t_rest = run(kernel, rows, n / 3, n, got.data());
      t_got.pairs += t_rest.pairs;
      EXPECT_FALSE(t_got.overflow || t_rest.overflow);
      EXPECT_EQ(t_got.pairs, t_want.pairs);
      // (__int128 has no operator<< for the messages: the sums are shown as doubles.)
      const fixed::Wide e_got = t_got.energy + t_rest.energy, w_got = t_got.virial + t_rest.virial;
      if (energy) {
        ASSERT_TRUE(e_want != 0 && w_want != 0);
        EXPECT_TRUE(e_got == e_want) << "energy " << static_cast<double>(e_got) << " against "
                                     << static_cast<double>(e_want) << ", seed " << seed;
        EXPECT_TRUE(w_got == w_want) << "virial " << static_cast<double>(w_got) << " against "
                                     << static_cast<double>(w_want) << ", seed " << seed;
      } else {
        EXPECT_TRUE(e_got == 0 && w_got == 0) << "a force-only pass adds no energy";
      }
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i].x, want[i].x) << "particle " << i << " seed " << seed;
        ASSERT_EQ(got[i].y, want[i].y) << "particle " << i;
        ASSERT_EQ(got[i].z, want[i].z) << "particle " << i;
      }
    }
  }
}

// Every vector style of physics/pair/styles.hpp (a new one needs its params_of above).
TEST_P(VectorKernel, SameBitsAsTheScalarTerms) {
  if (!cpu_runs(GetParam()))
    GTEST_SKIP() << "this CPU cannot run the " << pair_kernel_name(GetParam()) << " kernel";
  for_each_pair_style([&]<class E>() {
    if constexpr (E::kVector) expect_same_bits<E>(GetParam());
  });
  // The table style's other interpolation (params_of<Table> above gave the spline).
  table_linear = true;
  expect_same_bits<Table>(GetParam());
  table_linear = false;
  // run.precision = "mixed": the float variants (physics/pair/mixed.hpp).
  expect_same_bits<Mixed<LJCut>>(GetParam());
  expect_same_bits<Mixed<Morse>>(GetParam());
}

// Thermo steps: the vector kernels take them too, each pair's U and (F/r)·r² converted as
// fixed::to_fixed does and summed: the scalar loop's energy and virial sums exactly, and its
// forces.
TEST_P(VectorKernel, EnergyPassSameBitsAsTheScalarTerms) {
  if (!cpu_runs(GetParam()))
    GTEST_SKIP() << "this CPU cannot run the " << pair_kernel_name(GetParam()) << " kernel";
  for_each_pair_style([&]<class E>() {
    if constexpr (E::kVector) expect_same_bits<E>(GetParam(), 0.8, true);
  });
  table_linear = true;
  expect_same_bits<Table>(GetParam(), 0.8, true);
  table_linear = false;
  expect_same_bits<Mixed<LJCut>>(GetParam(), 0.8, true);
  expect_same_bits<Mixed<Morse>>(GetParam(), 0.8, true);
  // Terms of 2^51 and more (see below) in the energy pass's forces too.
  expect_same_bits<LJCut>(GetParam(), 0.66, true);
}

// Terms of 2^51 and more (|F| ≥ 2048 at 2^40 per unit, within the bound of a 200-term list,
// 2^55): beyond the range where a vector conversion without a double → int64 instruction (adding
// 1.5·2^52) is exact, so a kernel must convert them as the scalar loop does. LJ pairs from
// r = 0.66 (|F| up to about 17 000): the oracle's forces must hold such terms.
// The listed pairs with a force term of 2^51 or more (LJ, a 200-term list's bound).
long long terms_of_two_to_the_51(const Rows& r) {
  using E = LJCut;
  const PairRows<E> rows = rows_of<E>(r, pair_term_limit_sq(200));
  long long big = 0;
  for (std::size_t i = 0; i < r.x.size(); ++i)
    for (std::uint32_t k = r.offsets[i]; k < r.offsets[i + 1]; ++k) {
      const Vec3 d = pair_displacement(r.x[i], r.x[r.neighbors[k]], rows.length, rows.half_length);
      const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      if (r2 >= rows.params.cutoff_sq) continue;
      bool overflow = false;
      const Fix3 F = pair_force_fixed(d, r2, E::eval(r2, rows.params), rows.limit_sq, overflow);
      const double two51 = 2251799813685248.0;
      big += std::abs(double(F.x)) >= two51 || std::abs(double(F.y)) >= two51 ||
             std::abs(double(F.z)) >= two51;
    }
  return big;
}

TEST_P(VectorKernel, SameBitsForTermsOfTwoToThe51AndMore) {
  if (!cpu_runs(GetParam()))
    GTEST_SKIP() << "this CPU cannot run the " << pair_kernel_name(GetParam()) << " kernel";
  ASSERT_GT(terms_of_two_to_the_51(random_rows(11, 0.66)), 10)
      << "the scene must hold terms of 2^51 and more";
  expect_same_bits<LJCut>(GetParam(), 0.66);
}

TEST_P(VectorKernel, ReportsATermOutOfRange) {
  using E = LJCut;
  if (!cpu_runs(GetParam()))
    GTEST_SKIP() << "this CPU cannot run the " << pair_kernel_name(GetParam()) << " kernel";
  Rows r = random_rows(21);
  const std::size_t n = r.x.size();
  // Particle 0's first neighbour moves onto it (r = 1e-3: the term is far beyond the bound),
  // in the middle of a row of 13 so that the pair sits in a vector's interior lane.
  std::vector<std::uint32_t> row(13);
  std::iota(row.begin(), row.end(), 1u);
  r.neighbors.erase(r.neighbors.begin(), r.neighbors.begin() + r.offsets[1]);
  r.neighbors.insert(r.neighbors.begin(), row.begin(), row.end());
  const std::uint32_t old_first = r.offsets[1];
  for (std::size_t i = 1; i <= n; ++i) r.offsets[i] = r.offsets[i] - old_first + 13;
  r.x[6] = {r.x[0].x + 1e-3, r.x[0].y, r.x[0].z};
  PairRows<E> rows = rows_of<E>(r, pair_term_limit_sq(200));
  std::vector<Fix3> f(n, Fix3{0, 0, 0});
  RowsTotals want_t;
  {
    std::vector<Fix3> scratch(n, Fix3{0, 0, 0});
    want_t = oracle(rows, n, scratch);
  }
  ASSERT_TRUE(want_t.overflow);
  for (bool energy : {false, true}) {
    rows.energy = energy;
    std::fill(f.begin(), f.end(), Fix3{0, 0, 0});
    EXPECT_TRUE(run(GetParam(), rows, 0, n, f.data()).overflow) << "energy pass: " << energy;
    std::fill(f.begin(), f.end(), Fix3{0, 0, 0});
    EXPECT_FALSE(run(GetParam(), rows, 1, n, f.data()).overflow) << "only row 0 holds the pair";
  }
}

TEST_P(VectorKernel, SameBitsAsTheScalarTermsOfEachPairOfSeveralSpecies) {
  if (!cpu_runs(GetParam()))
    GTEST_SKIP() << "this CPU cannot run the " << pair_kernel_name(GetParam()) << " kernel";
  for (const bool energy : {false, true}) {
    for_each_pair_style([&]<class E>() {
      if constexpr (E::kVector) expect_same_bits<E>(GetParam(), 0.8, energy, 3);
    });
    expect_same_bits<Mixed<LJCut>>(GetParam(), 0.8, energy, 3);
    expect_same_bits<Mixed<Morse>>(GetParam(), 0.8, energy, 3);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, VectorKernel,
                         ::testing::Values(PairKernel::Avx2, PairKernel::Avx512),
                         [](const auto& info) { return pair_kernel_name(info.param); });

// The cluster kernel (engine/cluster_list.hpp, engine/pair_clusters.hpp). Oracle: the scalar
// terms above over a per-atom list as the neighbour list makes it — each unordered pair within
// 2.8 (minimum image) listed once, under either particle at random, or not at all (the pair rule
// and exclusions), rows in random order.
Rows random_half_list(std::uint64_t seed, double closest = 0.8) {
  Rows r;
  r.L = {9.3, 8.1, 10.7};
  r.x = test::random_positions(600, r.L, closest, seed);
  test::Rng rng(seed + 1);
  const std::size_t n = r.x.size();
  const Vec3 H{r.L.x / 2, r.L.y / 2, r.L.z / 2};
  std::vector<std::vector<std::uint32_t>> rows(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const Vec3 d = pair_displacement(r.x[i], r.x[j], r.L, H);
      if (d.x * d.x + d.y * d.y + d.z * d.z >= 2.8 * 2.8) continue;
      const int where = rng.integer(0, 4);  // 0: not listed; 1, 2: under i; 3, 4: under j
      if (where == 0) continue;
      if (where <= 2)
        rows[i].push_back(static_cast<std::uint32_t>(j));
      else
        rows[j].push_back(static_cast<std::uint32_t>(i));
    }
  r.offsets.push_back(0);
  for (auto& row : rows) {
    for (std::size_t k = row.size(); k > 1; --k)
      std::swap(row[k - 1], row[static_cast<std::size_t>(rng.integer(0, static_cast<int>(k) - 1))]);
    r.neighbors.insert(r.neighbors.end(), row.begin(), row.end());
    r.offsets.push_back(static_cast<std::uint32_t>(r.neighbors.size()));
  }
  return r;
}

// The clusters in a spatial order, as the cell order gives them: particles sorted by cells of
// edge 1.4 (x fastest).
ClusterList clusters_of(const Rows& r) {
  const std::size_t n = r.x.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  auto cell = [&](std::uint32_t i) {
    const Vec3 q = r.x[i];
    return (static_cast<int>(q.z / 1.4) * 8 + static_cast<int>(q.y / 1.4)) * 8 +
           static_cast<int>(q.x / 1.4);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return cell(a) < cell(b); });
  ClusterList cl;
  cl.build(r.offsets.data(), r.neighbors.data(), n, order.data(), n, 1);
  return cl;
}

// The unordered pairs a cluster list holds (each bit), sorted.
std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_of(const ClusterList& cl) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  const auto& particle = cl.particle();
  for (std::size_t c = 0; c < cl.clusters(); ++c)
    for (std::uint32_t e = cl.offsets()[c]; e < cl.offsets()[c + 1]; ++e)
      for (std::uint32_t bit = 0; bit < 16; ++bit)
        if (cl.mask()[e] >> bit & 1u) {
          const std::uint32_t i = particle[c * kClusterSize + bit / kClusterSize];
          const std::uint32_t j = particle[cl.j_cluster()[e] * kClusterSize + bit % kClusterSize];
          pairs.emplace_back(std::min(i, j), std::max(i, j));
        }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// Every listed pair is one bit of the cluster list, and nothing else is; every particle has one
// slot; a row listing a pair twice is flagged (the kernel then falls back to the rows).
TEST(ClusterList, HoldsTheListedPairsOnce) {
  for (std::uint64_t seed : {31u, 32u}) {
    const Rows r = random_half_list(seed);
    const ClusterList cl = clusters_of(r);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
    for (std::size_t i = 0; i + 1 < r.offsets.size(); ++i)
      for (std::uint32_t k = r.offsets[i]; k < r.offsets[i + 1]; ++k) {
        const std::uint32_t j = r.neighbors[k];
        want.emplace_back(std::min<std::uint32_t>(static_cast<std::uint32_t>(i), j),
                          std::max<std::uint32_t>(static_cast<std::uint32_t>(i), j));
      }
    std::sort(want.begin(), want.end());
    ASSERT_GT(want.size(), 5000u);
    EXPECT_TRUE(cl.exact());
    EXPECT_EQ(cl.pairs(), want.size());
    EXPECT_EQ(pairs_of(cl), want);
    std::vector<std::uint32_t> slots;
    for (std::uint32_t i : cl.particle())
      if (i != ClusterList::kNone) slots.push_back(i);
    std::sort(slots.begin(), slots.end());
    ASSERT_EQ(slots.size(), r.x.size());
    for (std::size_t i = 0; i < slots.size(); ++i) ASSERT_EQ(slots[i], i);
    // Smaller than the per-atom list (4 bytes per entry), even with the pairs' orientations at
    // random (a cluster pair then often has two entries).
    EXPECT_LT(cl.bytes_per_particle(),
              4.0 * static_cast<double>(r.neighbors.size()) / static_cast<double>(r.x.size()));
  }
  // A pair listed twice in one row is flagged.
  Rows twice = random_half_list(33);
  const std::uint32_t again = twice.neighbors[twice.offsets[0]];
  twice.neighbors.insert(twice.neighbors.begin(), again);
  for (std::size_t i = 1; i < twice.offsets.size(); ++i) ++twice.offsets[i];
  EXPECT_FALSE(clusters_of(twice).exact());
}

// The cluster kernels, by instruction set: the AVX2 and the AVX-512 one.
class ClusterKernel : public ::testing::TestWithParam<PairKernel> {
 protected:
  void SetUp() override {
    if (!cpu_runs(GetParam()))
      GTEST_SKIP() << "this CPU cannot run the " << pair_kernel_name(GetParam())
                   << " cluster kernel";
  }
};

// The cluster list's entries whose two clusters' bounding boxes are more than half a box length
// apart on some axis (the kernels apply the minimum image there only), and the others.
std::pair<std::size_t, std::size_t> far_and_near_entries(const ClusterList& cl,
                                                         const std::vector<double>& bounds,
                                                         Vec3 L) {
  std::size_t far = 0, near = 0;
  for (std::size_t c = 0; c < cl.clusters(); ++c)
    for (std::uint32_t e = cl.offsets()[c]; e < cl.offsets()[c + 1]; ++e) {
      const double* bi = &bounds[8 * c];
      const double* bj = &bounds[8 * cl.j_cluster()[e]];
      const double h[3] = {L.x / 2, L.y / 2, L.z / 2};
      bool f = false;
      for (int k = 0; k < 3; ++k) f = f || std::max(bi[4 + k] - bj[k], bj[4 + k] - bi[k]) > h[k];
      (f ? far : near) += 1;
    }
  return {far, near};
}

// The kernel over the clusters [0, c/3) and [c/3, c) (two threads' parts), forces mapped back to
// the particles.
template <class E>
ClusterTotals run_clusters(PairKernel isa, const ClusterList& cl, const Rows& r,
                           const typename E::Params& params, double limit_sq, bool energy,
                           std::vector<Fix3>& f) {
  const std::size_t slots = cl.slots();
  std::vector<double> x(slots), y(slots), z(slots), bounds(8 * cl.clusters());
  cluster_positions(cl, r.x.data(), 0, cl.clusters(), x.data(), y.data(), z.data(), bounds.data());
  const PairClusters<E> c{
      &cl,    x.data(), y.data(), z.data(), bounds.data(), r.L, {r.L.x / 2, r.L.y / 2, r.L.z / 2},
      params, limit_sq};
  const auto kernel = isa == PairKernel::Avx512 ? &pair_clusters_avx512<E> : &pair_clusters_avx2<E>;
  std::vector<std::int64_t> fx(slots, 0), fy(slots, 0), fz(slots, 0);
  const std::size_t third = cl.clusters() / 3;
  ClusterTotals t = kernel(c, 0, third, fx.data(), fy.data(), fz.data(), energy);
  const ClusterTotals rest =
      kernel(c, third, cl.clusters(), fx.data(), fy.data(), fz.data(), energy);
  t.pairs += rest.pairs;
  t.energy += rest.energy;
  t.virial += rest.virial;
  t.overflow = t.overflow || rest.overflow;
  for (std::size_t s = 0; s < slots; ++s)
    if (cl.particle()[s] != ClusterList::kNone) {
      Fix3& fi = f[cl.particle()[s]];
      fi.x += fx[s], fi.y += fy[s], fi.z += fz[s];
    }
  return t;
}

template <class E>
void expect_cluster_bits(PairKernel isa, double closest = 0.8) {
  SCOPED_TRACE(std::string(E::kName));
  for (std::uint64_t seed : {41u, 42u}) {
    const Rows r = random_half_list(seed, closest);
    const std::size_t n = r.x.size();
    const ClusterList cl = clusters_of(r);
    const PairRows<E> rows = rows_of<E>(r, pair_term_limit_sq(200));
    std::vector<Fix3> want(n, Fix3{0, 0, 0});
    fixed::Wide energy = 0, virial = 0;
    const RowsTotals t_want = oracle(rows, n, want, &energy, &virial);
    ASSERT_FALSE(t_want.overflow);
    ASSERT_GT(t_want.pairs, 3000);
    for (bool with_energy : {false, true}) {
      std::vector<Fix3> got(n, Fix3{0, 0, 0});
      const ClusterTotals t =
          run_clusters<E>(isa, cl, r, rows.params, rows.limit_sq, with_energy, got);
      EXPECT_FALSE(t.overflow);
      EXPECT_EQ(t.pairs, t_want.pairs);
      if (with_energy) {
        EXPECT_TRUE(t.energy == energy) << "energy";
        EXPECT_TRUE(t.virial == virial) << "virial";
      }
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i].x, want[i].x) << "particle " << i << " seed " << seed;
        ASSERT_EQ(got[i].y, want[i].y) << "particle " << i;
        ASSERT_EQ(got[i].z, want[i].z) << "particle " << i;
      }
    }
  }
}

TEST_P(ClusterKernel, SameBitsAsTheScalarTerms) {
  // The scene has entries with and without the minimum image (the kernels' two paths).
  const Rows r = random_half_list(41);
  const ClusterList cl = clusters_of(r);
  std::vector<double> x(cl.slots()), y(cl.slots()), z(cl.slots()), bounds(8 * cl.clusters());
  cluster_positions(cl, r.x.data(), 0, cl.clusters(), x.data(), y.data(), z.data(), bounds.data());
  const auto [far, near] = far_and_near_entries(cl, bounds, r.L);
  ASSERT_GT(far, 100u);
  ASSERT_GT(near, 100u);
  for_each_pair_style([&]<class E>() {
    if constexpr (E::kVector) expect_cluster_bits<E>(GetParam());
  });
  table_linear = true;
  expect_cluster_bits<Table>(GetParam());
  table_linear = false;
}

// As VectorKernel.SameBitsForTermsOfTwoToThe51AndMore: terms the AVX2 kernel's exact vector
// conversion does not reach (LJ from r = 0.66).
TEST_P(ClusterKernel, SameBitsForTermsOfTwoToThe51AndMore) {
  for (std::uint64_t seed : {41u, 42u})
    ASSERT_GT(terms_of_two_to_the_51(random_half_list(seed, 0.66)), 10)
        << "the scene must hold terms of 2^51 and more";
  expect_cluster_bits<LJCut>(GetParam(), 0.66);
}

TEST_P(ClusterKernel, ReportsATermOutOfRange) {
  using E = LJCut;
  Rows r = random_half_list(51);
  // Particle 0's first listed neighbour moves onto it (r = 1e-3: far beyond the bound).
  const std::uint32_t j = r.neighbors[r.offsets[0]];
  r.x[j] = {r.x[0].x + 1e-3, r.x[0].y, r.x[0].z};
  const ClusterList cl = clusters_of(r);
  const PairRows<E> rows = rows_of<E>(r, pair_term_limit_sq(200));
  std::vector<Fix3> f(r.x.size(), Fix3{0, 0, 0});
  RowsTotals want_t = oracle(rows, r.x.size(), f);
  ASSERT_TRUE(want_t.overflow);
  for (bool with_energy : {false, true}) {
    std::fill(f.begin(), f.end(), Fix3{0, 0, 0});
    EXPECT_TRUE(
        run_clusters<E>(GetParam(), cl, r, rows.params, rows.limit_sq, with_energy, f).overflow);
  }
}

INSTANTIATE_TEST_SUITE_P(InstructionSets, ClusterKernel,
                         ::testing::Values(PairKernel::Avx2, PairKernel::Avx512),
                         [](const auto& info) { return pair_kernel_name(info.param); });

// SCANMD_PAIR_KERNEL pins the choice; auto is the widest the CPU runs; a name the CPU cannot run,
// or an unknown one, is an error naming the variable.
TEST(PairKernelChoice, EnvironmentAutoAndErrors) {
  const char* saved = std::getenv("SCANMD_PAIR_KERNEL");
  const std::string keep = saved ? saved : "";
  unsetenv("SCANMD_PAIR_KERNEL");
  const PairKernel widest = cpu_runs(PairKernel::Avx512) ? PairKernel::Avx512
                            : cpu_runs(PairKernel::Avx2) ? PairKernel::Avx2
                                                         : PairKernel::Scalar;
  EXPECT_EQ(resolve_pair_kernel(), widest);
  EXPECT_EQ(resolve_pair_kernel(PairKernel::Scalar), PairKernel::Scalar);
  setenv("SCANMD_PAIR_KERNEL", "scalar", 1);
  EXPECT_EQ(resolve_pair_kernel(), PairKernel::Scalar);
  for (PairKernel k : {PairKernel::Avx2, PairKernel::Avx512, PairKernel::Cluster}) {
    setenv("SCANMD_PAIR_KERNEL", pair_kernel_name(k).c_str(), 1);
    if (cpu_runs(k)) {
      EXPECT_EQ(resolve_pair_kernel(), k);
    } else {
      try {
        resolve_pair_kernel();
        ADD_FAILURE() << "a kernel the CPU cannot run was accepted";
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot run"), std::string::npos) << e.what();
      }
    }
  }
  setenv("SCANMD_PAIR_KERNEL", "sse9", 1);
  try {
    resolve_pair_kernel();
    ADD_FAILURE() << "an unknown kernel name was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("SCANMD_PAIR_KERNEL=sse9: expected"), std::string::npos)
        << e.what();
  }
  if (saved)
    setenv("SCANMD_PAIR_KERNEL", keep.c_str(), 1);
  else
    unsetenv("SCANMD_PAIR_KERNEL");
}

// SCANMD_POSITION_LOADS names the AVX-512 rows' position loads; unset or empty, Intel CPUs gather;
// another name is an error naming the variable.
TEST(PairKernelChoice, PositionLoadsByNameAndCpu) {
  EXPECT_EQ(position_loads_for("gather"), PositionLoads::Gather);
  EXPECT_EQ(position_loads_for("transpose"), PositionLoads::Transpose);
  // (The vector kernels are built for x86-64 only: elsewhere there is nothing to gather.)
  PositionLoads by_cpu = PositionLoads::Transpose;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_is("intel")) by_cpu = PositionLoads::Gather;
#endif
  EXPECT_EQ(position_loads_for(nullptr), by_cpu);
  EXPECT_EQ(position_loads_for(""), by_cpu);
  try {
    position_loads_for("scatter");
    ADD_FAILURE() << "an unknown name was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "SCANMD_POSITION_LOADS=scatter: expected \"transpose\", \"gather\""),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace scanmd
