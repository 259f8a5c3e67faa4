// Velocity Verlet on the rank's OpenMP threads (physics/dynamics/integrator.cpp) against one thread: every
// position, velocity, image flag, the Langevin work and the first bad particle must be the same
// bits whatever the thread count.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "physics/dynamics/integrator.hpp"

namespace scanmd {
namespace {

ParticleStore random_store(std::size_t n, const Box& box, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0), g(-3.0, 3.0);
  ParticleStore p;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 x{u(rng) * box.length.x, u(rng) * box.length.y, u(rng) * box.length.z};
    p.push_owned(i + 1, static_cast<std::uint32_t>(i % 2), x, {g(rng), g(rng), g(rng)}, {0, 0, 0},
                 {0, 0, 0});
    // Forces of ±50 ε/σ in fixed point: some particles cross the boundary in the drift.
    bool overflow = false;
    p.f[i] = {fixed::to_fixed(50 * g(rng), overflow), fixed::to_fixed(50 * g(rng), overflow),
              fixed::to_fixed(50 * g(rng), overflow)};
  }
  return p;
}

struct Result {
  ParticleStore p;
  fixed::Wide work_initial = 0, work_final = 0;
  bool moved = false;
};

Result integrate(int threads, bool langevin, ParticleStore p, const Box& box) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  VelocityVerlet vv(0.01, {1.0, 2.5});
  if (langevin) vv.langevin(1.2, 0.5, 4242);
  Result r;
  r.work_initial = vv.initial_integrate(p, box, 7);
  r.moved = moved_beyond(p, box, 0.04, PairImages::Minimum);
  r.work_final = vv.final_integrate(p, 7);
  r.p = std::move(p);
  omp_set_num_threads(before);
  return r;
}

void expect_same_bits(const Result& a, const Result& b, int threads) {
  ASSERT_EQ(a.p.n_owned, b.p.n_owned);
  EXPECT_TRUE(a.work_initial == b.work_initial) << threads << " threads";
  EXPECT_TRUE(a.work_final == b.work_final) << threads << " threads";
  EXPECT_EQ(a.moved, b.moved);
  for (std::size_t i = 0; i < a.p.n_owned; ++i) {
    ASSERT_EQ(std::bit_cast<std::uint64_t>(a.p.x[i].x), std::bit_cast<std::uint64_t>(b.p.x[i].x))
        << "particle " << i << ", " << threads << " threads";
    ASSERT_EQ(std::bit_cast<std::uint64_t>(a.p.x[i].z), std::bit_cast<std::uint64_t>(b.p.x[i].z));
    ASSERT_EQ(std::bit_cast<std::uint64_t>(a.p.v[i].y), std::bit_cast<std::uint64_t>(b.p.v[i].y));
    ASSERT_EQ(a.p.image[i].x, b.p.image[i].x);
  }
}

// Every owned particle's x, v and image the same bits in a and b, for particles [begin, end).
::testing::AssertionResult same_state(const ParticleStore& a, const ParticleStore& b,
                                      std::size_t begin = 0,
                                      std::size_t end = std::numeric_limits<std::size_t>::max()) {
  end = std::min({end, a.n_owned, b.n_owned});
  for (std::size_t i = begin; i < end; ++i) {
    const double xa[3] = {a.x[i].x, a.x[i].y, a.x[i].z}, xb[3] = {b.x[i].x, b.x[i].y, b.x[i].z};
    const double va[3] = {a.v[i].x, a.v[i].y, a.v[i].z}, vb[3] = {b.v[i].x, b.v[i].y, b.v[i].z};
    for (int c = 0; c < 3; ++c)
      if (std::bit_cast<std::uint64_t>(xa[c]) != std::bit_cast<std::uint64_t>(xb[c]) ||
          std::bit_cast<std::uint64_t>(va[c]) != std::bit_cast<std::uint64_t>(vb[c]))
        return ::testing::AssertionFailure()
               << "particle " << i << " axis " << c << ": x " << xa[c] << " vs " << xb[c] << ", v "
               << va[c] << " vs " << vb[c];
    if (!(a.image[i] == b.image[i]))
      return ::testing::AssertionFailure() << "particle " << i << ": image differs";
  }
  return ::testing::AssertionSuccess();
}

