// engine/cuda/device_cell_list.cpp — see device_cell_list.hpp.
#include "engine/cuda/device_cell_list.hpp"

#include <limits>
#include <span>
#include <stdexcept>

namespace scanmd::cuda_step {

DeviceCellList::DeviceCellList(const CellGrid& grid, Vec3 box_length)
    : grid_(grid), length_(box_length) {
  set_grid(grid);
}

void DeviceCellList::set_grid(const CellGrid& grid) {
  grid_ = grid;
  const std::size_t cells = std::size_t(grid.dims.x) * grid.dims.y * grid.dims.z;
  if (cells >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("backend cuda: too many cells for one rank");
  cells_ = static_cast<std::uint32_t>(cells);
}

void DeviceCellList::bin_and_sort(const DeviceParticles& p, std::uint32_t n, Scratch& scratch,
                                  DeviceFlags* flags, cudaStream_t stream) {
  ensure(q_, n);
  ensure(cell_, n);
  ensure(key_, n);
  ensure(order_, n);
  ensure(offsets_, std::size_t{cells_} + 1);
  scratch.ensure(kernels::cuda::counting_sort_scratch_bytes(n, cells_));
  launch_bin(
      {p.x.data(), p.shift.data(), n, length_, grid_, q_.data(), cell_.data(), key_.data(), flags},
      stream);
  // Synchronises the stream (key check).
  kernels::cuda::counting_sort(scratch.data(), scratch.size(),
                               std::span<const std::uint32_t>(key_.data(), n), cells_,
                               std::span<std::uint32_t>(offsets_.data(), std::size_t{cells_} + 1),
                               std::span<std::uint32_t>(order_.data(), n), stream);
}

void DeviceCellList::build(const DeviceParticles& p, Scratch& scratch, DeviceFlags* flags,
                           cudaStream_t stream) {
  bin_and_sort(p, p.n, scratch, flags, stream);
  ensure(rank_, p.n);
  ensure(q_sorted_, p.n);
  ensure(home_sorted_, p.n);
  launch_gather_sorted(order_.data(), q_.data(), p.home.data(), p.n, rank_.data(), q_sorted_.data(),
                       home_sorted_.data(), stream);
}

const std::uint32_t* DeviceCellList::order_owned(const DeviceParticles& p, Scratch& scratch,
                                                 DeviceFlags* flags, cudaStream_t stream) {
  bin_and_sort(p, p.n_owned, scratch, flags, stream);
  return order_.data();
}

}  // namespace scanmd::cuda_step
