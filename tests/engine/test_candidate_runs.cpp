// The vector candidate scans of the list build (engine/candidate_runs.hpp) against the scalar
// one: the same entries in the same order, near and far, for every rule, on runs of every
// length (whole vectors, tails, empty runs), with candidates on both sides of R and of the inner
// cutoff, owned and ghost, before and after the row's particle; and the rows of one cell
// scanned together against the scalar scan of each row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/candidate_runs.hpp"
#include "engine/pair_kernel.hpp"

namespace scanmd {
namespace {

struct Scene {
  std::vector<float> qx, qy, qz;
  std::vector<std::uint32_t> order, cls, begin, end;
};

// n candidates in cell order (positions in a 6σ cube about the origin, so about a fifth lie
// within R = 2.8 of the row's particle at the origin), cut into runs of 0 to 40.
Scene make_scene(std::uint32_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  Scene s;
  // Room past the end, as the list build's arrays have (whole-vector loads are masked).
  for (std::uint32_t k = 0; k < n; ++k) {
    s.qx.push_back(u(rng));
    s.qy.push_back(u(rng));
    s.qz.push_back(u(rng));
    s.order.push_back((k * 7919u) % n);  // a permutation of the particles
    s.cls.push_back(1u << (rng() % 5));
  }
  std::uint32_t k = 0;
  while (k < n) {
    const std::uint32_t len = std::min<std::uint32_t>(n - k, rng() % 41);
    s.begin.push_back(k);
    s.end.push_back(k + len);
    k += len;
    if (s.begin.size() == 25) break;  // a row's runs at most
  }
  return s;
}

struct Out {
  std::vector<std::uint32_t> near, far;
};

template <class Scan>
Out run(const Scene& s, Scan scan) {
  Out o;
  o.near.assign(s.order.size() + kCandidateSlack, 0xDEADBEEFu);
  o.far.assign(s.order.size() + kCandidateSlack, 0xDEADBEEFu);
  const CandidateRuns c{s.qx.data(),
                        s.qy.data(),
                        s.qz.data(),
                        s.order.data(),
                        s.begin.data(),
                        s.end.data(),
                        static_cast<int>(s.begin.size())};
  const KeptCandidates kept = scan(c, o.near.data(), o.far.data());
  o.near.resize(kept.near);
  o.far.resize(kept.far);
  return o;
}

// The vector scan's entries must be the scalar scan's, near and far (`what` names the case);
// returns the scalar scan's.
template <class Scalar, class Vector>
Out expect_same_entries(const Scene& s, Scalar scalar, Vector vector, const std::string& what) {
  const Out want = run(s, scalar);
  const Out got = run(s, vector);
  EXPECT_EQ(got.near, want.near) << what;
  EXPECT_EQ(got.far, want.far) << what;
  return want;
}

class CandidateScans : public ::testing::TestWithParam<CandidateScan> {
 protected:
  void SetUp() override {
    const PairKernel k =
        GetParam() == CandidateScan::Avx512 ? PairKernel::Avx512 : PairKernel::Avx2;
    if (!cpu_runs(k)) GTEST_SKIP() << "this CPU cannot run " << pair_kernel_name(k);
  }
};

TEST_P(CandidateScans, SameEntriesAsScalarForTheHalfShellRule) {
  const SearchPoint qi{0.0f, 0.0f, 0.0f};
  const float r_sq = 2.8f * 2.8f, inner_sq = 2.5f * 2.5f;
  int nonempty = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const Scene s = make_scene(300 + seed * 7, seed);
    const auto n = static_cast<std::uint32_t>(s.order.size());
    for (std::uint32_t k_i : {0u, n / 3, n - 1})
      for (std::uint32_t n_owned : {0u, n / 2, n})
        for (float inner : {inner_sq, r_sq}) {
          const Out want = expect_same_entries(
              s,
              [&](const CandidateRuns& c, std::uint32_t* a, std::uint32_t* b) {
                return keep_candidates_scalar(c, qi, r_sq, inner, k_i, n_owned, a, b);
              },
              [&](const CandidateRuns& c, std::uint32_t* a, std::uint32_t* b) {
                return keep_candidates(GetParam(), c, qi, r_sq, inner, k_i, n_owned, a, b);
              },
              "seed " + std::to_string(seed) + " k_i " + std::to_string(k_i) + " owned " +
                  std::to_string(n_owned) + " inner " + std::to_string(inner));
          nonempty += !want.near.empty() && (inner == r_sq || !want.far.empty());
        }
  }
  EXPECT_GT(nonempty, 500);  // the scenes do keep candidates, near and far
}

TEST_P(CandidateScans, SameEntriesAsScalarForTheRuleByClasses) {
  const SearchPoint qi{0.25f, -0.5f, 1.0f};
  const float r_sq = 2.8f * 2.8f, inner_sq = 2.5f * 2.5f;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const Scene s = make_scene(250 + seed * 5, 100 + seed);
    const auto n = static_cast<std::uint32_t>(s.order.size());
    for (std::uint32_t any : {0u, 1u, 6u})
      for (std::uint32_t after : {0u, 8u, 24u}) {
        const RowRuleClasses rule{s.cls.data(), any, after};
        const std::uint32_t k_i = (seed * 37u) % n;
        // (inner = r_sq: every kept candidate near, the unordered rows.)
        for (float inner : {inner_sq, r_sq})
          expect_same_entries(
              s,
              [&](const CandidateRuns& c, std::uint32_t* a, std::uint32_t* b) {
                return keep_candidates_classes_scalar(c, rule, qi, r_sq, inner, k_i, a, b);
              },
              [&](const CandidateRuns& c, std::uint32_t* a, std::uint32_t* b) {
                return keep_candidates_classes(GetParam(), c, rule, qi, r_sq, inner, k_i, a, b);
              },
              "seed " + std::to_string(seed) + " any " + std::to_string(any) + " after " +
                  std::to_string(after) + " inner " + std::to_string(inner));
      }
  }
}

