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

// How the displacement of a listed pair is found (core/lj.hpp). Minimum: every axis is at least
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

// Brings one coordinate back into [0, L) after a drift of less than L; counts the image.
SCANMD_HD inline void wrap_coordinate(double& x, int& image, double length) {
  if (x >= length) {
    x -= length;
    ++image;
  } else if (x < 0.0) {
    x += length;
    if (x >= length) x = 0.0;  // -tiny + L rounds to L
    --image;
  }
}

// Brings a coordinate however far out (data files, checkpoints, test inputs) into [0, L),
// counting the images crossed.
inline void wrap_far_coordinate(double& x, int& image, double length) {
  const double k = std::floor(x / length);
  if (k != 0.0) {
    x -= k * length;
    image += static_cast<int>(k);
  }
  wrap_coordinate(x, image, length);
}

SCANMD_HD inline void wrap(Vec3& x, Int3& image, const Vec3& length) {
  wrap_coordinate(x.x, image.x, length.x);
  wrap_coordinate(x.y, image.y, length.y);
  wrap_coordinate(x.z, image.z, length.z);
}

}  // namespace scanmd
