// tests/kernels/test_segmented.cpp — segmented scans (head flags) and segmented reduce (CSR) on
// every backend against plain-loop oracles: Sum over int32/uint32/int64/float64 and Max.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/backend.hpp"
#include "tests/kernels/values.hpp"

namespace scanmd::kernels::test {
namespace {

enum class Heads { Random, All, None, FirstOnly, Every32 };
constexpr Heads kHeadPatterns[] = {Heads::Random, Heads::All, Heads::None, Heads::FirstOnly,
                                   Heads::Every32};

std::vector<std::uint8_t> make_heads(std::size_t n, Heads h) {
  switch (h) {
    case Heads::Random:
      return make_flags(n, 0.05, 5);
    case Heads::All:
      return std::vector<std::uint8_t>(n, 1);
    case Heads::None:
      return std::vector<std::uint8_t>(n, 0);
    case Heads::FirstOnly: {
      std::vector<std::uint8_t> f(n, 0);
      if (n) f[0] = 1;
      return f;
    }
    case Heads::Every32: {
      std::vector<std::uint8_t> f(n, 0);
      for (std::size_t i = 0; i < n; i += 32) f[i] = 1;
      return f;
    }
  }
  return {};
}

template <bool Inclusive, class T, class Op>
std::vector<T> reference_segmented(const std::vector<std::uint8_t>& heads,
                                   const std::vector<T>& in) {
  std::vector<T> out(in.size());
  T acc = Op::identity();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (heads[i]) acc = Op::identity();
    if (!Inclusive) out[i] = acc;
    acc = Op{}(acc, in[i]);
    if (Inclusive) out[i] = acc;
  }
  return out;
}

// `magnitude[i]`: the sum of |terms| that went into want[i]. A reassociated floating-point sum
// may differ from the sequential one by a few ulps of that magnitude (not of the result: with
// the extreme pattern, ±1e300 terms cancel down to rounding residues).
template <class T>
void expect_values(const std::vector<T>& got, const std::vector<T>& want, bool exact,
                   const std::vector<double>& magnitude, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!exact) {
        if (got[i] == want[i]) continue;  // equal infinities (a max's identity is −∞) included
        ASSERT_NEAR(got[i], want[i], 1e-12 * (magnitude[i] + 1.0)) << what << " at i=" << i;
        continue;
      }
    }
    ASSERT_EQ(got[i], want[i]) << what << " at i=" << i;
  }
}

// Σ |in[k]| over the segment of i, up to and including i.
template <class T>
std::vector<double> segment_magnitudes(const std::vector<std::uint8_t>& heads,
                                       const std::vector<T>& in) {
  std::vector<double> m(in.size());
  double acc = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (heads[i]) acc = 0;
    acc += std::abs(static_cast<double>(in[i]));
    m[i] = acc;
  }
  return m;
}

template <class T, class Op>
void check_segmented_scans(Backend b, Workspace& ws, bool for_max) {
  for (Heads h : kHeadPatterns) {
    for (Pattern p : {Pattern::Random, Pattern::Ones, Pattern::Extreme}) {
      for (std::size_t n : test_sizes()) {
        const auto heads = make_heads(n, h);
        const auto in = make_values<T>(n, p, 2, for_max);
        const std::string what = "heads=" + std::to_string(static_cast<int>(h)) + " " +
                                 pattern_name(p) + " n=" + std::to_string(n);
        const auto magnitude = segment_magnitudes(heads, in);
        std::vector<T> out;
        run_segmented_scan<true, T>(b, ws, heads, in, out, Op{});
        expect_values(out, reference_segmented<true, T, Op>(heads, in), !reassociates(b), magnitude,
                      "inclusive " + what);
        run_segmented_scan<false, T>(b, ws, heads, in, out, Op{});
        expect_values(out, reference_segmented<false, T, Op>(heads, in), !reassociates(b),
                      magnitude, "exclusive " + what);
      }
    }
  }
}

// Row lengths: random (with empty rows), all empty, one row with everything.
std::vector<std::uint32_t> make_offsets(std::size_t n, int kind) {
  std::vector<std::uint32_t> off{0};
  if (kind == 1) {
    off.assign(17, 0);
    return off;
  }
  if (kind == 2) return {0, static_cast<std::uint32_t>(n)};
  std::mt19937 rng(static_cast<unsigned>(n));
  std::size_t at = 0;
  while (at < n) {
    const std::size_t len = rng() % 4 == 0 ? 0 : std::min<std::size_t>(n - at, rng() % 70);
    at += len;
    off.push_back(static_cast<std::uint32_t>(at));
  }
  return off;
}

