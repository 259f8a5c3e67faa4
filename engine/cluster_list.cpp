#include "engine/cluster_list.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine/neighbor_list.hpp"

namespace scanmd {

void ClusterList::build(const NeighborList& list, const std::vector<std::uint32_t>& order,
                        std::size_t n) {
  if (order.size() < n) throw std::logic_error("ClusterList: the cell order misses particles");
  const std::size_t clusters = (n + kClusterSize - 1) / kClusterSize;
  if (clusters >= (std::size_t{1} << 27))
    throw std::length_error("ClusterList: more than 2^27 clusters on one rank");
  // Slots: the cell order, cut into clusters (the last one padded).
  particle_.assign(clusters * kClusterSize, kNone);
  slot_of_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    particle_[k] = order[k];
    slot_of_[order[k]] = static_cast<std::uint32_t>(k);
  }
  // Each listed pair under its first cluster: key = (j-cluster << 4) | bit, grouped by the
  // i-cluster (a counting sort: count, scan, fill).
  const std::uint32_t* row = list.offsets().data();
  const std::uint32_t* nbr = list.neighbors().data();
  const std::size_t rows = list.offsets().empty() ? 0 : std::min(n, list.offsets().size() - 1);
  count_.assign(clusters + 1, 0);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint32_t ci = slot_of_[i] / kClusterSize;
    for (std::uint32_t k = row[i]; k < row[i + 1]; ++k)
      ++count_[std::min(ci, slot_of_[nbr[k]] / kClusterSize)];
  }
  std::uint32_t total = 0;
  for (std::size_t c = 0; c <= clusters; ++c) {
    const std::uint32_t here = count_[c];
    count_[c] = total;
    total += here;
  }
  pairs_ = total;
  key_.resize(total);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint32_t si = slot_of_[i];
    for (std::uint32_t k = row[i]; k < row[i + 1]; ++k) {
      const std::uint32_t sj = slot_of_[nbr[k]];
      const std::uint32_t ci = si / kClusterSize, cj = sj / kClusterSize;
      // Under the first cluster; inside one cluster, as listed.
      const bool swap = cj < ci;
      const std::uint32_t a = (swap ? sj : si) % kClusterSize, b = (swap ? si : sj) % kClusterSize;
      key_[count_[swap ? cj : ci]++] = ((swap ? ci : cj) << 4) | (a * kClusterSize + b);
    }
  }
  // count_[c] is now the end of cluster c's keys (the start of c + 1's): each i-cluster's keys
  // merged by j-cluster into entries (first-seen order, then sorted by j-cluster so the
  // kernel walks the positions forward).
  stamp_.assign(clusters, kNone);
  entry_of_.resize(clusters);
  offsets_.resize(clusters + 1);
  j_cluster_.clear();
  mask_.clear();
  std::uint32_t begin = 0;
  for (std::size_t c = 0; c < clusters; ++c) {
    const std::uint32_t end = count_[c];
    const auto first = static_cast<std::uint32_t>(j_cluster_.size());
    offsets_[c] = first;
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint32_t cj = key_[k] >> 4;
      if (stamp_[cj] != c) {
        stamp_[cj] = static_cast<std::uint32_t>(c);
        entry_of_[cj] = static_cast<std::uint32_t>(j_cluster_.size());
        j_cluster_.push_back(cj);
        mask_.push_back(0);
      }
      mask_[entry_of_[cj]] |= static_cast<std::uint16_t>(1u << (key_[k] & 15u));
    }
    // Sorted by j-cluster (a few dozen entries; insertion sort keeps the masks along).
    for (std::size_t k = first + 1; k < j_cluster_.size(); ++k) {
      const std::uint32_t cj = j_cluster_[k];
      const std::uint16_t m = mask_[k];
      std::size_t w = k;
      for (; w > first && j_cluster_[w - 1] > cj; --w) {
        j_cluster_[w] = j_cluster_[w - 1];
        mask_[w] = mask_[w - 1];
      }
      j_cluster_[w] = cj;
      mask_[w] = m;
    }
    begin = end;
  }
  offsets_[clusters] = static_cast<std::uint32_t>(j_cluster_.size());
  built_from_ = list.generation();
  built_ = true;
}

double ClusterList::bytes_per_particle() const {
  const std::size_t n = slot_of_.size();
  if (n == 0) return 0.0;
  const double bytes = static_cast<double>(
      offsets_.size() * sizeof(std::uint32_t) + j_cluster_.size() * sizeof(std::uint32_t) +
      mask_.size() * sizeof(std::uint16_t) + particle_.size() * sizeof(std::uint32_t));
  return bytes / static_cast<double>(n);
}

}  // namespace scanmd
