// engine/cuda/device_cell_list.hpp — cell binning of one rank's particles on the device, the
// sibling of CellList (engine/cell_list.hpp): the same CellGrid, so both backends put every
// particle in the same cell, and the same stable counting sort (kernels/cuda), so both get the
// same cell order.
//
//   bin            q = x + shift·L, cell = grid.cell_of(q), key = flat cell index
//   counting sort  key → cell offsets (cells + 1) and order (particle indices by cell)
//   gather         rank[order[k]] = k, q_sorted[k], home_sorted[k]: what the list build reads
// A particle far outside the padded box raises flags->bad_cell.
#pragma once

#include <cstdint>

#include "engine/cell_list.hpp"
#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/device_particles.hpp"
#include "engine/cuda/launch.hpp"

namespace scanmd::cuda_step {

class DeviceCellList {
 public:
  DeviceCellList(const CellGrid& grid, Vec3 box_length);
  // A new local domain (load balancing moved this rank's box); buffers are kept.
  void set_grid(const CellGrid& grid);

  // Bins particles [0, p.n) and makes the cell-ordered copies. Synchronises (key check).
  void build(const DeviceParticles& p, Scratch& scratch, DeviceFlags* flags, cudaStream_t stream);
  // The cell order of the owned particles alone (owned shifts are 0: binning positions are
  // positions), for DeviceParticles::permute_owned. Synchronises (key check).
  const std::uint32_t* order_owned(const DeviceParticles& p, Scratch& scratch, DeviceFlags* flags,
                                   cudaStream_t stream);

  const CellGrid& grid() const { return grid_; }
  const Int3* cell() const { return cell_.data(); }
  const std::uint32_t* rank() const { return rank_.data(); }
  const Vec3* q_sorted() const { return q_sorted_.data(); }
  const Int3* home_sorted() const { return home_sorted_.data(); }
  const std::uint32_t* order() const { return order_.data(); }
  const std::uint32_t* offsets() const { return offsets_.data(); }

 private:
  void bin_and_sort(const DeviceParticles& p, std::uint32_t n, Scratch& scratch, DeviceFlags* flags,
                    cudaStream_t stream);

  CellGrid grid_;
  Vec3 length_;  // L: binning positions x + shift·L
  std::uint32_t cells_;
  DeviceBuffer<Vec3> q_, q_sorted_;
  DeviceBuffer<Int3> cell_, home_sorted_;
  DeviceBuffer<std::uint32_t> key_, order_, rank_, offsets_;
};

}  // namespace scanmd::cuda_step
