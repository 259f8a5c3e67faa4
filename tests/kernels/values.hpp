// tests/kernels/values.hpp — deterministic random and adversarial inputs for the kernel tests.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace scanmd::kernels::test {

enum class Pattern { Random, Ones, Extreme };
inline const char* pattern_name(Pattern p) {
  return p == Pattern::Random ? "random" : p == Pattern::Ones ? "ones" : "extreme";
}

// Extreme: unsigned → max() (sums wrap identically in the oracle); signed → alternating
// ±max()/(n+1) (largest values whose sums cannot overflow); float → ±1e300 and tiny values;
// ForMax → lowest()/max() mixed in.
template <class T>
std::vector<T> make_values(std::size_t n, Pattern p, std::uint64_t seed, bool for_max = false) {
  std::vector<T> v(n);
  std::mt19937_64 rng(seed * 7919 + n);
  for (std::size_t i = 0; i < n; ++i) {
    if (p == Pattern::Ones) {
      v[i] = T(1);
    } else if (p == Pattern::Extreme) {
      if (for_max) {
        const std::uint64_t r = rng() % 3;
        v[i] = r == 0   ? std::numeric_limits<T>::lowest()
               : r == 1 ? std::numeric_limits<T>::max()
                        : T(rng() % 100);
      } else if constexpr (std::is_floating_point_v<T>) {
        v[i] = (i % 2 ? -1.0 : 1.0) * (rng() % 2 ? 1e300 : 1e-300);
      } else if constexpr (std::is_unsigned_v<T>) {
        v[i] = std::numeric_limits<T>::max();
      } else {
        const T big = std::numeric_limits<T>::max() / static_cast<T>(n + 1);
        v[i] = i % 2 ? T(-big) : big;
      }
    } else {
      if constexpr (std::is_floating_point_v<T>) {
        v[i] = std::uniform_real_distribution<T>(-1, 1)(rng);
      } else if constexpr (std::is_signed_v<T>) {
        v[i] = static_cast<T>(static_cast<std::int64_t>(rng() % 2001) - 1000);
      } else {
        v[i] = static_cast<T>(rng());
      }
    }
  }
  return v;
}

inline std::vector<std::uint8_t> make_flags(std::size_t n, double p_one, std::uint64_t seed) {
  std::vector<std::uint8_t> f(n);
  std::mt19937_64 rng(seed * 104729 + n);
  std::bernoulli_distribution d(p_one);
  // Nonzero values other than 1 too: "!= 0" is the contract.
  for (auto& x : f) x = d(rng) ? static_cast<std::uint8_t>(1 + rng() % 3) : 0;
  return f;
}

}  // namespace scanmd::kernels::test
