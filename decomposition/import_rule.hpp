// Which images a box imports, and which pairs it computes: the whole difference between the
// decomposition methods, as pure functions shared by the host and CUDA code.
//
// Vocabulary. A particle's *image* is its wrapped position shifted by S·L (S ∈ {-1,0,1}³, or
// wider along an axis shorter than 2R);
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
//   eighth shell       offset H − C >= 0 on every axis (the upper octant), distance < R
//   midpoint           every image within R/2 of X (a full shell of half the thickness)
//   bonded shell       neutral territory with angles only: besides the tower and the plate,
//                      every other image within R_b (the longest bond + skin, at most R) of X —
//                      the ends of the angles whose vertex X owns (ImportKind::Bonded; R_b = 0:
//                      none). Such an image is in no tower and no plate of X, so no pair rule
//                      below lists it: only the bonded compute uses it.
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
//   eighth shell       ours when min(H_i, H_j) (component-wise) is our box.
//   midpoint           ours when the pair's midpoint image lies in our box. The midpoint is
//                      computed one canonical way — m = x_a + ½·(x_b − x_a + s·L), a the lower
//                      id, s the listed image of b relative to a's (the minimum image in boxes
//                      at least 2R long), from wrapped coordinates — and placed with integers: the box of
//                      m wrapped, plus its wrap count and a's image shift, times the grid.
//                      A midpoint within `midpoint_tie` below a cut plane (the periodic boundary
//                      included) counts as on it and goes to the box above, as a particle on a
//                      cut belongs to the box above: on a lattice start a whole plane of
//                      midpoints lies on the boundary at 0, and rounding alone sent some of it
//                      to the last box (15 % more pairs there than in the rest at P = 512). The
//                      import region widens by the tie, so that box holds both particles.
#pragma once

#include <cstdint>

#include "base/vec3.hpp"
#include "decomposition/grid_cuts.hpp"
#include "decomposition/method.hpp"

namespace scanmd {

enum class ImportKind : std::uint8_t { None = 0, Shell = 1, Tower = 2, Plate = 3, Bonded = 4 };

// How close to a cut plane a pair midpoint counts as a tie (midpoint rule): 2^-40 of the axis,
// far above the rounding of a midpoint computed from wrapped coordinates, far below anything
// physical.
SCANMD_HD inline double midpoint_tie(double len) {
  return len * 0x1p-40;
}

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
  Vec3 tie{};  // midpoint: midpoint_tie per axis, by which a tied pair may lie outside the box
  double bonded_r_sq = 0.0;  // neutral territory: R_b² of the bonded shell (0: none), padded

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
        return gx * gx + gy * gy + gz * gz < bonded_r_sq ? ImportKind::Bonded : ImportKind::None;
      case Method::EighthShell:
        return o.x >= 0 && o.y >= 0 && o.z >= 0 && gx * gx + gy * gy + gz * gz < r_sq
                   ? ImportKind::Shell
                   : ImportKind::None;
      case Method::Midpoint: {
        const double mx = gx > tie.x ? gx - tie.x : 0.0;
        const double my = gy > tie.y ? gy - tie.y : 0.0;
        const double mz = gz > tie.z ? gz - tie.z : 0.0;
        return 4.0 * (mx * mx + my * my + mz * mz) < r_sq ? ImportKind::Shell : ImportKind::None;
      }
    }
    return ImportKind::None;
  }
};

// One particle of a candidate pair, as the pair rules see it.
struct PairSide {
  bool owned;
  Int3 home;
  std::uint64_t order;  // antisymmetric tie-break (position in the cell order)
  std::uint64_t id;     // global id (midpoint: which particle is "a")
  Vec3 x;               // wrapped position (midpoint)
};

struct PairRule {
  Method method;
  Int3 coord;  // C: this rank's box
  // Needed by the midpoint rule only: the grid's boxes (GridCuts::box_of).
  GridCuts cuts = GridCuts::equal_boxes({1, 1, 1}, {1, 1, 1});

  // May particle i (with this home) head a row of the neighbour list at all?
  SCANMD_HD bool can_head(bool i_owned, Int3 home_i) const {
    switch (method) {
      case Method::HalfShell:
      case Method::FullShell:
        return i_owned;
      case Method::NeutralTerritory:
        return home_i.x == coord.x && home_i.y == coord.y;
      case Method::EighthShell:
      case Method::Midpoint:
        return true;
    }
    return false;
  }

