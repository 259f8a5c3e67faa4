// tests/engine/test_row_parts.cpp — engine/row_parts.hpp: the rows' parts for a rank's threads.
//
// Oracles: the boundaries cover the rows once, in order, at most most_row_parts(threads) parts,
// each part's entries within a row of its share (factoring: 1/(2T) of the list first, each
// round half the rest, none below 1/(64T) but the last T); run_row_parts' sums against the
// serial loop over the same rows, and the first part's exception rethrown.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/row_parts.hpp"

namespace scanmd {
namespace {

// CSR offsets of rows with the given lengths.
std::vector<std::uint32_t> offsets_of(const std::vector<std::uint32_t>& lengths) {
  std::vector<std::uint32_t> offsets(lengths.size() + 1, 0);
  std::partial_sum(lengths.begin(), lengths.end(), offsets.begin() + 1);
  return offsets;
}

TEST(RowParts, CoverTheRowsInDecreasingParts) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> length(0, 60);
  std::vector<std::uint32_t> lengths(20000);
  for (auto& l : lengths) l = length(rng);
  const std::vector<std::uint32_t> offsets = offsets_of(lengths);
  const double total = offsets.back();
  for (int threads = 1; threads <= 8; ++threads) {
    SCOPED_TRACE(threads);
    const std::vector<std::size_t> at = row_parts(offsets.data(), lengths.size(), threads);
    ASSERT_GE(at.size(), 2u);
    EXPECT_EQ(at.front(), 0u);
    EXPECT_EQ(at.back(), lengths.size());
    const int parts = static_cast<int>(at.size()) - 1;
    EXPECT_LE(parts, most_row_parts(threads));
    EXPECT_GE(parts, 2 * threads) << "a first round and the rest";
    for (std::size_t k = 0; k + 1 < at.size(); ++k) ASSERT_LE(at[k], at[k + 1]) << k;
    // The first round: each part 1/(2T) of the entries, to within a row (60 entries).
    for (int t = 0; t < threads; ++t) {
      const double entries = offsets[at[t + 1]] - offsets[at[t]];
      EXPECT_NEAR(entries, total / (2 * threads), 60.0) << "part " << t;
    }
    // Each round's parts no larger than the round before, the last T at least half the smallest.
    for (int k = threads; k < parts; ++k) {
      const double here = offsets[at[k + 1]] - offsets[at[k]];
      const double before = offsets[at[k + 1 - threads]] - offsets[at[k - threads]];
      EXPECT_LE(here, before + 60.0) << "part " << k;
      EXPECT_GE(here, total / (2.0 * kSmallestPart * threads) - 60.0) << "part " << k;
    }
  }
}

TEST(RowParts, EmptyAndLopsidedLists) {
  const std::vector<std::uint32_t> empty = offsets_of(std::vector<std::uint32_t>(100, 0));
  std::vector<std::size_t> at = row_parts(empty.data(), 100, 2);
  EXPECT_EQ(at.front(), 0u);
  EXPECT_EQ(at.back(), 100u);
  std::vector<std::uint32_t> lengths(1000, 1);
  lengths[500] = 1000000;  // one row holds nearly all entries
  const std::vector<std::uint32_t> lopsided = offsets_of(lengths);
  at = row_parts(lopsided.data(), lengths.size(), 3);
  EXPECT_EQ(at.back(), lengths.size());
  for (std::size_t k = 0; k + 1 < at.size(); ++k) ASSERT_LE(at[k], at[k + 1]);
}

// Each row i adds i + 1 to itself and 1 to its "neighbours" i + 1 .. i + length (mod n), as a
// half list's terms go to i and j: on 1-4 threads the summed arrays equal the serial loop's, and
// every part ran once.
TEST(RunRowParts, SumsEqualTheSerialLoop) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::uint32_t> length(0, 40);
  const std::size_t n = 5000;
  std::vector<std::uint32_t> lengths(n);
  for (auto& l : lengths) l = length(rng);
  const std::vector<std::uint32_t> offsets = offsets_of(lengths);
  const auto rows = [&](std::size_t begin, std::size_t end, std::int64_t* into) {
    for (std::size_t i = begin; i < end; ++i) {
      into[i] += static_cast<std::int64_t>(i) + 1;
      for (std::uint32_t k = 1; k <= lengths[i]; ++k) into[(i + k) % n] += 1;
    }
  };
  std::vector<std::int64_t> want(n, 0);
  rows(0, n, want.data());
  for (int threads = 2; threads <= 4; ++threads) {
    SCOPED_TRACE(threads);
    std::vector<std::int64_t> got(n, 123);  // zeroed: zero_out
    std::vector<std::vector<std::int64_t>> buffers;
    std::vector<int> ran(static_cast<std::size_t>(most_row_parts(threads)), 0);
    const int parts = run_row_parts(
        offsets.data(), n, threads, got.data(), true, buffers,
        [&](int c, std::size_t begin, std::size_t end, std::int64_t* into) {
          ++ran[static_cast<std::size_t>(c)];
          rows(begin, end, into);
        },
        [](std::int64_t& a, std::int64_t b) { a += b; });
    EXPECT_EQ(got, want);
    for (int c = 0; c < parts; ++c) EXPECT_EQ(ran[static_cast<std::size_t>(c)], 1) << "part " << c;
    // Adding (zero_out false): the first array keeps what it held.
    std::vector<std::int64_t> more(n, 5);
    run_row_parts(
        offsets.data(), n, threads, more.data(), false, buffers,
        [&](int, std::size_t begin, std::size_t end, std::int64_t* into) {
          rows(begin, end, into);
        },
        [](std::int64_t& a, std::int64_t b) { a += b; });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(more[i], want[i] + 5) << i;
  }
}

TEST(RunRowParts, RethrowsTheFirstPartsError) {
  const std::vector<std::uint32_t> offsets = offsets_of(std::vector<std::uint32_t>(4000, 3));
  std::vector<std::int64_t> out(4000);
  std::vector<std::vector<std::int64_t>> buffers;
  try {
    run_row_parts(
        offsets.data(), 4000, 2, out.data(), true, buffers,
        [](int c, std::size_t, std::size_t, std::int64_t*) {
          if (c == 3 || c == 5) throw std::runtime_error("part " + std::to_string(c));
        },
        [](std::int64_t& a, std::int64_t b) { a += b; });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "part 3");
  }
}

}  // namespace
}  // namespace scanmd
