// The rows' split into parts of decreasing size (see row_parts.hpp).
#include "engine/row_parts.hpp"

#include <algorithm>

namespace scanmd {

namespace {

// The parts' ends as fractions of the work: rounds of `threads` parts of half the rest each over
// the threads while such a part is at least the smallest, then the rest in `threads`.
std::vector<double> part_ends(int threads) {
  std::vector<double> ends;
  const double smallest = 1.0 / (kSmallestPart * threads);
  double done = 0.0;
  for (double part = 0.5 / threads; part >= smallest; part = (1.0 - done) * 0.5 / threads)
    for (int t = 0; t < threads; ++t) ends.push_back(done += part);
  for (int t = 1; t < threads; ++t) ends.push_back(done + (1.0 - done) * t / threads);
  return ends;  // (the last end, 1, left out)
}

}  // namespace

std::vector<std::size_t> row_parts(const std::uint32_t* offsets, std::size_t n, int threads) {
  std::vector<std::size_t> at{0};
  const double total = offsets[n];
  for (const double end : part_ends(threads))
    at.push_back(static_cast<std::size_t>(
        std::lower_bound(offsets, offsets + n, static_cast<std::uint32_t>(total * end)) - offsets));
  at.push_back(n);
  return at;
}

std::vector<std::size_t> item_parts(std::size_t count, int threads) {
  std::vector<std::size_t> at{0};
  for (const double end : part_ends(threads))
    at.push_back(std::min(count, static_cast<std::size_t>(static_cast<double>(count) * end)));
  at.push_back(count);
  return at;
}

}  // namespace scanmd
