// Small POD vector types shared by host and CUDA code.
//
// Vec3 holds positions and velocities (double), Int3 box/cell indices and periodic image
// counts, Fix3 forces in 64-bit fixed point (see fixed_point.hpp). All are plain aggregates
// so they can live in std::vector on the host and in device buffers unchanged.
#pragma once

#include <cstdint>

#include "kernels/hd.hpp"

namespace scanmd {

struct Vec3 {
  double x, y, z;
};

struct Int3 {
  int x, y, z;
  SCANMD_HD friend constexpr bool operator==(Int3 a, Int3 b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
  }
  SCANMD_HD friend constexpr bool operator!=(Int3 a, Int3 b) { return !(a == b); }
};

SCANMD_HD constexpr Int3 operator+(Int3 a, Int3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
SCANMD_HD constexpr Int3 operator-(Int3 a, Int3 b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
SCANMD_HD constexpr Int3 operator*(Int3 a, Int3 b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}

// Lexicographic sign of an offset: x first, then y, then z. The half-shell and
// neutral-territory rules are built on it; it is antisymmetric: sign(-o) == -sign(o).
SCANMD_HD constexpr int lex_sign(Int3 o) {
  if (o.x != 0) return o.x > 0 ? 1 : -1;
  if (o.y != 0) return o.y > 0 ? 1 : -1;
  if (o.z != 0) return o.z > 0 ? 1 : -1;
  return 0;
}

struct Fix3 {
  std::int64_t x, y, z;
};

}  // namespace scanmd
