// engine/cuda/device_neighbor_list.cpp — see device_neighbor_list.hpp.
#include "engine/cuda/device_neighbor_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>

#include "engine/fixed_terms.hpp"

namespace scanmd::cuda_step {

void DeviceNeighborList::build(const DeviceParticles& p, const DeviceCellList& cells,
                               const PairRule& rule, double import_cutoff, Scratch& scratch,
                               DeviceFlags* flags, cudaStream_t stream) {
  const std::uint32_t n = p.n;
  const std::size_t elements = std::size_t{n} * kRunsPerRow;
  const bool segmented = fill_ == NeighborFill::SegmentedScan;
  ensure(run_offset_, elements);
  if (segmented) {
    ensure(run_count_, elements);
    ensure(heads_, elements);
    scratch.ensure(kernels::cuda::segmented_scan_scratch_bytes<std::uint32_t>(elements));
  }
  ensure(row_len_, n);
  ensure(row_offset_, std::size_t{n} + 1);
  ensure(terms_, n);
  scratch.ensure(kernels::cuda::scan_scratch_bytes<std::uint64_t>(n));

  const bool general = rule.method != Method::HalfShell && rule.method != Method::FullShell;
  const NeighborArgs a{p.x.data(),
                       p.id.data(),
                       p.home.data(),
                       cells.cell(),
                       cells.rank(),
                       cells.q_sorted(),
                       cells.home_sorted(),
                       cells.order(),
                       cells.offsets(),
                       cells.grid().dims,
                       n,
                       p.n_owned,
                       rule,
                       general,
                       search_sphere(cells.grid(), import_cutoff)};
  if (segmented) {
    launch_neighbor_count(a, run_count_.data(), heads_.data(), nullptr, nullptr, stream);
    kernels::cuda::segmented_exclusive_scan<std::uint32_t>(
        scratch.data(), scratch.size(), std::span<const std::uint8_t>(heads_.data(), elements),
        std::span<const std::uint32_t>(run_count_.data(), elements),
        std::span<std::uint32_t>(run_offset_.data(), elements), stream);
    launch_neighbor_rows(n, run_count_.data(), run_offset_.data(), row_len_.data(), terms_.data(),
                         stream);
  } else {
    if (n > 0)
      check(cudaMemsetAsync(row_len_.data(), 0, std::size_t{n} * sizeof(std::uint64_t), stream),
            "cudaMemsetAsync row lengths");
    launch_neighbor_count(a, nullptr, nullptr, run_offset_.data(), row_len_.data(), stream);
    launch_neighbor_rows(n, nullptr, run_offset_.data(), row_len_.data(), terms_.data(), stream);
  }
  kernels::cuda::exclusive_scan<std::uint64_t>(
      scratch.data(), scratch.size(), std::span<const std::uint64_t>(row_len_.data(), n),
      std::span<std::uint64_t>(row_offset_.data(), n), row_offset_.data() + n, stream);
  const std::uint64_t total = read_one(row_offset_.data() + n, stream);
  if (total >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error(fmt::format(
        "backend cuda: {} neighbour-list entries on one rank are more than this version "
        "supports (2^32); use more ranks",
        total));
  size_ = total;
  ensure(nbr_, std::max<std::uint64_t>(total, 1));
  check(cudaMemsetAsync(&flags->max_terms, 0, sizeof(unsigned long long), stream),
        "cudaMemsetAsync flags");
  launch_neighbor_fill(a, run_offset_.data(), row_offset_.data(), nbr_.data(), terms_.data(),
                       stream);
  launch_max_terms(terms_.data(), n, flags, stream);
  const unsigned long long max_terms = read_one(&flags->max_terms, stream);
  limit_sq_ = pair_term_limit_sq(static_cast<double>(max_terms));
}

void DeviceNeighborList::drop_bonded(const DeviceParticles& p,
                                     const std::vector<const std::uint64_t*>& bond_atom,
                                     Scratch& scratch, cudaStream_t stream) {
  const std::uint32_t n = p.n;
  if (n == 0 || bond_atom.empty()) return;
  ensure(bond_planes_, bond_atom.size());
  upload(bond_planes_.data(), bond_atom, bond_atom.size(), stream);
  ensure(row_len_, n);
  ensure(kept_offset_, std::size_t{n} + 1);
  scratch.ensure(kernels::cuda::scan_scratch_bytes<std::uint64_t>(n));
  const DropBondedArgs a{p.id.data(), bond_planes_.data(), static_cast<int>(bond_atom.size()),
                         n,           row_offset_.data(),  nbr_.data()};
  launch_drop_bonded_count(a, row_len_.data(), stream);
  kernels::cuda::exclusive_scan<std::uint64_t>(
      scratch.data(), scratch.size(), std::span<const std::uint64_t>(row_len_.data(), n),
      std::span<std::uint64_t>(kept_offset_.data(), n), kept_offset_.data() + n, stream);
  const std::uint64_t total = read_one(kept_offset_.data() + n, stream);
  ensure(kept_nbr_, std::max<std::uint64_t>(total, 1));
  launch_drop_bonded_fill(a, kept_offset_.data(), kept_nbr_.data(), stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (bonded exclusions)");
  std::swap(row_offset_, kept_offset_);
  std::swap(nbr_, kept_nbr_);
  size_ = total;
}

void DeviceNeighborList::download(std::uint32_t n, std::vector<std::uint64_t>& offsets,
                                  std::vector<std::uint32_t>& neighbors,
                                  cudaStream_t stream) const {
  offsets.assign(std::size_t{n} + 1, 0);
  cuda_step::download(offsets, row_offset_.data(), std::size_t{n} + 1, stream);
  neighbors.assign(size_, 0);
  cuda_step::download(neighbors, nbr_.data(), size_, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (neighbour list)");
}

}  // namespace scanmd::cuda_step
