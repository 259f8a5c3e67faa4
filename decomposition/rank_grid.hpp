// The px × py × pz grid of rank boxes over the periodic box, and the choice of that grid.
//
// Rank r has grid coordinate c = (r % px, (r / px) % py, r / (px py)) and owns the box
// [lo(c), hi(c)) given by the grid's cut planes (decomposition/grid_cuts.hpp): equal boxes
// [c·b, (c+1)·b) with b = L / p, or cuts moved by load balancing. A position belongs to the box
// GridCuts::box_of names: this one function decides ownership everywhere, so every rank agrees
// on where a particle lives.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "base/box.hpp"
#include "decomposition/grid_cuts.hpp"
#include "decomposition/method.hpp"

namespace scanmd {

class RankGrid {
 public:
  RankGrid(Int3 dims, const Box& box);

  Int3 dims() const { return dims_; }
  int size() const { return dims_.x * dims_.y * dims_.z; }
  // L / p: the edges of every box when the boxes are equal, their mean otherwise.
  Vec3 sub_length() const { return {cuts_.x.b, cuts_.y.b, cuts_.z.b}; }
  const GridCuts& cuts() const { return cuts_; }
  // Moves the cut planes (load balancing); the dimensions stay.
  void set_cuts(const GridCuts& cuts) { cuts_ = cuts; }
  bool equal_boxes() const { return cuts_.equal(); }
  Vec3 box_length(Int3 c) const {
    const Vec3 l = lo(c), h = hi(c);
    return {h.x - l.x, h.y - l.y, h.z - l.z};
  }

  Int3 coord_of(int rank) const {
    return {rank % dims_.x, (rank / dims_.x) % dims_.y, rank / (dims_.x * dims_.y)};
  }
  int rank_of(Int3 c) const { return cuts_.rank_of(c); }

  // Grid coordinate of the box holding a wrapped position.
  Int3 box_of(Vec3 x) const { return cuts_.box_of(x); }
  Vec3 lo(Int3 c) const { return cuts_.lo(c); }
  Vec3 hi(Int3 c) const { return cuts_.hi(c); }

  std::string to_string() const;  // "2x2x1"

 private:
  Int3 dims_;
  GridCuts cuts_;
};

// Analytic import volume of one box (DESIGN.md §4, rounded regions) for box edges b and
// import cutoff R.
double analytic_import_volume(Method m, Vec3 b, double R);

// The grid for `ranks` ranks: `requested` when all its entries are non-zero (checked to
// multiply to `ranks`), else the factorisation px·py·pz = ranks minimising the analytic
// import volume of the method (ties: the most cubic, then lexicographic). Entries of
// `requested` that are non-zero are kept fixed. Throws GridError (a std::invalid_argument)
// when no grid of `ranks` boxes has them, with a message naming the problem.
class GridError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};
Int3 choose_grid(int ranks, Int3 requested, const Box& box, Method m, double R);

// Every grid choose_grid may return, best first (its order: import volume, then the most
// cubic); choose_grid returns the first. Load balancing picks further down the list when the
// first cannot be balanced (engine/load_balance.hpp).
std::vector<Int3> candidate_grids(int ranks, Int3 requested, const Box& box, Method m, double R);

}  // namespace scanmd
