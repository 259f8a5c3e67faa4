// Which images a box imports, and which pairs it computes: the whole difference between the
// decomposition methods, as pure functions shared by the host and CUDA code.
//
// Vocabulary. A particle's *image* is its wrapped position shifted by S·L (S ∈ {-1,0,1}³);
// the image's *home* H is the owner's box coordinate plus S·grid (it may lie outside the
// grid). The offset between two images is H_b − H_a. Because homes come from the owners'
// integer box coordinates and the pair's periodic shift, offsets are exactly antisymmetric
// — comparing raw box indices instead would double-count pairs on grids with one or two
// boxes along an axis (DESIGN.md §4).
//
// Import regions (rounded: points within R = cutoff + skin), for the box X with corner
// lo, hi and grid coordinate C:
//   full shell         every image within R of X that is not X's own particle
//   half shell         those whose offset H − C is lexicographically positive (x, y, z)
//   neutral territory  tower: same column (H.xy = C.xy), other layer, |z-distance| < R
//                      plate: same layer (H.z = C.z), column offset lexicographically
//                             positive, xy-distance < R  (half of the plate)
// Pair rules: `lists_pair(i, j)` is true for exactly one of (i, j), (j, i) when the pair is
// computed here, and false for both otherwise. `order` is any antisymmetric tie-break between
// two particles of this rank (ids, or positions in the cell order): which of the two heads
// the pair does not change any result, since forces are summed in fixed point.
//   full / half shell  i owned; j owned with order_i < order_j, or j a ghost (half shell
//                      imports only positive offsets, so every ghost pair of an owned particle
//                      is ours)
//   neutral territory  the tower particle t is the one whose column is lexicographically
//                      lower; in one column the lower layer; in one box the lower order. The
//                      pair is ours when t sits in our column and the plate particle p in
//                      our layer — X holds the point (x_t, y_t, z_p).
#pragma once

#include <cstdint>

#include "core/vec3.hpp"
#include "decomposition/method.hpp"

namespace scanmd {

enum class ImportKind : std::uint8_t { None = 0, Shell = 1, Tower = 2, Plate = 3 };

// Distance from a coordinate to the interval [lo, hi) along one axis.
SCANMD_HD inline double axis_gap(double q, double lo, double hi) {
  if (q < lo) return lo - q;
  if (q > hi) return q - hi;
  return 0.0;
}

struct ImportRegion {
  Method method;
  Int3 coord;  // C: the importing box
  Vec3 lo, hi;
  double r_sq;  // R², padded by a relative 1e-12 against rounding at the boundary
  double r;

  SCANMD_HD ImportKind classify(Vec3 q, Int3 home) const {
    const double gx = axis_gap(q.x, lo.x, hi.x);
    const double gy = axis_gap(q.y, lo.y, hi.y);
    const double gz = axis_gap(q.z, lo.z, hi.z);
    const Int3 o = home - coord;
    switch (method) {
      case Method::FullShell:
        return gx * gx + gy * gy + gz * gz < r_sq ? ImportKind::Shell : ImportKind::None;
      case Method::HalfShell:
        return lex_sign(o) > 0 && gx * gx + gy * gy + gz * gz < r_sq ? ImportKind::Shell
                                                                      : ImportKind::None;
      case Method::NeutralTerritory:
        if (o.x == 0 && o.y == 0) return o.z != 0 && gz < r ? ImportKind::Tower : ImportKind::None;
        if (o.z == 0 && lex_sign({o.x, o.y, 0}) > 0 && gx * gx + gy * gy < r_sq)
          return ImportKind::Plate;
        return ImportKind::None;
    }
    return ImportKind::None;
  }
};

struct PairRule {
  Method method;
  Int3 coord;  // C: this rank's box

  // May particle i (with this home) head a row of the neighbour list at all?
  SCANMD_HD bool can_head(bool i_owned, Int3 home_i) const {
    if (method != Method::NeutralTerritory) return i_owned;
    return home_i.x == coord.x && home_i.y == coord.y;
  }

  SCANMD_HD bool lists_pair(bool i_owned, bool j_owned, Int3 home_i, Int3 home_j,
                            std::uint64_t order_i, std::uint64_t order_j) const {
    if (method != Method::NeutralTerritory) {
      if (!i_owned) return false;
      return j_owned ? order_i < order_j : true;
    }
    const Int3 o = home_j - home_i;
    bool i_is_tower;
    if (o.x != 0 || o.y != 0) {
      i_is_tower = lex_sign({o.x, o.y, 0}) > 0;
    } else if (o.z != 0) {
      i_is_tower = o.z > 0;
    } else {
      i_is_tower = order_i < order_j;
    }
    return i_is_tower && home_i.x == coord.x && home_i.y == coord.y && home_j.z == coord.z;
  }
};

}  // namespace scanmd
