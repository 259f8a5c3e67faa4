// Velocity Verlet on the rank's OpenMP threads (physics/dynamics/integrator.cpp) against one thread: every
// position, velocity, image flag, the Langevin work and the first bad particle must be the same
// bits whatever the thread count; the fused half kick, drift and skin test (the host backend's
// step) must equal the two passes.
#include <gtest/gtest.h>

#include <omp.h>

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

// The half kick and drift with the skin test in the same pass (the host backend's step) against
// the two passes: the same bits and the same answer, moved or not (a limit below and above every
// displacement), on 1 to 3 threads, with and without Langevin; the same first bad particle.
TEST(IntegratorThreads, FusedSkinTestIsTheTwoPasses) {
  const Box box = Box::cube(20.0);
  const ParticleStore start = random_store(20000, box, 13);
  int moved = 0, still = 0;
  for (const bool langevin : {false, true})
    for (const double limit : {0.04, 10.0})
      for (const int threads : {1, 2, 3}) {
        omp_set_num_threads(threads);
        VelocityVerlet vv(0.01, {1.0, 2.5});
        if (langevin) vv.langevin(1.2, 0.5, 4242);
        Result two;
        two.p = start;
        two.work_initial = vv.initial_integrate(two.p, box, 7);
        two.moved = moved_beyond(two.p, box, limit, PairImages::Minimum);
        VelocityVerlet vv1(0.01, {1.0, 2.5});
        if (langevin) vv1.langevin(1.2, 0.5, 4242);
        Result one;
        one.p = start;
        one.work_initial =
            vv1.initial_integrate_and_test(one.p, box, 7, limit, PairImages::Minimum, one.moved);
        expect_same_bits(two, one, threads);
        (one.moved ? moved : still) += 1;
      }
  omp_set_num_threads(1);
  EXPECT_EQ(moved, 6);
  EXPECT_EQ(still, 6);
  ParticleStore bad = start;
  bad.v[17000] = {1e308, 0, 0};
  bad.v[12345] = {std::numeric_limits<double>::infinity(), 0, 0};
  for (const int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    ParticleStore p = bad;
    bool m = false;
    try {
      VelocityVerlet(0.01, {1.0, 2.5})
          .initial_integrate_and_test(p, box, 7, 0.04, PairImages::Minimum, m);
      ADD_FAILURE() << "no error on " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("particle 12346"), std::string::npos) << e.what();
    }
  }
  omp_set_num_threads(1);
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
