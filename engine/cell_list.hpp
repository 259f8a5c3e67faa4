// Cell binning of one rank's particles (owned and ghosts) by counting sort.
//
// The local domain is the rank's box padded by R on every side, so it holds every ghost
// image; it is cut into cells of edge >= R/2, so all neighbours of a particle within R lie
// within `reach()` = 2 cells of its own (or, where that leaves less than one particle per cell
// on average, of edge >= R and reach 1) (the local domain is not periodic: periodicity was
// resolved when ghost images were made). Binning is the scan pattern of kernels/:
//   cell id per particle → histogram → exclusive scan → stable scatter
// giving `offsets` (cells + 1) and `order` (particle indices grouped by cell, in index order
// within a cell).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "base/box.hpp"
#include "base/particles.hpp"
#include "engine/pair_candidate.hpp"
#include "kernels/workspace.hpp"

namespace scanmd {

SCANMD_HD inline int clamp_cell(int c, int n) {
  return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

// The cell geometry of one build, shared by the host CellList and the CUDA binning
// (engine/cuda/neighbors.cu) so that both put every particle in the same cell.
struct CellGrid {
  Vec3 origin;  // lo − pad
  Vec3 inv;     // cells per unit length along each axis
  Int3 dims;

  // Cells of edge >= search_radius / 2 over [lo − pad, hi + pad).
  static CellGrid make(Vec3 lo, Vec3 hi, double pad, double search_radius);

  // Binning position of a particle: its wrapped position shifted by its image shift.
  SCANMD_HD static Vec3 binning_position(Vec3 x, Int3 s, const Vec3& length) {
    return {x.x + s.x * length.x, x.y + s.y * length.y, x.z + s.z * length.z};
  }
  // Unclamped cell coordinate along one axis (may lie outside [0, dims)).
  SCANMD_HD static double raw_cell(double q, double origin, double inv) {
    return floor((q - origin) * inv);
  }
  SCANMD_HD Int3 cell_of(Vec3 q) const {
    return {clamp_cell(static_cast<int>(raw_cell(q.x, origin.x, inv.x)), dims.x),
            clamp_cell(static_cast<int>(raw_cell(q.y, origin.y, inv.y)), dims.y),
            clamp_cell(static_cast<int>(raw_cell(q.z, origin.z, inv.z)), dims.z)};
  }
  SCANMD_HD int flat(Int3 c) const { return c.x + dims.x * (c.y + dims.y * c.z); }
  // The longest edge of the grid.
  double extent() const {
    const double ex = dims.x / inv.x, ey = dims.y / inv.y, ez = dims.z / inv.z;
    return ex > ey ? (ex > ez ? ex : ez) : (ey > ez ? ey : ez);
  }
};

// The neighbour-list search of radius R over this grid (both backends' lists use it).
inline SearchSphere search_sphere(const CellGrid& grid, double R) {
  return SearchSphere::make(grid.origin, grid.extent(), R);
}

class CellList {
 public:
  // Bins the binning positions x + shift·L of all particles of p over [lo − pad, hi + pad)
  // into cells of edge >= search_radius / 2 (>= search_radius where those would hold less
  // than one particle each on average: reach() 1 instead of 2).
  void build(kernels::Workspace& ws, const ParticleStore& p, const Box& box, Vec3 lo, Vec3 hi,
             double pad, double search_radius);

  Int3 dims() const { return dims_; }
  int reach() const { return reach_; }
  std::size_t cell_count() const { return std::size_t(dims_.x) * dims_.y * dims_.z; }
  int flat(Int3 c) const { return c.x + dims_.x * (c.y + dims_.y * c.z); }
  const CellGrid& grid() const { return grid_; }
  Vec3 box_length() const { return length_; }        // for binning positions x + shift·L
  double box_volume() const { return box_volume_; }  // of the rank's box [lo, hi)
  // Cell of particle i, from its flat key (the binning positions are not kept: the neighbour
  // list computes them in cell order, so one copy exists, 24 B per particle less).
  Int3 cell_of(std::size_t i) const {
    const int k = static_cast<int>(keys_[i]);
    return {k % dims_.x, (k / dims_.x) % dims_.y, k / (dims_.x * dims_.y)};
  }

  // Particle i's flat cell key (two particles share a cell when their keys are equal).
  std::uint32_t key(std::size_t i) const { return keys_[i]; }

  const std::vector<std::uint32_t>& offsets() const { return offsets_; }
  const std::vector<std::uint32_t>& order() const { return order_; }

 private:
  CellGrid grid_{};
  Vec3 length_{};
  double box_volume_ = 0.0;
  Int3 dims_{1, 1, 1};
  int reach_ = 1;
  std::vector<std::uint32_t> keys_, offsets_, order_;
};

}  // namespace scanmd
