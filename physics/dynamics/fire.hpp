// FIRE energy minimisation (Bitzek et al., PRL 97, 170201 (2006)), per particle, as LAMMPS
// `min_style fire` runs it (the 2020 variant of Guénolé et al., Comput. Mater. Sci. 175, 109584:
// semi-implicit Euler, delayed dt growth, half step back on an uphill step).
//
// One iteration of engine/minimize.cpp is a few global sums (P = F·v, |v|², |F|²), a global
// maximum (the largest velocity component, for the max_move limit) and one update of every owned
// particle. The updates below are SCANMD_HD: the host backend's loops and the CUDA kernels
// (engine/cuda/fire.cu) run the same code, so both give the same bits (no FMA contraction).
//
// The sums are rank-count independent (DESIGN.md §5): each particle's term is first quantised to
// a 64-bit integer on a scale shared by all ranks, then summed as integers (128-bit). The scale
// is 2^(60 − e) with 2^e <= the largest term over all ranks (a max-reduction, exact), so every
// term fits in 61 bits and a sum of up to 2^66 of them cannot overflow; a term is kept to
// 2^-61 of the largest, finer than a double sum keeps it.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/box.hpp"
#include "base/fixed_point.hpp"
#include "base/vec3.hpp"
#include "kernels/hd.hpp"

namespace scanmd {

// The three sums of a FIRE iteration, their index in FireTerms / FireScales.
enum FireSum { kFireVF = 0, kFireVV = 1, kFireFF = 2, kFireSums = 3 };

// One particle's terms: v·F, v·v, F·F (F the fixed-point force converted to double).
struct FireTerms {
  double t[kFireSums];
  double vmax;  // largest |v| component (max_move)
  double fmax;  // largest |F| component (the log's max force)
};

SCANMD_HD inline FireTerms fire_terms(Vec3 v, Fix3 f) {
  const double fx = fixed::to_double(f.x), fy = fixed::to_double(f.y), fz = fixed::to_double(f.z);
  FireTerms r;
  r.t[kFireVF] = v.x * fx + v.y * fy + v.z * fz;
  r.t[kFireVV] = v.x * v.x + v.y * v.y + v.z * v.z;
  r.t[kFireFF] = fx * fx + fy * fy + fz * fz;
  const double ax = std::fabs(v.x), ay = std::fabs(v.y), az = std::fabs(v.z);
  r.vmax = ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az);
  const double bx = std::fabs(fx), by = std::fabs(fy), bz = std::fabs(fz);
  r.fmax = bx > by ? (bx > bz ? bx : bz) : (by > bz ? by : bz);
  return r;
}

// Maxima over particles of |term| for each sum, and of vmax, fmax. Non-negative doubles compare
// as their bit patterns do, which is how the CUDA kernel takes them (atomicMax on the words).
struct FireMaxima {
  double t[kFireSums] = {0, 0, 0};
  double vmax = 0, fmax = 0;
};

SCANMD_HD inline void fire_absorb(FireMaxima& m, const FireTerms& r) {
  for (int k = 0; k < kFireSums; ++k) {
    const double a = std::fabs(r.t[k]);
    if (a > m.t[k]) m.t[k] = a;
  }
  if (r.vmax > m.vmax) m.vmax = r.vmax;
  if (r.fmax > m.fmax) m.fmax = r.fmax;
}

// The quantisation scale of each sum (a power of two, or 0 when every term is 0 or too small to
// matter: below 2^-960). Computed on the host from the global maxima.
struct FireScales {
  double s[kFireSums] = {0, 0, 0};
};

inline FireScales fire_scales(const FireMaxima& global) {
  FireScales sc;
  for (int k = 0; k < kFireSums; ++k) {
    const double m = global.t[k];
    if (!(m > 0) || !std::isfinite(m)) continue;  // all zero (or a blown-up state: left 0)
    const int e = std::ilogb(m);                  // 2^e <= m < 2^(e+1)
    if (e < -960) continue;
    sc.s[k] = std::ldexp(1.0, 60 - e);  // m·scale < 2^61
  }
  return sc;
}

// A term on its scale, rounded to nearest (exact power-of-two scaling first).
SCANMD_HD inline std::int64_t fire_quantise(double term, double scale) {
  const double q = term * scale;
#if defined(__CUDA_ARCH__)
  return __double2ll_rn(q);
#else
  return std::llrint(q);
#endif
}

// A global integer sum back to its value.
inline double fire_value(fixed::Wide sum, double scale) {
  return scale > 0 ? static_cast<double>(sum) / scale : 0.0;
}

// What one FIRE update does to each owned particle, in this order (zeros switch a part off):
//   x ← x − back·v                   the half step back of an uphill step (back = dt/2)
//   v ← 0                            zero_v
//   v ← (set_v / m) F                set_v = dt·ftm2v: the first iteration's velocity (only to
//                                    find the max_move limit; zeroed again after)
//   v ← v + (kick / m) F             kick = dtv·ftm2v (semi-implicit Euler)
//   v ← mix1·v + mix2·F              when mix (P > 0): FIRE's steering towards F
//   x ← x + drift·v                  drift = dtv
// then x is wrapped into the box (image counted).
struct FireUpdate {
  double back = 0.0;
  bool zero_v = false;
  double set_v = 0.0;
  double kick = 0.0;
  bool mix = false;
  double mix1 = 1.0, mix2 = 0.0;
  double drift = 0.0;
  SCANMD_HD bool moves() const { return back != 0.0 || drift != 0.0; }
};

SCANMD_HD inline void fire_update_particle(Vec3& x, Vec3& v, Int3& image, Fix3 f, double mass,
                                           const FireUpdate& u, const Vec3& length) {
  const double fx = fixed::to_double(f.x), fy = fixed::to_double(f.y), fz = fixed::to_double(f.z);
  if (u.back != 0.0) {
    x.x -= u.back * v.x;
    x.y -= u.back * v.y;
    x.z -= u.back * v.z;
  }
  if (u.zero_v) v = Vec3{0.0, 0.0, 0.0};
  if (u.set_v != 0.0) {
    const double c = u.set_v / mass;
    v = Vec3{c * fx, c * fy, c * fz};
  }
  if (u.kick != 0.0) {
    const double c = u.kick / mass;  // LAMMPS: dtfm = dtf / mass
    v.x += c * fx;
    v.y += c * fy;
    v.z += c * fz;
  }
  if (u.mix) {
    v.x = u.mix1 * v.x + u.mix2 * fx;
    v.y = u.mix1 * v.y + u.mix2 * fy;
    v.z = u.mix1 * v.z + u.mix2 * fz;
  }
  if (u.drift != 0.0) {
    x.x += u.drift * v.x;
    x.y += u.drift * v.y;
    x.z += u.drift * v.z;
  }
  if (u.moves()) wrap(x, image, length);
}

}  // namespace scanmd
