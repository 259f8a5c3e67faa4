// tests/kernels/test_counting_sort.cpp — stable counting sort on every backend against a plain
// per-key bucket oracle: few / many / more-than-n keys, one key, descending keys, bad keys.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/backend.hpp"

namespace scanmd::kernels::test {
namespace {

// Oracle: append each index to its key's bucket in input order (stable by construction).
void reference_sort(const std::vector<std::uint32_t>& keys, std::uint32_t K,
                    std::vector<std::uint32_t>& offsets, std::vector<std::uint32_t>& perm) {
  std::vector<std::vector<std::uint32_t>> bucket(K);
  for (std::size_t i = 0; i < keys.size(); ++i)
    bucket[keys[i]].push_back(static_cast<std::uint32_t>(i));
  offsets.assign(std::size_t{K} + 1, 0);
  perm.clear();
  for (std::uint32_t k = 0; k < K; ++k) {
    offsets[k] = static_cast<std::uint32_t>(perm.size());
    perm.insert(perm.end(), bucket[k].begin(), bucket[k].end());
  }
  offsets[K] = static_cast<std::uint32_t>(perm.size());
}

std::vector<std::uint32_t> make_keys(std::size_t n, std::uint32_t K, int kind) {
  std::vector<std::uint32_t> k(n);
  std::mt19937 rng(static_cast<unsigned>(n * 31 + K));
  for (std::size_t i = 0; i < n; ++i) {
    switch (kind) {
      case 0:
        k[i] = rng() % K;
        break;  // random
      case 1:
        k[i] = K - 1;
        break;  // one key
      default:
        k[i] = static_cast<std::uint32_t>((n - 1 - i) * K / n);
        break;  // descending
    }
  }
  return k;
}

using CountingSortTest = BackendTest;

TEST_P(CountingSortTest, MatchesStableReference) {
  for (int kind = 0; kind < 3; ++kind) {
    for (std::size_t n : test_sizes()) {
      // K small (parallel host path), large (> n: sequential host path, many GPU radix passes).
      for (std::uint32_t K : {1u, 7u, 1000u, 300000u, static_cast<std::uint32_t>(2 * n + 3)}) {
        if (n == 0 && kind != 0) continue;
        const auto keys = make_keys(n, K, kind);
        std::vector<std::uint32_t> want_off, want_perm, off, perm;
        reference_sort(keys, K, want_off, want_perm);
        run_counting_sort(backend(), ws_, keys, K, off, perm);
        const std::string what =
            "kind=" + std::to_string(kind) + " n=" + std::to_string(n) + " K=" + std::to_string(K);
        ASSERT_EQ(off, want_off) << what;
        ASSERT_EQ(perm, want_perm) << what;
      }
    }
  }
}

TEST_P(CountingSortTest, KeyOutOfRangeNamesIndex) {
  for (std::size_t n : {std::size_t{10}, std::size_t{1} << 20}) {
    auto keys = make_keys(n, 50, 0);
    keys[n / 2 + 1] = 50;
    keys[n - 1] = 77;
    std::vector<std::uint32_t> off, perm;
    try {
      run_counting_sort(backend(), ws_, keys, 50, off, perm);
      FAIL() << "no exception for a key >= K";
    } catch (const std::out_of_range& e) {
      EXPECT_NE(std::string(e.what()).find("keys[" + std::to_string(n / 2 + 1) + "]"),
                std::string::npos)
          << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CountingSortTest, ::testing::ValuesIn(all_backends()),
                         backend_name);

}  // namespace
}  // namespace scanmd::kernels::test
