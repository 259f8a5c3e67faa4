// The fused pass of velocity Verlet (VelocityVerlet::final_then_initial), eight particles per
// AVX-512 vector (physics/dynamics/langevin_avx512.cpp), with the Langevin thermostat or without
// it (NVE). With it: the Philox4x64-10 numbers of (seed, id, step) of eight counters at once
// (64-bit products from four 32-bit ones: the same bits as Random123's philox4x64), then the
// second half kick, the first half kick, the drift, the wrap and the skin test with the same IEEE
// operations in the same order as the scalar functions (langevin_kick_with,
// verlet_initial_langevin_with, wrap_coordinate, moved_beyond_limit; no FMA), so the same bits.
// Without it: verlet_final's and verlet_initial's kicks, then the same drift, wrap and skin test.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/box.hpp"
#include "base/fixed_point.hpp"
#include "base/vec3.hpp"

namespace scanmd {

// The arrays and constants of one fused pass.
struct FusedKickArgs {
  Vec3* x = nullptr;
  Vec3* v = nullptr;
  Int3* image = nullptr;
  const Fix3* f = nullptr;
  const Vec3* x_build = nullptr;  // the skin test's reference positions (when skin)
  const std::uint64_t* id = nullptr;
  const std::uint32_t* type = nullptr;
  const double* dtf = nullptr;    // dt/2m per type
  const double* drag = nullptr;   // Langevin γ1 per type (fused_kick_avx512 only)
  const double* noise = nullptr;  // Langevin γ2 per type (fused_kick_avx512 only)
  std::uint64_t seed = 0, step = 0;
  double dt = 0.0;
  Box box;
  double limit_sq = 0.0;         // the skin test's squared limit
  bool skin = false;             // run the skin test
  bool explicit_images = false;  // PairImages::Explicit: the raw displacement
  bool one_type = false;         // a single particle type: type[i] == 0 for every particle
};

// Was the AVX-512 block compiled in (x86-64), and does this CPU have AVX-512 F, DQ and VL?
bool fused_kick_avx512_available();

// The fused pass of particles i .. i + 7 (all owned). Returns false, with nothing written, when
// a particle of the block needs the scalar path (a wrap beyond one box length, an image counter
// at the end of its range, a value that is not finite, a work beyond the fixed point's range):
// the caller then runs the scalar code on the block, which reports what it finds. Else adds the
// sixteen fixed-point work terms (two kicks per particle) to `work` and ORs the skin test's
// result into `moved` (the test is skipped where `moved` is already set).
bool fused_kick_avx512(const FusedKickArgs& a, std::size_t i, fixed::Wide& work, bool& moved);

// The same without the thermostat (verlet_final, verlet_initial): false, with nothing written,
// when a particle needs the scalar path (a wrap beyond one box length, an image counter at the
// end of its range, a value that is not finite); else ORs the skin test's result into `moved`.
bool fused_verlet_avx512(const FusedKickArgs& a, std::size_t i, bool& moved);

}  // namespace scanmd