// Rows of neighbouring cells scanned together: each row keeps what the scalar scan keeps for it
// alone on its own runs (the scanned runs less the end cells it skips), in the same order, for
// 1 to kCellRows rows at different points and cell-order positions (the runs unclipped: the
// rule masks every row's candidates at or before it), with and without skipped end cells, by
// half shell's rule and by neutral territory's classes.
TEST(CellRowScan, EachRowKeepsWhatTheScalarScanKeepsOnItsOwnRuns) {
  if (!cpu_runs(PairKernel::Avx512)) GTEST_SKIP() << "this CPU cannot run avx512";
  const float r_sq = 2.8f * 2.8f;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> near_origin(-0.7f, 0.7f);
  int nonempty = 0, trimmed = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const Scene s = make_scene(280 + seed * 9, 200 + seed);
    const auto n = static_cast<std::uint32_t>(s.order.size());
    const int runs = static_cast<int>(s.begin.size());
    const CandidateRuns c{s.qx.data(),    s.qy.data(),  s.qz.data(), s.order.data(),
                          s.begin.data(), s.end.data(), runs};
    // Each run's first and last "cells": a cut point in each end's part of the run.
    std::vector<std::uint32_t> first_end(s.begin.size()), last_begin(s.begin.size());
    for (std::size_t r = 0; r < s.begin.size(); ++r) {
      const std::uint32_t len = s.end[r] - s.begin[r];
      first_end[r] = s.begin[r] + (len ? static_cast<std::uint32_t>(rng() % (len / 2 + 1)) : 0);
      last_begin[r] = s.end[r] - (len ? static_cast<std::uint32_t>(rng() % (len / 2 + 1)) : 0);
    }
    for (int rows = 1; rows <= kCellRows; ++rows)
      for (std::uint32_t n_owned : {0u, n / 2, n})
        for (int variant = 0; variant < 4; ++variant) {
          // Skipped end cells or not; half shell's rule or neutral territory's by classes.
          const bool skips = variant % 2 == 1, classes = variant >= 2;
          CellRows cr;
          cr.rows = rows;
          cr.first_end = first_end.data();
          cr.last_begin = last_begin.data();
          if (classes) {
            cr.cls = s.cls.data();
            cr.any = 1u << (seed % 5);
            cr.after = (1u << ((seed + 2) % 5)) | 1u;
          }
          std::vector<std::vector<std::uint32_t>> out(static_cast<std::size_t>(rows));
          for (int m = 0; m < rows; ++m) {
            cr.q[m] = SearchPoint{near_origin(rng), near_origin(rng), near_origin(rng)};
            cr.k[m] = static_cast<std::uint32_t>(rng() % n);
            cr.skip[m] = skips ? static_cast<std::uint8_t>(rng() % 4) : 0;
            out[static_cast<std::size_t>(m)].assign(n + kCandidateSlack, 0xDEADBEEFu);
            cr.out[m] = out[static_cast<std::size_t>(m)].data();
          }
          keep_candidate_rows_avx512(c, r_sq, n_owned, cr);
          for (int m = 0; m < rows; ++m) {
            // The row's own runs, scanned alone by the scalar scan.
            std::vector<std::uint32_t> b(s.begin), e(s.end);
            for (std::size_t r = 0; r < b.size(); ++r) {
              if (cr.skip[m] & kSkipFirst) b[r] = std::max(b[r], first_end[r]);
              if (cr.skip[m] & kSkipLast) e[r] = std::min(e[r], last_begin[r]);
              e[r] = std::max(e[r], b[r]);
            }
            const CandidateRuns own{s.qx.data(), s.qy.data(), s.qz.data(), s.order.data(),
                                    b.data(),    e.data(),    runs};
            std::vector<std::uint32_t> want(n + kCandidateSlack), none(n + kCandidateSlack);
            const RowRuleClasses rule{s.cls.data(), cr.any, cr.after};
            want.resize((classes ? keep_candidates_classes_scalar(own, rule, cr.q[m], r_sq, r_sq,
                                                                  cr.k[m], want.data(), none.data())
                                 : keep_candidates_scalar(own, cr.q[m], r_sq, r_sq, cr.k[m],
                                                          n_owned, want.data(), none.data()))
                            .near);
            auto& got = out[static_cast<std::size_t>(m)];
            got.resize(cr.kept[m]);
            EXPECT_EQ(got, want) << "seed " << seed << " rows " << rows << " row " << m << " owned "
                                 << n_owned << " skip " << int(cr.skip[m])
                                 << (classes ? " by classes" : "");
            nonempty += !want.empty();
            trimmed += cr.skip[m] != 0;
          }
        }
  }
  EXPECT_GT(nonempty, 4000);  // the scenes do keep candidates
  EXPECT_GT(trimmed, 1000);   // and rows do skip end cells
}

INSTANTIATE_TEST_SUITE_P(Versions, CandidateScans,
                         ::testing::Values(CandidateScan::Avx2, CandidateScan::Avx512),
                         [](const auto& info) {
                           return info.param == CandidateScan::Avx2 ? "avx2" : "avx512";
                         });

}  // namespace
}  // namespace scanmd
