// Rows whose pairs need no minimum-image test: those of owned particles far enough from the
// periodic box's faces. The AVX-512 pair rows (engine/rows_avx512.hpp) then form x_i − x_j
// without the ±L test of each axis (two compares and two masked adds per axis and vector: 1.4 to
// 3.5 % of the 32 000-atom melt's force pass), and get the same bits as with it.
//
// Why it holds. Let R be the list's search radius and s the skin. A row i is interior when its
// position at the list's build, x_build[i], lies within [m, L − m] on every axis, with
// m = R + s + a margin (margin(): above the search test's float reach beyond R, engine/
// pair_candidate.hpp). Then
//  - every listed j was within R (and the margin) of x_build[i] at the build, so inside the box
//    by more than s: an owned particle or the ghost of one (not an image: its shift is 0), at its
//    own wrapped position;
//  - until the next build no particle moves more than s/2 (the rebuild rule), so neither i nor
//    any of its j reaches a face: none is wrapped, and |x_i − x_j| < R + s < m <= L/2 (no row is
//    interior unless m <= L/2);
//  - so minimum_image(x_i − x_j) returns its argument on every axis: the test is a no-op.
// Rows of ghosts and rows of boxes with explicit images are never interior.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "base/box.hpp"
#include "base/vec3.hpp"

namespace scanmd {

// The region of interior build positions, [lo, hi] on each axis (empty where lo > hi).
struct InteriorBounds {
  Vec3 lo{1.0, 1.0, 1.0}, hi{0.0, 0.0, 0.0};  // empty: no row is interior

  // For a list of search radius `reach` and rebuilds when a particle moved more than skin / 2.
  static InteriorBounds make(const Box& box, double reach, double skin) {
    const Vec3 L = box.length;
    const double longest = std::max(L.x, std::max(L.y, L.z));
    // The search sphere reaches at most 2^-20·(extent + 2R) beyond R (extent <= L + 2R): 2^-14
    // of L + 4R is a margin of 16 and more over it, and over the rounding of the moves' test.
    const double m = reach + skin + std::ldexp(longest + 4.0 * reach, -14);
    return {{m, m, m}, {L.x - m, L.y - m, L.z - m}};
  }
};

// The interior rows of one pass: owned particles (index < owned) whose x_build is within the
// bounds.
struct InteriorRows {
  const Vec3* x_build = nullptr;  // null: no row is interior
  std::size_t owned = 0;
  InteriorBounds bounds;

  [[gnu::always_inline]] bool holds(std::size_t i) const {
    if (x_build == nullptr || i >= owned) return false;
    const Vec3 q = x_build[i];
    return (bounds.lo.x <= q.x) & (q.x <= bounds.hi.x) & (bounds.lo.y <= q.y) &
           (q.y <= bounds.hi.y) & (bounds.lo.z <= q.z) & (q.z <= bounds.hi.z);
  }
};

}  // namespace scanmd
