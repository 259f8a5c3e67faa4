// The rows' split into parts of about equal list length (see row_parts.hpp).
#include "engine/row_parts.hpp"

#include <cstdint>

namespace scanmd {

std::vector<std::size_t> split_rows(const NeighborList& list, std::size_t n, int parts) {
  std::vector<std::size_t> at(static_cast<std::size_t>(parts) + 1, n);
  at[0] = 0;
  const auto& offsets = list.offsets();
  const double total = n ? offsets[n] : 0;
  for (int t = 1; t < parts; ++t) {
    const auto target = static_cast<std::uint32_t>(total * t / parts);
    at[static_cast<std::size_t>(t)] = static_cast<std::size_t>(
        std::lower_bound(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(n),
                         target) -
        offsets.begin());
  }
  return at;
}

}  // namespace scanmd