// One fused pass (final_then_initial) with its result or its error text.
struct FusedOutcome {
  fixed::Wide work = 0;
  bool moved = false;
  std::string error;
};
FusedOutcome fused_pass(const VelocityVerlet& vv, ParticleStore& p, const Box& box,
                        std::uint64_t step, bool skin, double limit, PairImages images) {
  FusedOutcome r;
  try {
    r.work = vv.final_then_initial(p, box, step, skin ? &r.moved : nullptr, limit, images);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

TEST(IntegratorThreads, SameBitsAsOneThread) {
  const Box box = Box::cube(20.0);
  const ParticleStore start = random_store(20000, box, 11);
  for (const bool langevin : {false, true}) {
    const Result one = integrate(1, langevin, start, box);
    EXPECT_TRUE(one.moved);  // the skin test sees the moves (not a vacuous comparison)
    if (langevin) {
      EXPECT_NE(static_cast<long long>(one.work_initial), 0);
    }
    int crossed = 0;
    for (std::size_t i = 0; i < one.p.n_owned; ++i) crossed += one.p.image[i].x != 0;
    EXPECT_GT(crossed, 0) << "some particles wrap";
    for (const int threads : {2, 3, 4})
      expect_same_bits(one, integrate(threads, langevin, start, box), threads);
  }
}

// The host backend's fused pass (the second half kick of a step, then the next step's first
// kick and drift, VelocityVerlet::final_then_initial) against its oracle, the two passes one after
// the other: the same bits of x, v, image and the summed thermostat work, on 1 and 3 threads.
TEST(IntegratorFused, SameBitsAsTheTwoPasses) {
  const Box box = Box::cube(20.0);
  const ParticleStore start = random_store(20000, box, 13);
  for (const bool langevin : {false, true})
    for (const int threads : {1, 3}) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      VelocityVerlet two(0.01, {1.0, 2.5}), fused(0.01, {1.0, 2.5});
      if (langevin) {
        two.langevin(1.2, 0.5, 4242);
        fused.langevin(1.2, 0.5, 4242);
      }
      ParticleStore a = start, b = start, far = start;
      const fixed::Wide work_two = two.final_integrate(a, 9) + two.initial_integrate(a, box, 9);
      // With the skin test in the pass (moved_beyond's), at a limit some particles pass and at
      // one none does.
      bool moved = false, moved_far = true;
      const fixed::Wide work_fused =
          fused.final_then_initial(b, box, 9, &moved, 0.04, PairImages::Minimum);
      fused.final_then_initial(far, box, 9, &moved_far, 50.0, PairImages::Minimum);
      EXPECT_EQ(moved, moved_beyond(a, box, 0.04, PairImages::Minimum));
      EXPECT_TRUE(moved);
      EXPECT_FALSE(moved_far);
      omp_set_num_threads(before);
      EXPECT_TRUE(work_two == work_fused) << "langevin " << langevin << ", " << threads;
      if (langevin) {
        EXPECT_NE(static_cast<long long>(work_two), 0);
      }
      ASSERT_TRUE(same_state(a, b)) << "langevin " << langevin;
      int crossed = 0;
      for (std::size_t i = 0; i < a.n_owned; ++i)
        crossed += a.image[i].x != 0 || a.image[i].y != 0 || a.image[i].z != 0;
      EXPECT_GT(crossed, 0) << "some particles wrap";
    }
}

// The fused Langevin pass in AVX-512 blocks (physics/dynamics/langevin_avx512.cpp: Philox4x64
// eight counters at a time, both kicks, drift, wrap and skin test) against the scalar code
// (Random123's philox4x64 and the SCANMD_HD functions): the same bits of x, v, image, the
// thermostat work and the skin test, with 64-bit ids, two types, particles that wrap either way
// (one whose x + L rounds to L), and blocks that must take the scalar path (a wrap beyond one
// box length, an image counter at the end of its range, a work beyond the fixed point's range),
// under the minimum image and explicit images, with and without the skin test.
TEST(IntegratorFused, VectorBlocksSameBitsAsScalar) {
  if (!fused_kick_avx512_available()) GTEST_SKIP() << "no AVX-512 on this CPU";
  const Box box = Box::make({20.0, 17.5, 23.0});
  ParticleStore start = random_store(4003, box, 15);  // (a tail of three: scalar)
  std::mt19937_64 rng(16);
  for (std::size_t i = 0; i < start.n_owned; ++i) start.id[i] = rng();  // all 64 bits
  start.x[100] = {-1e-17, 5.0, 5.0};                                    // x + L rounds to L
  start.v[100] = {0.0, 0.0, 0.0};
  start.f[100] = {0, 0, 0};
  start.x[205] = {19.99, 1.0, 1.0};
  start.v[205] = {3000.0, 0.0, 0.0};  // beyond one box length: wrap_far_coordinate
  start.x[333] = {19.999, 1.0, 1.0};
  start.v[333] = {5.0, 0.0, 0.0};
  start.image[333].x = 2147483647;  // an image counter at its end: the far path too
  start.v[777] = {1e7, 0.0, 0.0};   // the work beyond the fixed point's range
  for (std::size_t i = 0; i < start.n_owned; ++i) {
    start.x_build[i] = start.x[i];
    start.image[i].y = static_cast<int>(i % 7) - 3;
  }
  int cases = 0;
  for (const PairImages images : {PairImages::Minimum, PairImages::Explicit})
    for (const bool skin : {false, true}) {
      // Two types (the per-type coefficients gathered), or one (broadcast) with the skin test.
      const std::vector<double> mass =
          skin ? std::vector<double>{1.7} : std::vector<double>{1.0, 2.5};
      for (std::size_t i = 0; i < start.n_owned; ++i)
        start.type[i] = static_cast<std::uint32_t>(i % mass.size());
      VelocityVerlet scalar(0.01, mass), vector(0.01, mass);
      scalar.langevin(1.2, 0.5, 0x9e3779b97f4a7c15ull);
      vector.langevin(1.2, 0.5, 0x9e3779b97f4a7c15ull);
      scalar.use_vector(false);
      ASSERT_TRUE(vector.vector());
      ParticleStore a = start, b = start;
      const FusedOutcome ra = fused_pass(scalar, a, box, 12345678901ull, skin, 0.03, images);
      const FusedOutcome rb = fused_pass(vector, b, box, 12345678901ull, skin, 0.03, images);
      // Particle 777's work overflows: both report it, with every particle updated first.
      EXPECT_NE(ra.error.find("work overflow"), std::string::npos) << ra.error;
      EXPECT_EQ(ra.error, rb.error);
      EXPECT_TRUE(ra.work == rb.work);
      EXPECT_EQ(ra.moved, rb.moved);
      ASSERT_TRUE(same_state(a, b));
      int crossed_up = 0, crossed_down = 0;
      for (std::size_t i = 0; i < a.n_owned; ++i) {
        crossed_up += a.image[i].x > start.image[i].x || a.image[i].z > start.image[i].z;
        crossed_down += a.image[i].x < start.image[i].x || a.image[i].z < start.image[i].z;
      }
      EXPECT_GT(crossed_up, 0);
      EXPECT_GT(crossed_down, 0);
      ++cases;
    }
  EXPECT_EQ(cases, 4);
  // Without the overflowing particle and the one that cannot be wrapped: no error, work and
  // skin test as the scalar code's.
  start.v[777] = {1.0, 0.0, 0.0};
  start.image[333].x = 0;
  VelocityVerlet scalar(0.01, {1.0, 2.5}), vector(0.01, {1.0, 2.5});
  scalar.langevin(1.2, 0.5, 77);
  vector.langevin(1.2, 0.5, 77);
  scalar.use_vector(false);
  ParticleStore a = start, b = start;
  bool moved_a = false, moved_b = false;
  const fixed::Wide work_a = scalar.final_then_initial(a, box, 3, &moved_a, 0.5);
  const fixed::Wide work_b = vector.final_then_initial(b, box, 3, &moved_b, 0.5);
  EXPECT_TRUE(work_a == work_b);
  EXPECT_NE(static_cast<long long>(work_a), 0);
  EXPECT_EQ(moved_a, moved_b);
  // At T = 0 (no noise) particle 100 stays at x = −1e-17, whose x + L rounds to L: wrapped to 0
  // with its image kept.
  VelocityVerlet cold(0.01, {1.0, 2.5});
  cold.langevin(0.0, 0.5, 77);
  ParticleStore c = start;
  cold.final_then_initial(c, box, 3);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(c.x[100].x), 0u);
  EXPECT_EQ(c.image[100].x, 0);
}

