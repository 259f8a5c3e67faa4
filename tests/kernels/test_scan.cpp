// tests/kernels/test_scan.cpp — exclusive/inclusive scan (kernels/scan.hpp, kernels/cuda) against a
// plain sequential loop, for Sum over int32/uint32/int64/float64 and Max, on every backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/backend.hpp"
#include "tests/kernels/values.hpp"

namespace scanmd::kernels::test {
namespace {

// Oracle: plain loops, written without the library.
template <bool Inclusive, class T, class Op>
std::vector<T> reference_scan(const std::vector<T>& in, T& total) {
  std::vector<T> out(in.size());
  T acc = Op::identity();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!Inclusive) out[i] = acc;
    acc = Op{}(acc, in[i]);
    if (Inclusive) out[i] = acc;
  }
  total = acc;
  return out;
}

template <class T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, bool exact,
                  const std::vector<T>& in, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  if (exact || !std::is_floating_point_v<T>) {
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << what << " at i=" << i;
    return;
  }
  double abs_sum = 0;  // error bound grows with the sum of magnitudes seen so far
  for (std::size_t i = 0; i < got.size(); ++i) {
    abs_sum += std::abs(static_cast<double>(in[i]));
    if (got[i] == want[i]) continue;  // equal infinities (a max's identity is −∞) included
    ASSERT_NEAR(got[i], want[i], 1e-12 * (abs_sum + 1.0)) << what << " at i=" << i;
  }
}

template <class T>
void expect_total(T got, T want, bool exact, const std::vector<T>& in, const std::string& what) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!exact) {
      double abs_sum = 0;
      for (T x : in) abs_sum += std::abs(static_cast<double>(x));
      if (got != want) {
        EXPECT_NEAR(got, want, 1e-12 * (abs_sum + 1.0)) << what;
      }
      return;
    }
  }
  EXPECT_EQ(got, want) << what;
}

template <class T, class Op>
void check_scans(Backend b, Workspace& ws, bool for_max) {
  for (Pattern p : {Pattern::Random, Pattern::Ones, Pattern::Extreme}) {
    for (std::size_t n : test_sizes()) {
      const auto in = make_values<T>(n, p, 1, for_max);
      const std::string what = std::string(pattern_name(p)) + " n=" + std::to_string(n);
      const bool exact = !reassociates(b);
      std::vector<T> out;
      T want_total{};

      const auto want_ex = reference_scan<false, T, Op>(in, want_total);
      const T total_ex = run_scan<false, T>(b, ws, in, out, Op{});
      expect_close(out, want_ex, exact, in, "exclusive " + what);
      expect_total(total_ex, want_total, exact, in, "exclusive total " + what);

      const auto want_in = reference_scan<true, T, Op>(in, want_total);
      const T total_in = run_scan<true, T>(b, ws, in, out, Op{});
      expect_close(out, want_in, exact, in, "inclusive " + what);
      expect_total(total_in, want_total, exact, in, "inclusive total " + what);
    }
  }
}

using ScanTest = BackendTest;

TEST_P(ScanTest, SumInt32) {
  check_scans<std::int32_t, Sum<std::int32_t>>(backend(), ws_, false);
}
TEST_P(ScanTest, SumUint32) {
  check_scans<std::uint32_t, Sum<std::uint32_t>>(backend(), ws_, false);
}
TEST_P(ScanTest, SumInt64) {
  check_scans<std::int64_t, Sum<std::int64_t>>(backend(), ws_, false);
}
TEST_P(ScanTest, SumUint64) {
  check_scans<std::uint64_t, Sum<std::uint64_t>>(backend(), ws_, false);
}
TEST_P(ScanTest, SumFloat64) {
  check_scans<double, Sum<double>>(backend(), ws_, false);
}
TEST_P(ScanTest, MaxInt32) {
  check_scans<std::int32_t, Max<std::int32_t>>(backend(), ws_, true);
}
TEST_P(ScanTest, MaxFloat64) {
  check_scans<double, Max<double>>(backend(), ws_, true);
}

