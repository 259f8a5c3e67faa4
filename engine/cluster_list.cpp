#include "engine/cluster_list.hpp"

#include <algorithm>
#include <stdexcept>

namespace scanmd {

void ClusterList::build(const std::uint32_t* row, const std::uint32_t* nbr, std::size_t rows,
                        const std::uint32_t* order, std::size_t n, std::uint64_t generation) {
  // Slots: the cell order, cut into clusters of four (the last one padded).
  const std::size_t clusters = (n + kClusterSize - 1) / kClusterSize;
  if (clusters >= (std::size_t{1} << 28))
    throw std::length_error("ClusterList: more than 2^28 clusters on one rank");
  particle_.assign(clusters * kClusterSize, kNone);
  slot_of_.resize(n);
  for (std::size_t s = 0; s < n; ++s) {
    particle_[s] = order[s];
    slot_of_[order[s]] = static_cast<std::uint32_t>(s);
  }
  // One pass in slot order: each i-cluster's rows, their pairs merged by j-cluster into entries
  // (first-seen order, then sorted by j-cluster so the kernel walks the positions forward).
  rows = std::min(rows, n);
  stamp_.assign(clusters, kNone);
  entry_of_.resize(clusters);
  offsets_.resize(clusters + 1);
  j_cluster_.clear();
  mask_.clear();
  pairs_ = 0;
  bool exact = true;
  for (std::size_t c = 0; c < clusters; ++c) {
    const auto first = static_cast<std::uint32_t>(j_cluster_.size());
    offsets_[c] = first;
    for (std::uint32_t a = 0; a < kClusterSize; ++a) {
      const std::uint32_t i = particle_[c * kClusterSize + a];
      if (i == kNone || i >= rows) continue;
      pairs_ += row[i + 1] - row[i];
      for (std::uint32_t k = row[i]; k < row[i + 1]; ++k) {
        const std::uint32_t sj = slot_of_[nbr[k]];
        const std::uint32_t cj = sj / kClusterSize;
        if (stamp_[cj] != c) {
          stamp_[cj] = static_cast<std::uint32_t>(c);
          entry_of_[cj] = static_cast<std::uint32_t>(j_cluster_.size());
          j_cluster_.push_back(cj);
          mask_.push_back(0);
        }
        const auto bit = static_cast<std::uint16_t>(1u << (a * kClusterSize + sj % kClusterSize));
        exact = exact && (mask_[entry_of_[cj]] & bit) == 0;
        mask_[entry_of_[cj]] |= bit;
      }
    }
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
  }
  offsets_[clusters] = static_cast<std::uint32_t>(j_cluster_.size());
  // The build's scratch is not kept between builds (it would come on top of the per-atom list
  // at the peak of memory).
  release_scratch();
  built_from_ = generation;
  particles_ = n;
  built_ = true;
  exact_ = exact;
}

void ClusterList::release_scratch() {
  std::vector<std::uint32_t>().swap(stamp_);
  std::vector<std::uint32_t>().swap(entry_of_);
  std::vector<std::uint32_t>().swap(slot_of_);
}

double ClusterList::bytes_per_particle() const {
  const std::size_t n = particles_;
  if (n == 0) return 0.0;
  const double bytes = static_cast<double>(
      offsets_.size() * sizeof(std::uint32_t) + j_cluster_.size() * sizeof(std::uint32_t) +
      mask_.size() * sizeof(std::uint16_t) + particle_.size() * sizeof(std::uint32_t));
  return bytes / static_cast<double>(n);
}

void cluster_positions(const ClusterList& cl, const Vec3* x, std::size_t begin, std::size_t end,
                       double* cx, double* cy, double* cz, double* bounds) {
  const std::uint32_t* particle = cl.particle().data();
  for (std::size_t c = begin; c < end; ++c) {
    Vec3 lo{0.0, 0.0, 0.0}, hi{0.0, 0.0, 0.0};
    bool first = true;
    for (std::size_t s = c * kClusterSize; s < (c + 1) * kClusterSize; ++s) {
      const std::uint32_t i = particle[s];
      const Vec3 q = i != ClusterList::kNone ? x[i] : Vec3{0.0, 0.0, 0.0};
      cx[s] = q.x;
      cy[s] = q.y;
      cz[s] = q.z;
      if (i == ClusterList::kNone) continue;
      lo = first ? q : Vec3{std::min(lo.x, q.x), std::min(lo.y, q.y), std::min(lo.z, q.z)};
      hi = first ? q : Vec3{std::max(hi.x, q.x), std::max(hi.y, q.y), std::max(hi.z, q.z)};
      first = false;
    }
    double* b = bounds + 8 * c;
    b[0] = lo.x, b[1] = lo.y, b[2] = lo.z, b[3] = 0.0;
    b[4] = hi.x, b[5] = hi.y, b[6] = hi.z, b[7] = 0.0;
  }
}

}  // namespace scanmd
