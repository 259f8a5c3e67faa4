// The host passes of velocity Verlet (integrator.hpp) on the rank's OpenMP threads.
//
// Each particle's update is independent of the others, the first bad particle is a min
// reduction, and the Langevin work is a sum of fixed-point integers (exact, so in any order):
// one thread or several give the same bits. Small stores stay on one thread (a parallel region
// costs more than the loop).
#include "physics/dynamics/integrator.hpp"

#include <algorithm>
#include <type_traits>

namespace scanmd {

namespace {
constexpr std::size_t kParallelFrom = 4096;

// Σ term(i, first_bad) over i < n on the threads: each term a particle's thermostat work,
// converted to fixed point (`overflow` set when one does not fit). A term may lower first_bad,
// its thread's first bad particle; `bad` becomes the lowest of them. Returns the summed work.
template <class Term>
fixed::Wide thread_work(std::size_t n, std::size_t& bad, bool& overflow, Term&& term) {
  fixed::Wide work = 0;
#pragma omp parallel if (n >= kParallelFrom)
  {
    fixed::Wide mine = 0;
    bool over = false;
    std::size_t first_bad = n;
#pragma omp for schedule(static) nowait
    for (std::size_t i = 0; i < n; ++i) mine += fixed::to_fixed(term(i, first_bad), over);
#pragma omp critical(scanmd_integrate)
    {
      work += mine;
      overflow = overflow || over;
      bad = std::min(bad, first_bad);
    }
  }
  return work;
}
}  // namespace

bool fused_kick_avx512_available() {
#if defined(SCANMD_LANGEVIN_AVX512)
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vl");
  return yes;
#else
  return false;
#endif
}

fixed::Wide VelocityVerlet::initial_integrate(ParticleStore& p, const Box& box,
                                              std::uint64_t step) const {
  const std::size_t n = p.n_owned;
  std::size_t bad = n;  // the first particle outside [0, L) after its drift
  if (drag_.empty()) {
#pragma omp parallel for schedule(static) reduction(min : bad) if (n >= kParallelFrom)
    for (std::size_t i = 0; i < n; ++i) {
      verlet_initial(p.x[i], p.v[i], p.image[i], p.f[i], dt_, dtf_[p.type[i]], box.length);
      if (!inside_box(p.x[i], box.length) && i < bad) bad = i;
    }
    check_positions(p, bad);
    return 0;
  }
  const LangevinView l = view();
  bool overflow = false;
  const bool kept = kept_.step == step;
  const std::size_t n_kept = kept ? std::min(n, kept_.id.size()) : 0;
  const fixed::Wide work =
      thread_work(n, bad, overflow, [&](std::size_t i, std::size_t& first_bad) {
        const Vec3 u = i < n_kept && kept_.id[i] == p.id[i] ? kept_.u[i]
                                                            : langevin_noise(seed_, p.id[i], step);
        const double w = verlet_initial_langevin_with(p.x[i], p.v[i], p.image[i], p.f[i], dt_,
                                                      dtf_[p.type[i]], box.length, l, p.type[i], u);
        if (!inside_box(p.x[i], box.length) && i < first_bad) first_bad = i;
        return w;
      });
  kept_.step = kNoStep;
  check_positions(p, bad);
  return checked(work, overflow);
}

fixed::Wide VelocityVerlet::final_integrate(ParticleStore& p, std::uint64_t step) const {
  const std::size_t n = p.n_owned;
  if (drag_.empty()) {
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
    for (std::size_t i = 0; i < n; ++i) verlet_final(p.v[i], p.f[i], dtf_[p.type[i]]);
    return 0;
  }
  const LangevinView l = view();
  bool overflow = false;
  std::size_t bad = n;  // (no position check in the second half kick)
  kept_.id.resize(n);
  kept_.u.resize(n);
  const fixed::Wide work = thread_work(n, bad, overflow, [&](std::size_t i, std::size_t&) {
    const Vec3 u = langevin_noise(seed_, p.id[i], step);
    kept_.id[i] = p.id[i];
    kept_.u[i] = u;
    return langevin_kick_with(p.v[i], p.f[i], dtf_[p.type[i]], 0.5 * dt_, l, p.type[i], u);
  });
  kept_.step = step;
  return checked(work, overflow);
}

fixed::Wide VelocityVerlet::final_then_initial(ParticleStore& p, const Box& box, std::uint64_t step,
                                               bool* moved, double limit, PairImages images) const {
  const std::size_t n = p.n_owned;
  std::size_t bad = n;  // the first particle outside [0, L) after its drift
  const bool skin = moved != nullptr;
  const double limit_sq = limit * limit;
  bool any_moved = false;
  const bool langevin = !drag_.empty();
  const LangevinView l = view();
  bool overflow[2] = {false, false};  // of the final kick's work, of the initial kick's
  fixed::Wide work = 0;
  // Blocks of eight particles: the AVX-512 pass (langevin_avx512.hpp) where the CPU has it and
  // every particle of the block takes its fast path, else the scalar code below, particle by
  // particle (the same bits either way).
  const bool vector = vector_;
  FusedKickArgs args;
  args.x = p.x.data();
  args.v = p.v.data();
  args.image = p.image.data();
  args.f = p.f.data();
  args.x_build = skin ? p.x_build.data() : nullptr;
  args.id = p.id.data();
  args.type = p.type.data();
  args.dtf = dtf_.data();
  args.drag = drag_.data();
  args.noise = noise_.data();
  args.seed = seed_;
  args.step = step;
  args.dt = dt_;
  args.box = box;
  args.limit_sq = limit_sq;
  args.skin = skin;
  args.explicit_images = images == PairImages::Explicit;
  args.one_type = dtf_.size() == 1;
  // (Without the vector pass, blocks of 1024: the scalar loop runs on without a test per eight.)
  constexpr std::size_t kVector = 8;
  const std::size_t block = vector ? kVector : 1024;
  const std::size_t blocks = (n + block - 1) / block;
  // The pass with the thermostat or without it, each its own loop (a test per particle would
  // slow the scalar loop, the whole pass where the CPU lacks AVX-512).
  const auto pass = [&](auto with_langevin) {
    constexpr bool kLangevin = decltype(with_langevin)::value;
#pragma omp parallel if (n >= kParallelFrom)
    {
      fixed::Wide mine = 0;
      bool over[2] = {false, false};
      bool mine_moved = false;
      std::size_t first_bad = n;
#pragma omp for schedule(static) nowait
      for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t begin = b * block, end = std::min(n, begin + block);
        if (vector && end - begin == kVector &&
            (kLangevin ? fused_kick_avx512(args, begin, mine, mine_moved)
                       : fused_verlet_avx512(args, begin, mine_moved)))
          continue;
        for (std::size_t i = begin; i < end; ++i) {
          const std::uint32_t type = p.type[i];
          const double dtf = dtf_[type];
          if constexpr (kLangevin) {
            const Vec3 u = langevin_noise(seed_, p.id[i], step);
            const double w_final = langevin_kick_with(p.v[i], p.f[i], dtf, 0.5 * dt_, l, type, u);
            const double w_initial = verlet_initial_langevin_with(
                p.x[i], p.v[i], p.image[i], p.f[i], dt_, dtf, box.length, l, type, u);
            mine += fixed::to_fixed(w_final, over[0]);
            mine += fixed::to_fixed(w_initial, over[1]);
          } else {
            verlet_final(p.v[i], p.f[i], dtf);
            verlet_initial(p.x[i], p.v[i], p.image[i], p.f[i], dt_, dtf, box.length);
          }
          if (!inside_box(p.x[i], box.length) && i < first_bad) first_bad = i;
          if (skin) mine_moved |= moved_beyond_limit(p.x[i], p.x_build[i], box, limit_sq, images);
        }
      }
#pragma omp critical(scanmd_integrate)
      {
        work += mine;
        overflow[0] = overflow[0] || over[0];
        overflow[1] = overflow[1] || over[1];
        bad = std::min(bad, first_bad);
        any_moved = any_moved || mine_moved;
      }
    }
  };
  if (langevin)
    pass(std::true_type{});
  else
    pass(std::false_type{});
  if (langevin) kept_.step = kNoStep;
  // The two passes' checks in their order: the final kick's work, the positions, the initial
  // kick's work (no work without the thermostat).
  checked(0, overflow[0]);
  check_positions(p, bad);
  const fixed::Wide result = checked(work, overflow[1]);
  if (skin) *moved = any_moved;
  return result;
}

bool moved_beyond(const ParticleStore& p, const Box& box, double limit, PairImages images) {
  const double limit_sq = limit * limit;
  const std::size_t n = p.n_owned;
  bool moved = false;
  // Every particle tested (no early exit): a loop without branches, which the compiler
  // vectorises; nearly every step nobody moved that far, so an exit would rarely come early.
#pragma omp parallel for schedule(static) reduction(| : moved) if (n >= kParallelFrom)
  for (std::size_t i = 0; i < n; ++i)
    moved |= moved_beyond_limit(p.x[i], p.x_build[i], box, limit_sq, images);
  return moved;
}

}  // namespace scanmd
