// tests/engine/test_interior_rows.cpp — engine/interior_rows.hpp: the rows whose displacements
// skip the minimum-image test.
//
// Oracle: the scalar model of a list's life. Particle i sits at its build position on the edge of
// the interior region (or inside it); j at the farthest distance the list's float search can
// accept, along each axis and each way (a position outside [0, L) is an image: its wrapped
// position is what the force pass reads). Each then moves by the most the rebuild rule allows
// (skin/2, toward the nearer face or apart), is wrapped as the integrator wraps it, and the
// displacement x_i − x_j must come back unchanged from base/box.hpp's minimum_image, bit for bit,
// with neither particle wrapped. Box edges from the tightest that has an interior point up to a
// large one; a box too small for any interior row must have none.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "base/box.hpp"
#include "engine/interior_rows.hpp"

namespace scanmd {
namespace {

double axis(Vec3 v, int a) {
  return a == 0 ? v.x : (a == 1 ? v.y : v.z);
}
void set_axis(Vec3& v, int a, double value) {
  (a == 0 ? v.x : (a == 1 ? v.y : v.z)) = value;
}

// The wrapped position of a build position q (an image outside [0, L) comes back inside), then
// moved by `move` and wrapped again; `wrapped` counts the wraps of the move.
double after_move(double q, double move, double L, int& wrapped) {
  int image = 0;
  double x = q;
  wrap_coordinate(x, image, L);
  const int before = image;
  x += move;
  wrap_coordinate(x, image, L);
  wrapped += image != before;
  return x;
}

TEST(InteriorRows, MinimumImageIsTheDisplacementUntilTheNextBuild) {
  const double cutoff = 2.5, skin = 0.3, R = cutoff + skin;
  const double half = 0.5 * skin;
  int interior_boxes = 0, checked = 0;
  for (double L : {2.0 * R, 2.0 * R + 0.2, 2.0 * R + 2.0 * skin + 0.01, 2.0 * R + 3.0 * skin, 12.0,
                   33.5919, 200.0}) {
    SCOPED_TRACE(L);
    const Box box = Box::cube(L);
    const InteriorBounds b = InteriorBounds::make(box, R, skin);
    if (b.lo.x > b.hi.x) {
      // No interior row: no position holds.
      const Vec3 x_build[1] = {{0.5 * L, 0.5 * L, 0.5 * L}};
      EXPECT_FALSE((InteriorRows{x_build, 1, b}.holds(0)));
      continue;
    }
    ++interior_boxes;
    // Farther than the list's float search can reach (2^-20·(extent + 2R), extent <= L + 2R).
    const double reach = R + std::ldexp(L + 4.0 * R, -19);
    for (int a = 0; a < 3; ++a)
      for (double at : {axis(b.lo, a), axis(b.hi, a), 0.5 * L})
        for (double toward : {-1.0, 1.0})     // j's side of i
          for (double apart : {-1.0, 1.0}) {  // +1: both move away from each other
            Vec3 qi{0.5 * L, 0.5 * L, 0.5 * L};
            set_axis(qi, a, at);
            const Vec3 x_build[1] = {qi};
            ASSERT_TRUE((InteriorRows{x_build, 1, b}.holds(0)));
            EXPECT_FALSE((InteriorRows{x_build, 0, b}.holds(0))) << "a ghost row";
            const double qj = at + toward * reach;
            int wrapped = 0;
            const double xi = after_move(at, -toward * apart * half, L, wrapped);
            const double xj = after_move(qj, toward * apart * half, L, wrapped);
            // j toward the nearer face: the move that could wrap it.
            const double xj_face = after_move(qj, toward * half, L, wrapped);
            EXPECT_EQ(wrapped, 0) << "axis " << a << " at " << at << " toward " << toward;
            for (double d : {xi - xj, xi - xj_face}) {
              EXPECT_EQ(std::bit_cast<std::uint64_t>(minimum_image(d, L, 0.5 * L)),
                        std::bit_cast<std::uint64_t>(d))
                  << "axis " << a << " at " << at << " toward " << toward << " d " << d;
              ++checked;
            }
          }
  }
  EXPECT_GE(interior_boxes, 4);
  EXPECT_GT(checked, 0);
}

// The bounds exclude what they must: a build position nearer a face than the reach plus the skin
// is never interior, on any axis.
TEST(InteriorRows, NoRowWithinReachAndSkinOfAFace) {
  const double R = 2.8, skin = 0.3;
  const Vec3 L{33.6, 20.0, 12.0};
  const InteriorBounds b = InteriorBounds::make(Box::make(L), R, skin);
  for (int a = 0; a < 3; ++a)
    for (double q : {0.0, R, R + skin, axis(L, a) - R - skin, axis(L, a)}) {
      Vec3 x = {0.5 * L.x, 0.5 * L.y, 0.5 * L.z};
      set_axis(x, a, q);
      const Vec3 x_build[1] = {x};
      EXPECT_FALSE((InteriorRows{x_build, 1, b}.holds(0))) << "axis " << a << " at " << q;
    }
  const Vec3 centre[1] = {{0.5 * L.x, 0.5 * L.y, 0.5 * L.z}};
  EXPECT_TRUE((InteriorRows{centre, 1, b}.holds(0)));
  EXPECT_FALSE((InteriorRows{nullptr, 1, b}.holds(0)));
}

}  // namespace
}  // namespace scanmd
