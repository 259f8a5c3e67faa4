// The cut planes of the rectilinear rank grid, per axis: where box c starts and ends, and which
// box holds a coordinate — the one place ownership, import regions and the midpoint rule read
// box geometry from (SCANMD_HD: host loops and CUDA kernels alike).
//
// Equal boxes (the default): box c spans [c·b, (c+1)·b) with b = L / n and a coordinate x
// belongs to box floor(x·n/L), clamped — the formulas of the first version, kept bit for bit.
// Moved cuts (load balancing, decomposition.balance): 0 = at[0] < at[1] < … < at[n] = L, and x
// belongs to the last box whose start is <= x. At most kMaxBalancedBoxes boxes per axis can be
// moved (the cuts travel by value into CUDA kernels); equal boxes have no such limit.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "base/vec3.hpp"

namespace scanmd {

inline constexpr int kMaxBalancedBoxes = 64;

struct AxisCuts {
  int n = 1;
  double len = 1.0;
  double b = 1.0;      // len / n (equal boxes)
  double scale = 1.0;  // n / len (equal boxes)
  bool equal = true;
  double at[kMaxBalancedBoxes + 1] = {};

  static AxisCuts equal_boxes(int n, double len) {
    AxisCuts a;
    a.n = n;
    a.len = len;
    a.b = len / n;
    a.scale = n / len;
    return a;
  }
  // Cuts at the given interior positions (n − 1 of them, increasing, inside (0, len)).
  static AxisCuts moved(const std::vector<double>& interior, double len) {
    const int n = static_cast<int>(interior.size()) + 1;
    if (n > kMaxBalancedBoxes)
      throw std::invalid_argument("load balancing: more than 64 boxes along one axis");
    AxisCuts a = equal_boxes(n, len);
    a.equal = false;
    a.at[0] = 0.0;
    for (int c = 1; c < n; ++c) {
      a.at[c] = interior[c - 1];
      if (!(a.at[c] > a.at[c - 1]) || !(a.at[c] < len))
        throw std::invalid_argument("load balancing: cut planes must increase inside the box");
    }
    a.at[n] = len;
    return a;
  }

  SCANMD_HD double lo(int c) const { return equal ? c * b : at[c]; }
  SCANMD_HD double hi(int c) const { return equal ? (c + 1) * b : at[c + 1]; }
  SCANMD_HD int box_of(double x) const {
    if (equal) {
      const int c = static_cast<int>(x * scale);
      return c < 0 ? 0 : (c >= n ? n - 1 : c);
    }
    int first = 0, last = n - 1;  // the last c with at[c] <= x, clamped to [0, n)
    while (first < last) {
      const int mid = (first + last + 1) / 2;
      if (at[mid] <= x)
        first = mid;
      else
        last = mid - 1;
    }
    return first;
  }
  // Boxes [first, last] whose extent may come within r of q (one box of slack each side; the
  // caller's exact test decides), clamped to the grid. q may lie outside [0, len) (an image).
  SCANMD_HD void boxes_near(double q, double r, int& first, int& last) const {
    if (n == 1) {  // one box on this axis (every axis of a single rank): no divisions
      first = last = 0;
      return;
    }
    if (equal) {
      first = static_cast<int>(floor((q - r) / b)) - 1;
      last = static_cast<int>(floor((q + r) / b)) + 1;
    } else {
      first = q - r < 0.0 ? 0 : box_of(q - r) - 1;
      last = q + r >= len ? n - 1 : box_of(q + r) + 1;
    }
    first = first < 0 ? 0 : first;
    last = last > n - 1 ? n - 1 : last;
  }
  bool operator==(const AxisCuts& o) const {
    if (n != o.n || len != o.len || equal != o.equal) return false;
    if (!equal)
      for (int c = 0; c <= n; ++c)
        if (at[c] != o.at[c]) return false;
    return true;
  }
};

struct GridCuts {
  AxisCuts x, y, z;

  static GridCuts equal_boxes(Int3 dims, Vec3 length) {
    return {AxisCuts::equal_boxes(dims.x, length.x), AxisCuts::equal_boxes(dims.y, length.y),
            AxisCuts::equal_boxes(dims.z, length.z)};
  }
  SCANMD_HD Int3 dims() const { return {x.n, y.n, z.n}; }
  SCANMD_HD Vec3 length() const { return {x.len, y.len, z.len}; }
  SCANMD_HD bool equal() const { return x.equal && y.equal && z.equal; }
  SCANMD_HD Int3 box_of(Vec3 q) const { return {x.box_of(q.x), y.box_of(q.y), z.box_of(q.z)}; }
  // The rank of box c (x fastest; RankGrid::rank_of).
  SCANMD_HD int rank_of(Int3 c) const { return c.x + x.n * (c.y + y.n * c.z); }
  SCANMD_HD Vec3 lo(Int3 c) const { return {x.lo(c.x), y.lo(c.y), z.lo(c.z)}; }
  SCANMD_HD Vec3 hi(Int3 c) const { return {x.hi(c.x), y.hi(c.y), z.hi(c.z)}; }
  const AxisCuts& axis(int a) const { return a == 0 ? x : (a == 1 ? y : z); }
  AxisCuts& axis(int a) { return a == 0 ? x : (a == 1 ? y : z); }
  bool operator==(const GridCuts&) const = default;
};

}  // namespace scanmd
