// The px × py × pz grid of rank boxes over the periodic box, and the choice of that grid.
//
// Rank r has grid coordinate c = (r % px, (r / px) % py, r / (px py)) and owns the box
// [c·b, (c+1)·b) with b = L / p. A position belongs to box floor(x·p/L) (clamped): this one
// formula decides ownership everywhere, so every rank agrees on where a particle lives.
#pragma once

#include <string>

#include "base/box.hpp"
#include "decomposition/method.hpp"

namespace scanmd {

class RankGrid {
 public:
  RankGrid(Int3 dims, const Box& box);

  Int3 dims() const { return dims_; }
  int size() const { return dims_.x * dims_.y * dims_.z; }
  Vec3 sub_length() const { return b_; }

  Int3 coord_of(int rank) const {
    return {rank % dims_.x, (rank / dims_.x) % dims_.y, rank / (dims_.x * dims_.y)};
  }
  int rank_of(Int3 c) const { return c.x + dims_.x * (c.y + dims_.y * c.z); }

  // Grid coordinate of the box holding a wrapped position.
  Int3 box_of(Vec3 x) const {
    return {axis_box(x.x, scale_.x, dims_.x), axis_box(x.y, scale_.y, dims_.y),
            axis_box(x.z, scale_.z, dims_.z)};
  }
  Vec3 lo(Int3 c) const { return {c.x * b_.x, c.y * b_.y, c.z * b_.z}; }
  Vec3 hi(Int3 c) const { return {(c.x + 1) * b_.x, (c.y + 1) * b_.y, (c.z + 1) * b_.z}; }

  std::string to_string() const;  // "2x2x1"

 private:
  static int axis_box(double x, double scale, int n) {
    int c = static_cast<int>(x * scale);
    return c < 0 ? 0 : (c >= n ? n - 1 : c);
  }
  Int3 dims_;
  Vec3 b_;
  Vec3 scale_;  // p / L
};

// Analytic import volume of one box (DESIGN.md §4, rounded regions) for box edges b and
// import cutoff R.
double analytic_import_volume(Method m, Vec3 b, double R);

// The grid for `ranks` ranks: `requested` when all its entries are non-zero (checked to
// multiply to `ranks`), else the factorisation px·py·pz = ranks minimising the analytic
// import volume of the method (ties: the most cubic, then lexicographic). Entries of
// `requested` that are non-zero are kept fixed. Throws std::invalid_argument with a
// message naming the problem.
Int3 choose_grid(int ranks, Int3 requested, const Box& box, Method m, double R);

}  // namespace scanmd