  // Every method but the midpoint decides from homes and the tie-break alone.
  SCANMD_HD bool lists_pair(bool i_owned, bool j_owned, Int3 home_i, Int3 home_j,
                            std::uint64_t order_i, std::uint64_t order_j) const {
    switch (method) {
      case Method::HalfShell:
      case Method::FullShell:
        if (!i_owned) return false;
        return j_owned ? order_i < order_j : true;
      case Method::NeutralTerritory: {
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
      case Method::EighthShell: {
        const Int3 m{home_i.x < home_j.x ? home_i.x : home_j.x,
                     home_i.y < home_j.y ? home_i.y : home_j.y,
                     home_i.z < home_j.z ? home_i.z : home_j.z};
        return order_i < order_j && m == coord;
      }
      case Method::Midpoint:
        return false;  // needs positions: the PairSide overload
    }
    return false;
  }

  // Neutral territory's rule by classes (the host list build's candidate scan): with the head i
  // in our column (can_head), o_j = H_j − C, lists_pair(i, j) above reduces to
  //   j in our box (o_j = 0, class kOwnBox)          head in our box: order_i < order_j;
  //                                                 head below our layer: always; above: never
  //   j in our layer, column lexicographically higher (o_j.z = 0, (o_j.x, o_j.y) > 0: kPlate)
  //                                                 always
  //   anything else (kOther)                         never
  // so a row keeps j when class_j & any, or class_j & after and order_i < order_j
  // (nt_row_classes). tests/decomposition checks it against lists_pair on every offset pair.
  static constexpr std::uint32_t kOwnBox = 1, kPlate = 2, kOther = 4;
  SCANMD_HD std::uint32_t nt_class(Int3 home) const {
    const Int3 o = home - coord;
    if (o.x == 0 && o.y == 0 && o.z == 0) return kOwnBox;
    if (o.z == 0 && lex_sign({o.x, o.y, 0}) > 0) return kPlate;
    return kOther;
  }
  struct RowClasses {
    std::uint32_t any, after;  // classes kept always, and kept when after the head in order
  };
  // For a head that can_head (its home in our column).
  SCANMD_HD RowClasses nt_row_classes(Int3 home_i) const {
    if (home_i.z == coord.z) return {kPlate, kOwnBox};
    if (home_i.z < coord.z) return {kPlate | kOwnBox, 0};
    return {kPlate, 0};
  }

  SCANMD_HD bool lists_pair(const PairSide& i, const PairSide& j) const {
    if (method != Method::Midpoint)
      return lists_pair(i.owned, j.owned, i.home, j.home, i.order, j.order);
    if (!(i.order < j.order)) return false;
    const PairSide& a = i.id < j.id ? i : j;
    const PairSide& b = i.id < j.id ? j : i;
    return Int3{midpoint_axis(a.x.x, b.x.x, a.home.x, b.home.x, cuts.x),
                midpoint_axis(a.x.y, b.x.y, a.home.y, b.home.y, cuts.y),
                midpoint_axis(a.x.z, b.x.z, a.home.z, b.home.z, cuts.z)} == coord;
  }

 private:
  // Home (box index, images included) of the pair's midpoint image next to a's image. b's image
  // relative to a's comes from their homes (home − owner box = image shift × n), which is the
  // minimum image whenever the pair is within R of a box at least 2R long (the same bits:
  // d − 1·len is d − len), and the listed image in a shorter box. A midpoint within the tie
  // below the box's upper plane goes to the box above (box n is box 0 one wrap higher).
  SCANMD_HD static int midpoint_axis(double xa, double xb, int home_a, int home_b,
                                     const AxisCuts& axis) {
    const double len = axis.len;
    const int n = axis.n;
    const int shift_a = home_a - axis.box_of(xa);  // a's image shift times n
    const int shift_b = home_b - axis.box_of(xb);
    const double d = (xb - xa) - ((shift_a - shift_b) / n) * len;
    double m = xa + 0.5 * d;
    int w = 0;  // wraps of m into [0, len): one when the box is at least 2R long
    if (m < 0.0) {
      do {
        m += len;
        --w;
      } while (m < 0.0);
    } else {
      while (m >= len) {
        m -= len;
        ++w;
      }
    }
    int c = axis.box_of(m);
    if (axis.hi(c) - m <= midpoint_tie(len)) ++c;
    return c + w * n + shift_a;
  }
};

}  // namespace scanmd
