// The rows' split into parts of decreasing size (see row_parts.hpp).
#include "engine/row_parts.hpp"

#include <algorithm>

namespace scanmd {

std::vector<std::size_t> row_parts(const std::uint32_t* offsets, std::size_t n, int threads) {
  // The parts' ends as fractions of the list: rounds of `threads` parts of half the rest each
  // over the threads while such a part is at least the smallest, then the rest in `threads`.
  std::vector<double> ends;
  const double smallest = 1.0 / (kSmallestPart * threads);
  double done = 0.0;
  for (double part = 0.5 / threads; part >= smallest; part = (1.0 - done) * 0.5 / threads)
    for (int t = 0; t < threads; ++t) ends.push_back(done += part);
  for (int t = 1; t < threads; ++t) ends.push_back(done + (1.0 - done) * t / threads);
  ends.push_back(1.0);
  std::vector<std::size_t> at{0};
  const double total = offsets[n];
  for (std::size_t k = 0; k + 1 < ends.size(); ++k) {
    const auto target = static_cast<std::uint32_t>(total * ends[k]);
    at.push_back(
        static_cast<std::size_t>(std::lower_bound(offsets, offsets + n, target) - offsets));
  }
  at.push_back(n);
  return at;
}

}  // namespace scanmd