template <class T, class Op>
void check_segmented_reduce(Backend b, Workspace& ws, bool for_max) {
  for (int kind : {0, 1, 2}) {
    for (Pattern p : {Pattern::Random, Pattern::Ones, Pattern::Extreme}) {
      for (std::size_t n : test_sizes()) {
        const auto off = make_offsets(n, kind);
        const auto in = make_values<T>(n, p, 4, for_max);
        std::vector<T> want(off.size() - 1);
        std::vector<double> magnitude(off.size() - 1, 0.0);
        for (std::size_t r = 0; r + 1 < off.size(); ++r) {
          T acc = Op::identity();
          for (std::uint32_t i = off[r]; i < off[r + 1]; ++i) {
            acc = Op{}(acc, in[i]);
            magnitude[r] += std::abs(static_cast<double>(in[i]));
          }
          want[r] = acc;
        }
        std::vector<T> out;
        run_segmented_reduce<T>(b, ws, off, in, out, Op{});
        // Host reduces each row in order on one thread: exact for every host backend.
        expect_values(
            out, want, b != Backend::Cuda, magnitude,
            "kind=" + std::to_string(kind) + " " + pattern_name(p) + " n=" + std::to_string(n));
      }
    }
  }
}

using SegmentedTest = BackendTest;

TEST_P(SegmentedTest, ScanSumInt32) {
  check_segmented_scans<std::int32_t, Sum<std::int32_t>>(backend(), ws_, false);
}
TEST_P(SegmentedTest, ScanSumUint32) {
  check_segmented_scans<std::uint32_t, Sum<std::uint32_t>>(backend(), ws_, false);
}
TEST_P(SegmentedTest, ScanSumInt64) {
  check_segmented_scans<std::int64_t, Sum<std::int64_t>>(backend(), ws_, false);
}
TEST_P(SegmentedTest, ScanSumFloat64) {
  check_segmented_scans<double, Sum<double>>(backend(), ws_, false);
}
TEST_P(SegmentedTest, ScanMaxInt32) {
  check_segmented_scans<std::int32_t, Max<std::int32_t>>(backend(), ws_, true);
}
TEST_P(SegmentedTest, ScanMaxFloat64) {
  check_segmented_scans<double, Max<double>>(backend(), ws_, true);
}
TEST_P(SegmentedTest, ReduceSumInt32) {
  check_segmented_reduce<std::int32_t, Sum<std::int32_t>>(backend(), ws_, false);
}
TEST_P(SegmentedTest, ReduceSumUint32) {
  check_segmented_reduce<std::uint32_t, Sum<std::uint32_t>>(backend(), ws_, false);
}
TEST_P(SegmentedTest, ReduceSumInt64) {
  check_segmented_reduce<std::int64_t, Sum<std::int64_t>>(backend(), ws_, false);
}
TEST_P(SegmentedTest, ReduceSumFloat64) {
  check_segmented_reduce<double, Sum<double>>(backend(), ws_, false);
}
TEST_P(SegmentedTest, ReduceMaxInt32) {
  check_segmented_reduce<std::int32_t, Max<std::int32_t>>(backend(), ws_, true);
}
TEST_P(SegmentedTest, ReduceMaxFloat64) {
  check_segmented_reduce<double, Max<double>>(backend(), ws_, true);
}

TEST_P(SegmentedTest, BadArgumentsThrow) {
  if (backend() == Backend::Cuda) GTEST_SKIP() << "host-only contract";
  std::vector<int> in(4, 1), out(4);
  std::vector<std::uint8_t> heads(3, 0);
  EXPECT_THROW(segmented_inclusive_scan<int>(ws_, heads, in, out), std::invalid_argument);
  std::vector<std::uint32_t> off{0, 3, 2};
  std::vector<int> rows(2);
  EXPECT_THROW(segmented_reduce<int>(ws_, std::span<const std::uint32_t>(off), in, rows),
               std::invalid_argument);
  off = {0, 2, 9};
  EXPECT_THROW(segmented_reduce<int>(ws_, std::span<const std::uint32_t>(off), in, rows),
               std::out_of_range);
}

INSTANTIATE_TEST_SUITE_P(Backends, SegmentedTest, ::testing::ValuesIn(all_backends()),
                         backend_name);

}  // namespace
}  // namespace scanmd::kernels::test
