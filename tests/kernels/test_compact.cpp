// tests/kernels/test_compact.cpp — order-preserving compaction on every backend against a plain
// loop: random, all-kept, none-kept and alternating flags.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernels/backend.hpp"
#include "tests/kernels/values.hpp"

namespace scanmd::kernels::test {
namespace {

std::vector<std::uint8_t> flags_for(std::size_t n, int kind) {
  switch (kind) {
    case 0:
      return make_flags(n, 0.3, 9);
    case 1:
      return std::vector<std::uint8_t>(n, 1);
    case 2:
      return std::vector<std::uint8_t>(n, 0);
    default: {
      std::vector<std::uint8_t> f(n);
      for (std::size_t i = 0; i < n; ++i) f[i] = i % 2;
      return f;
    }
  }
}

using CompactTest = BackendTest;

TEST_P(CompactTest, Indices) {
  for (int kind = 0; kind < 4; ++kind) {
    for (std::size_t n : test_sizes()) {
      const auto flags = flags_for(n, kind);
      std::vector<std::uint32_t> want;
      for (std::size_t i = 0; i < n; ++i)
        if (flags[i]) want.push_back(static_cast<std::uint32_t>(i));
      std::vector<std::uint32_t> out;
      const std::size_t count = run_compact_indices(backend(), ws_, flags, out);
      ASSERT_EQ(count, want.size()) << "kind=" << kind << " n=" << n;
      out.resize(count);
      ASSERT_EQ(out, want) << "kind=" << kind << " n=" << n;
    }
  }
}

template <class T>
void check_values(Backend b, Workspace& ws) {
  for (int kind = 0; kind < 4; ++kind) {
    for (std::size_t n : test_sizes()) {
      const auto flags = flags_for(n, kind);
      const auto in = make_values<T>(n, Pattern::Random, 6);
      std::vector<T> want;
      for (std::size_t i = 0; i < n; ++i)
        if (flags[i]) want.push_back(in[i]);
      std::vector<T> out;
      const std::size_t count = run_compact<T>(b, ws, flags, in, out);
      ASSERT_EQ(count, want.size()) << "kind=" << kind << " n=" << n;
      out.resize(count);
      ASSERT_EQ(out, want) << "kind=" << kind << " n=" << n;
    }
  }
}

TEST_P(CompactTest, ValuesInt32) {
  check_values<std::int32_t>(backend(), ws_);
}
TEST_P(CompactTest, ValuesUint64) {
  check_values<std::uint64_t>(backend(), ws_);
}
TEST_P(CompactTest, ValuesFloat64) {
  check_values<double>(backend(), ws_);
}

TEST_P(CompactTest, ShortOutputThrows) {
  if (backend() == Backend::Cuda) GTEST_SKIP() << "host-only contract";
  std::vector<std::uint8_t> flags(5, 1);
  std::vector<std::uint32_t> out(4);
  EXPECT_THROW(compact_indices(ws_, flags, out), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Backends, CompactTest, ::testing::ValuesIn(all_backends()), backend_name);

}  // namespace
}  // namespace scanmd::kernels::test