// −∞ is a value like any other: a max over −∞ stays −∞ (the identity must not be −DBL_MAX).
TEST_P(ScanTest, MaxFloat64KeepsNegativeInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> in{-inf, -inf, -1.0, -inf};
  std::vector<double> out;
  const double total_in = run_scan<true, double>(backend(), ws_, in, out, Max<double>{});
  EXPECT_EQ(total_in, -1.0);
  EXPECT_EQ(out, (std::vector<double>{-inf, -inf, -1.0, -1.0}));
  const double total_ex = run_scan<false, double>(backend(), ws_, in, out, Max<double>{});
  EXPECT_EQ(total_ex, -1.0);
  EXPECT_EQ(out, (std::vector<double>{-inf, -inf, -inf, -1.0}));
  const double total_one =
      run_scan<true, double>(backend(), ws_, std::vector<double>{-inf}, out, Max<double>{});
  EXPECT_EQ(total_one, -inf);
}

// The host scan may be run in place (out aliases in).
TEST_P(ScanTest, InPlaceHost) {
  if (backend() == Backend::Cuda) GTEST_SKIP() << "host-only contract";
  for (std::size_t n : test_sizes()) {
    auto v = make_values<std::int64_t>(n, Pattern::Random, 3);
    std::int64_t total = 0;
    const auto want = reference_scan<false, std::int64_t, Sum<std::int64_t>>(v, total);
    EXPECT_EQ(exclusive_scan<std::int64_t>(ws_, v, v), total);
    EXPECT_EQ(v, want) << "n=" << n;
  }
}

TEST_P(ScanTest, ShortOutputThrows) {
  if (backend() == Backend::Cuda) GTEST_SKIP() << "host-only contract";
  std::vector<int> in(5, 1), out(4);
  EXPECT_THROW(exclusive_scan<int>(ws_, in, out), std::invalid_argument);
}

// Device scratch must be 256-byte aligned (the tile status words are read as 64-bit atomics).
TEST_P(ScanTest, MisalignedScratchThrows) {
  if (backend() != Backend::Cuda) GTEST_SKIP() << "device-only contract";
#if defined(SCANMD_TEST_CUDA)
  const std::vector<std::uint32_t> in(100, 1u);
  auto d_in = dev::upload(in);
  cuda::DeviceBuffer<std::uint32_t> d_out(in.size());
  const std::size_t bytes = cuda::scan_scratch_bytes<std::uint32_t>(in.size());
  cuda::DeviceBuffer<std::byte> scratch(bytes + 256);
  EXPECT_THROW(cuda::exclusive_scan<std::uint32_t>(scratch.data() + 8, bytes, d_in.span(),
                                                   d_out.span(), nullptr, nullptr),
               std::invalid_argument);
  EXPECT_NO_THROW(cuda::exclusive_scan<std::uint32_t>(scratch.data(), bytes, d_in.span(),
                                                      d_out.span(), nullptr, nullptr));
#endif
}

INSTANTIATE_TEST_SUITE_P(Backends, ScanTest, ::testing::ValuesIn(all_backends()), backend_name);

// Workspace: grows on demand, reuses capacity, never allocates for a repeated call.
TEST(Workspace, GrowsOnlyWhenNeeded) {
  Workspace ws;
  auto a = ws.get<int>(3, 10);
  EXPECT_EQ(a.size(), 10u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);
  const auto allocs = ws.allocations();
  auto b = ws.get<int>(3, 5);
  EXPECT_EQ(b.data(), a.data());
  EXPECT_EQ(ws.allocations(), allocs);
  ws.get<double>(3, 1000);
  EXPECT_EQ(ws.allocations(), allocs + 1);
  EXPECT_GE(ws.capacity_bytes(), 1000 * sizeof(double));
}

TEST(Operators, SegmentedIsAssociativeAndRestarts) {
  using S = Segmented<Sum<int>>;
  const S::value_type a{1, 2}, b{0, 3}, c{1, 4}, d{0, 5};
  const auto l = S{}(S{}(a, b), S{}(c, d));
  const auto r = S{}(a, S{}(b, S{}(c, d)));
  EXPECT_EQ(l.flag, r.flag);
  EXPECT_EQ(l.value, r.value);
  EXPECT_EQ(l.value, 9);  // restarted at c: 4 + 5
  EXPECT_EQ(S{}(S::identity(), b).value, 3);
  EXPECT_EQ(Max<int>{}(Max<int>::identity(), -7), -7);
}

}  // namespace
}  // namespace scanmd::kernels::test