// The plain (NVE) fused pass in AVX-512 blocks (fused_verlet_avx512: verlet_final's and
// verlet_initial's kicks, the drift, the wrap and the skin test eight particles at a time)
// against the scalar functions: the same bits of x, v, image and the skin test, block by block
// and over the whole pass (one and two types, minimum and explicit images, with and without the
// skin test). The blocks holding a particle that must take the scalar path — a wrap beyond one
// box length, an image counter at either end of its range, a non-finite velocity — are left to
// it untouched; every other block (particles that wrap either way, one whose x + L rounds to L)
// takes the vector path.
TEST(IntegratorFused, PlainVectorBlocksSameBitsAsScalar) {
  if (!fused_kick_avx512_available()) GTEST_SKIP() << "no AVX-512 on this CPU";
  const Box box = Box::make({20.0, 17.5, 23.0});
  ParticleStore start = random_store(4003, box, 17);  // (a tail of three: scalar)
  for (std::size_t i = 0; i < start.n_owned; ++i) {
    start.image[i].y = static_cast<int>(i % 7) - 3;
    start.x_build[i] = start.x[i];
  }
  const auto still = [&](std::size_t i, Vec3 x, Vec3 v) {
    start.x[i] = x;
    start.v[i] = v;
    start.f[i] = {0, 0, 0};
  };
  still(100, {-1e-17, 5.0, 5.0}, {0.0, 0.0, 0.0});    // x + L rounds to L: x = 0, image kept
  still(205, {19.99, 1.0, 1.0}, {3000.0, 0.0, 0.0});  // beyond one box length
  still(333, {19.999, 1.0, 1.0}, {5.0, 0.0, 0.0});    // up from the last image
  start.image[333].x = 2147483647;
  still(466, {1.0, 0.001, 1.0}, {0.0, -5.0, 0.0});  // down from the first image
  start.image[466].y = -2147483647 - 1;
  still(777, {1.0, 1.0, 1.0}, {0.0, 0.0, std::numeric_limits<double>::quiet_NaN()});
  const std::size_t scalar_blocks[] = {205 / 8, 333 / 8, 466 / 8, 777 / 8};
  const double limit = 0.03;

  // Block by block: fused_verlet_avx512 against verlet_final, verlet_initial and
  // moved_beyond_limit on each particle.
  for (const PairImages images : {PairImages::Minimum, PairImages::Explicit}) {
    const std::vector<double> dtf = half_kick_factors(0.01, {1.0, 2.5});
    ParticleStore oracle = start, vec = start;
    for (std::size_t i = 0; i < oracle.n_owned; ++i) {
      verlet_final(oracle.v[i], oracle.f[i], dtf[oracle.type[i]]);
      verlet_initial(oracle.x[i], oracle.v[i], oracle.image[i], oracle.f[i], 0.01,
                     dtf[oracle.type[i]], box.length);
    }
    FusedKickArgs args;
    args.x = vec.x.data();
    args.v = vec.v.data();
    args.image = vec.image.data();
    args.f = vec.f.data();
    args.x_build = vec.x_build.data();
    args.type = vec.type.data();
    args.dtf = dtf.data();
    args.dt = 0.01;
    args.box = box;
    args.limit_sq = limit * limit;
    args.skin = true;
    args.explicit_images = images == PairImages::Explicit;
    int moved_blocks = 0, still_blocks = 0, up = 0, down = 0;
    for (std::size_t block = 0; block < vec.n_owned / 8; ++block) {
      const std::size_t begin = 8 * block, end = begin + 8;
      bool moved = false;
      const bool vector = fused_verlet_avx512(args, begin, moved);
      if (std::find(std::begin(scalar_blocks), std::end(scalar_blocks), block) !=
          std::end(scalar_blocks)) {
        EXPECT_FALSE(vector) << "block " << block;
        EXPECT_TRUE(same_state(vec, start, begin, end)) << "block " << block << " written";
        continue;
      }
      ASSERT_TRUE(vector) << "block " << block;
      ASSERT_TRUE(same_state(vec, oracle, begin, end));
      for (std::size_t i = begin; i < end; ++i) {  // (the vector pass's own wraps)
        const Int3 d = vec.image[i] - start.image[i];
        up += d.x > 0 || d.y > 0 || d.z > 0;
        down += d.x < 0 || d.y < 0 || d.z < 0;
      }
      bool expected = false;
      for (std::size_t i = begin; i < end; ++i)
        expected |= moved_beyond_limit(oracle.x[i], oracle.x_build[i], box, limit * limit, images);
      EXPECT_EQ(moved, expected) << "block " << block;
      (moved ? moved_blocks : still_blocks) += 1;
    }
    EXPECT_GT(moved_blocks, 0);
    EXPECT_GT(still_blocks, 0);
    EXPECT_GT(up, 0);
    EXPECT_GT(down, 0);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(vec.x[100].x), 0u);
    EXPECT_EQ(vec.image[100].x, 0);
  }

  // The whole pass (VelocityVerlet::final_then_initial) with and without the vector blocks.
  int cases = 0;
  for (const bool error : {true, false})
    for (const PairImages images : {PairImages::Minimum, PairImages::Explicit})
      for (const bool skin : {false, true}) {
        const std::vector<double> mass =
            skin ? std::vector<double>{1.7} : std::vector<double>{1.0, 2.5};
        ParticleStore a = start;
        if (!error) {  // (particles 333 and 466 cannot cross from their image: errors too)
          a.v[777].z = 1.0;
          a.image[333].x = 0;
          a.image[466].y = 0;
        }
        for (std::size_t i = 0; i < a.n_owned; ++i)
          a.type[i] = static_cast<std::uint32_t>(i % mass.size());
        ParticleStore b = a, before = a;
        VelocityVerlet scalar(0.01, mass), vector(0.01, mass);
        scalar.use_vector(false);
        ASSERT_TRUE(vector.vector());
        const FusedOutcome ra = fused_pass(scalar, a, box, 5, skin, 0.3, images);
        const FusedOutcome rb = fused_pass(vector, b, box, 5, skin, 0.3, images);
        EXPECT_EQ(ra.error.empty(), !error) << ra.error;
        if (error) {
          EXPECT_NE(ra.error.find("particle 334 "), std::string::npos) << ra.error;
        }
        EXPECT_EQ(ra.error, rb.error);
        EXPECT_TRUE(ra.work == 0 && rb.work == 0);
        EXPECT_EQ(ra.moved, rb.moved);
        ASSERT_TRUE(same_state(a, b));
        EXPECT_FALSE(same_state(a, before));  // (not a comparison of untouched stores)
        ++cases;
      }
  EXPECT_EQ(cases, 8);
}

// The fused pass reports a particle that cannot be wrapped as the two passes do (the first one).
TEST(IntegratorFused, NamesTheFirstParticleThatCannotBeWrapped) {
  const Box box = Box::cube(20.0);
  ParticleStore start = random_store(20000, box, 14);
  start.v[15000] = {1e308, 0, 0};
  start.v[4321] = {std::numeric_limits<double>::infinity(), 0, 0};
  VelocityVerlet vv(0.01, {1.0, 2.5});
  try {
    vv.final_then_initial(start, box, 3);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("particle 4322"), std::string::npos) << e.what();
  }
}

TEST(IntegratorThreads, NamesTheFirstParticleThatCannotBeWrapped) {
  const Box box = Box::cube(20.0);
  ParticleStore start = random_store(20000, box, 12);
  // Two particles whose velocity cannot be integrated: the lower index is named, on any
  // thread count (the later one sits in another thread's range).
  start.v[17000] = {1e308, 0, 0};
  start.v[12345] = {std::numeric_limits<double>::infinity(), 0, 0};
  for (const int threads : {1, 2, 3}) {
    try {
      integrate(threads, false, start, box);
      ADD_FAILURE() << "no error on " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("particle 12346"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace scanmd
