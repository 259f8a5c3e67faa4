#include "engine/cluster_list.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scanmd {

void ClusterList::build(const std::uint32_t* row, const std::uint32_t* nbr, std::size_t rows,
                        const Vec3* q, std::size_t n, std::uint64_t generation) {
  // The columns: a square grid over the particles' bounding box in x and y, of edge a = the
  // side of a cube holding kClusterSize particles at the mean density.
  Vec3 lo{0.0, 0.0, 0.0}, hi{0.0, 0.0, 0.0};
  if (n > 0) lo = hi = q[0];
  for (std::size_t i = 1; i < n; ++i) {
    lo = {std::min(lo.x, q[i].x), std::min(lo.y, q[i].y), std::min(lo.z, q[i].z)};
    hi = {std::max(hi.x, q[i].x), std::max(hi.y, q[i].y), std::max(hi.z, q[i].z)};
  }
  const double ex = std::max(hi.x - lo.x, 1e-300), ey = std::max(hi.y - lo.y, 1e-300),
               ez = std::max(hi.z - lo.z, 1e-300);
  const double edge = n > 0 ? std::cbrt(kClusterSize * ex * ey * ez / static_cast<double>(n)) : 1.0;
  // The grid starts a quarter edge below the lowest particle: a lattice start (fcc, whose cube
  // of four is the edge) then has its planes of particles between the column boundaries, not on
  // them (the thermal motion would scatter them over two columns).
  lo.x -= 0.25 * edge;
  lo.y -= 0.25 * edge;
  const double ex1 = ex + 0.25 * edge, ey1 = ey + 0.25 * edge;
  const auto along = [&](double e) {
    return static_cast<std::uint32_t>(std::clamp(e / edge, 1.0, 4096.0));
  };
  const std::uint32_t nx = along(ex1), ny = along(ey1);
  const double ix = nx / ex1, iy = ny / ey1;
  const std::size_t columns = std::size_t(nx) * ny;
  // Counting sort by column, then each column by z (ties by index: a fixed order).
  column_of_.resize(n);
  count_.assign(columns + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto cx =
        std::min(nx - 1, static_cast<std::uint32_t>(std::max(0.0, (q[i].x - lo.x) * ix)));
    const auto cy =
        std::min(ny - 1, static_cast<std::uint32_t>(std::max(0.0, (q[i].y - lo.y) * iy)));
    column_of_[i] = cy * nx + cx;
    ++count_[column_of_[i] + 1];
  }
  for (std::size_t c = 0; c < columns; ++c) count_[c + 1] += count_[c];
  by_z_.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    by_z_[count_[column_of_[i]]++] = {q[i].z, static_cast<std::uint32_t>(i)};
  // count_[c] is now column c's end; slots: each column from a cluster boundary.
  std::size_t slots = 0;
  for (std::size_t c = 0, begin = 0; c < columns; ++c) {
    const std::size_t end = count_[c];
    slots += (end - begin + kClusterSize - 1) / kClusterSize * kClusterSize;
    begin = end;
  }
  const std::size_t clusters = slots / kClusterSize;
  if (clusters >= (std::size_t{1} << 27))
    throw std::length_error("ClusterList: more than 2^27 clusters on one rank");
  particle_.assign(slots, kNone);
  slot_of_.resize(n);
  for (std::size_t c = 0, begin = 0, slot = 0; c < columns; ++c) {
    const std::size_t end = count_[c];
    std::sort(by_z_.begin() + static_cast<std::ptrdiff_t>(begin),
              by_z_.begin() + static_cast<std::ptrdiff_t>(end));
    for (std::size_t k = begin; k < end; ++k) {
      const std::uint32_t i = by_z_[k].second;
      particle_[slot + (k - begin)] = i;
      slot_of_[i] = static_cast<std::uint32_t>(slot + (k - begin));
    }
    slot += (end - begin + kClusterSize - 1) / kClusterSize * kClusterSize;
    begin = end;
  }
  // Each listed pair under its first cluster: key = (j-cluster << 4) | bit, grouped by the
  // i-cluster (a counting sort: each entry's cluster and key in list order, counted; scanned;
  // scattered).
  rows = std::min(rows, n);
  const std::size_t total = rows > 0 ? row[rows] - row[0] : 0;
  count_.assign(clusters + 1, 0);
  first_.resize(total);
  pair_key_.resize(total);
  for (std::size_t i = 0, w = 0; i < rows; ++i) {
    const std::uint32_t si = slot_of_[i];
    for (std::uint32_t k = row[i]; k < row[i + 1]; ++k, ++w) {
      const std::uint32_t sj = slot_of_[nbr[k]];
      // Under the first cluster; inside one cluster, as listed.
      const std::uint32_t lo = std::min(si, sj), hi = std::max(si, sj);
      const bool swap = sj / kClusterSize < si / kClusterSize;
      const std::uint32_t a = swap ? lo : si, b = swap ? hi : sj;
      first_[w] = a / kClusterSize;
      pair_key_[w] = (b / kClusterSize) << 4 | ((a % kClusterSize) * kClusterSize + b % kClusterSize);
      ++count_[a / kClusterSize];
    }
  }
  std::uint32_t sum = 0;
  for (std::size_t c = 0; c <= clusters; ++c) {
    const std::uint32_t here = count_[c];
    count_[c] = sum;
    sum += here;
  }
  pairs_ = total;
  key_.resize(total);
  for (std::size_t w = 0; w < total; ++w) key_[count_[first_[w]]++] = pair_key_[w];
  // count_[c] is now the end of cluster c's keys (the start of c + 1's): each i-cluster's keys
  // merged by j-cluster into entries (first-seen order, then sorted by j-cluster so the
  // kernel walks the positions forward).
  stamp_.assign(clusters, kNone);
  entry_of_.resize(clusters);
  offsets_.resize(clusters + 1);
  j_cluster_.clear();
  mask_.clear();
  std::uint32_t begin = 0;
  bool exact = true;
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
      const auto bit = static_cast<std::uint16_t>(1u << (key_[k] & 15u));
      exact = exact && (mask_[entry_of_[cj]] & bit) == 0;
      mask_[entry_of_[cj]] |= bit;
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
  built_from_ = generation;
  built_ = true;
  exact_ = exact;
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
