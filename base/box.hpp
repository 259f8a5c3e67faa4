// The periodic orthorhombic simulation box [0, L) and the wrapping of positions into it.
//
// Positions are kept wrapped into [0, L) on every step, with an integer image counter per
// axis so unwrapped trajectories can be recovered. Wrapping is a per-particle function of
// the particle's own state, so it happens on the same step whatever the decomposition: the
// bits of a trajectory never depend on where a particle is stored.
#pragma once

#include <cmath>

#include "base/vec3.hpp"

namespace scanmd {

// How the displacement of a listed pair is found (pair_displacement below). Minimum: every axis is at least
// 2R = 2·(cutoff + skin) long, so a pair within R has one image and the minimum image finds it.
// Explicit: some axis is shorter, a particle can meet several images of another (and its own),
// and the displacement comes from the images' shifts; a particle that wraps then triggers a
// rebuild (its ghosts' shifts would be stale).
enum class PairImages : unsigned char { Minimum, Explicit };

SCANMD_HD inline PairImages pair_images(Vec3 length, double import_cutoff) {
  const double two_r = 2.0 * import_cutoff;
  return length.x < two_r || length.y < two_r || length.z < two_r ? PairImages::Explicit
                                                                  : PairImages::Minimum;
}

struct Box {
  Vec3 length{};       // L
  Vec3 half_length{};  // L / 2

  static Box cube(double l) { return make({l, l, l}); }
  static Box make(Vec3 l) { return {l, {0.5 * l.x, 0.5 * l.y, 0.5 * l.z}}; }
  double volume() const { return length.x * length.y * length.z; }
};

// Wrapping, exactly. A coordinate x of any finite value is x = k·L + r with r in [0, L) and k an
// integer; the wrap stores r and adds k to the image counter, so the unwrapped coordinate
// r + image·L is kept. r comes from fmod, which is exact (IEEE), and k from (x − r)/L rounded to
// the nearest integer, exact while |k| is far below 2^52 — and |image + k| must fit an int
// anyway (the image counters are 32-bit, as in the trajectory and LAMMPS data files). A
// coordinate that cannot be wrapped (not finite, or an image count beyond the int range) is
// left as it is and the wrap says so: callers stop with an error naming the particle.
//
// The drift of one time step takes the fast paths below (within one box length of [0, L): one
// subtraction or addition, Sterbenz-exact for x in [L, 2L)); only farther moves take the
// general path. A wrapped coordinate satisfies 0 <= x < L.

inline constexpr double kMaxImage = 2147483647.0;  // INT_MAX: image counters are int

// x into [0, L) by the full count of box lengths, images counted; false (nothing changed) when x
// is not finite or the image count would leave the int range.
SCANMD_HD inline bool wrap_far_coordinate(double& x, int& image, double length) {
  if (!(x - x == 0.0)) return false;  // inf or NaN
  double r = fmod(x, length);         // exact: x − q·L, q = trunc(x / L), sign of x
  if (r < 0.0) r += length;           // may round up to L: the coordinate is then 0, image q
  if (r >= length) r = 0.0;
  const double k = rint((x - r) / length);
  const double total = static_cast<double>(image) + k;
  if (!(total >= -kMaxImage - 1.0 && total <= kMaxImage)) return false;
  x = r;
  image = static_cast<int>(total);
  return true;
}

// Brings one coordinate back into [0, L) and counts the images crossed. A drift of less than L
// (every ordinary step) takes one subtraction or addition; farther ones wrap_far_coordinate.
// Returns false when the coordinate cannot be wrapped (see above).
SCANMD_HD inline bool wrap_coordinate(double& x, int& image, double length) {
  if (x >= length) {
    if (!(x < 2.0 * length) || image == 2147483647) return wrap_far_coordinate(x, image, length);
    x -= length;
    ++image;
  } else if (x < 0.0) {
    if (!(x >= -length) || image == -2147483647 - 1) return wrap_far_coordinate(x, image, length);
    x += length;
    if (x >= length)
      x = 0.0;  // -tiny + L rounds to L: the particle sits at 0 of the image it is in
    else
      --image;
  } else if (!(x < length)) {
    return false;  // NaN
  }
  return true;
}

// Is every coordinate of x in [0, L)? False for non-finite ones.
SCANMD_HD inline bool inside_box(const Vec3& x, const Vec3& length) {
  return x.x >= 0.0 && x.x < length.x && x.y >= 0.0 && x.y < length.y && x.z >= 0.0 &&
         x.z < length.z;
}

// Wraps a position; false when some coordinate could not be wrapped (then not inside_box).
SCANMD_HD inline bool wrap(Vec3& x, Int3& image, const Vec3& length) {
  const bool a = wrap_coordinate(x.x, image.x, length.x);
  const bool b = wrap_coordinate(x.y, image.y, length.y);
  const bool c = wrap_coordinate(x.z, image.z, length.z);
  return a && b && c;
}

// ---- Pair displacements, the one definition every driver and both backends use.
//
// d = x_a − x_b from wrapped coordinates in [0, L), then one conditional ±L per axis (minimum
// image). Both terms are exact negations when a and b swap, so every rank that computes a pair
// gets the same bits for it, whichever particle it holds as "i". In a box shorter than 2R along
// an axis (PairImages::Explicit) a pair can interact through several images, so the shift of the
// listed images is used instead: x_a − x_b − (S_b − S_a)·L, the same bits as the minimum image
// whenever that is the listed image (|S_b − S_a| <= 1).

// Minimum image of one component of x_a − x_b, with both in [0, L): |d| < L, so one correction
// suffices.
SCANMD_HD inline double minimum_image(double d, double length, double half_length) {
  if (d > half_length) return d - length;
  if (d < -half_length) return d + length;
  return d;
}

SCANMD_HD inline Vec3 pair_displacement(Vec3 a, Vec3 b, Vec3 length, Vec3 half_length) {
  return {minimum_image(a.x - b.x, length.x, half_length.x),
          minimum_image(a.y - b.y, length.y, half_length.y),
          minimum_image(a.z - b.z, length.z, half_length.z)};
}

// The displacement of the images x_a + S_a·L and x_b + S_b·L (PairImages::Explicit).
SCANMD_HD inline Vec3 image_displacement(Vec3 a, Vec3 b, Int3 shift_a, Int3 shift_b, Vec3 length) {
  return {(a.x - b.x) - (shift_b.x - shift_a.x) * length.x,
          (a.y - b.y) - (shift_b.y - shift_a.y) * length.y,
          (a.z - b.z) - (shift_b.z - shift_a.z) * length.z};
}

}  // namespace scanmd
