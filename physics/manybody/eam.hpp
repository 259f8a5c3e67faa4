// The embedded-atom method (EAM) of one pair and one particle, written once for the host loops
// and the CUDA kernels (SCANMD_HD): cubic splines over tables on a uniform grid, as LAMMPS's
// pair_style eam evaluates them (PairEAM::compute), so that the numbers agree with LAMMPS's.
//
//   E = Σ_i F_{t_i}(ρ_i) + Σ_{i<j} φ_{t_i t_j}(r_ij),   ρ_i = Σ_{j≠i} ρ_{t_j → t_i}(r_ij)
//
// Tables (physics/manybody/eam_file.hpp builds them from the files): every function is sampled
// at nr points r_m = (m−1)·dr (ρ(r), r·φ(r) = z2r) or nrho points ρ_m = (m−1)·dρ (F(ρ)), and
// stored as 7 spline coefficients per point (LAMMPS's layout: [0..2] the derivative's
// quadratic, [3..6] the value's cubic in the fraction p ∈ [0, 1] of the interval).
//
//   which function             index
//   F of type t                type2frho[t]
//   ρ at a t_i particle due
//   to a t_j particle          type2rhor[t_j · T + t_i]   (funcfl and setfl: t_j's function;
//                                                           Finnis–Sinclair: one per pair)
//   z2 = r·φ of types (a, b)    type2z2r[a · T + b]        (symmetric)
//
// Beyond the table: r is always below the cutoff; ρ above the last point takes F and F' of the
// last point plus F'·(ρ − ρ_max) in the energy, and ρ below 0 extrapolates the first interval's
// cubic (LAMMPS does both).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/hd.hpp"

namespace scanmd {

struct EamView {
  const double* frho = nullptr;             // [nfrho][nrho + 1][7]
  const double* rhor = nullptr;             // [nrhor][nr + 1][7]
  const double* z2r = nullptr;              // [nz2r][nr + 1][7]
  const std::int32_t* type2frho = nullptr;  // [T]
  const std::int32_t* type2rhor = nullptr;  // [T · T]
  const std::int32_t* type2z2r = nullptr;   // [T · T]
  std::int32_t types = 1, nrho = 0, nr = 0;
  double rdr = 0.0, rdrho = 0.0, rhomax = 0.0, cutoff_sq = 0.0;
};

// Where r falls on the r grid: the interval m (1-based, as LAMMPS) and the fraction p.
struct EamPoint {
  int m;
  double p;
};

SCANMD_HD inline EamPoint eam_r_point(const EamView& v, double r) {
  double p = r * v.rdr + 1.0;
  int m = static_cast<int>(p);  // r < cutoff: p is small and positive
  m = m < v.nr - 1 ? m : v.nr - 1;
  p -= m;
  p = p < 1.0 ? p : 1.0;
  return {m, p};
}

SCANMD_HD inline const double* eam_coeff(const double* table, int n, int which, int m) {
  return table + (static_cast<std::size_t>(which) * static_cast<std::size_t>(n + 1) +
                  static_cast<std::size_t>(m)) *
                     7;
}

// The value and the derivative of a spline at a point.
SCANMD_HD inline double eam_value(const double* c, double p) {
  return ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
}
SCANMD_HD inline double eam_slope(const double* c, double p) {
  return (c[0] * p + c[1]) * p + c[2];
}

// ρ at a particle of type ti due to one of type tj at distance r (at point a).
SCANMD_HD inline double eam_density(const EamView& v, std::uint32_t ti, std::uint32_t tj,
                                    EamPoint a) {
  const int fn = v.type2rhor[tj * static_cast<std::uint32_t>(v.types) + ti];
  return eam_value(eam_coeff(v.rhor, v.nr, fn, a.m), a.p);
}

// F'(ρ) and F(ρ) of a particle of type t.
struct EamEmbedding {
  double fp, energy;
};

SCANMD_HD inline EamEmbedding eam_embedding(const EamView& v, std::uint32_t t, double rho) {
  double p = rho * v.rdrho + 1.0;
  // LAMMPS: m = max(1, min((int) p, nrho − 1)); the clamp first, so that no conversion of a
  // huge p is needed.
  const double top = static_cast<double>(v.nrho - 1);
  const int m = p < 1.0 ? 1 : (p >= top ? v.nrho - 1 : static_cast<int>(p));
  p -= m;
  p = p < 1.0 ? p : 1.0;
  const double* c = eam_coeff(v.frho, v.nrho, v.type2frho[t], m);
  const double fp = eam_slope(c, p);
  double e = eam_value(c, p);
  if (rho > v.rhomax) e += fp * (rho - v.rhomax);
  return {fp, e};
}

// Whether ρ lies outside the tabulated range [0, ρ_max] (clamped or extrapolated).
SCANMD_HD inline bool eam_density_outside(const EamView& v, double rho) {
  return rho < 0.0 || rho > v.rhomax;
}

// One pair's force and energy: fpair = F/r (the force on i is fpair·(x_i − x_j)) and φ(r).
struct EamPairTerms {
  double fpair, phi;
};

SCANMD_HD inline EamPairTerms eam_pair(const EamView& v, std::uint32_t ti, std::uint32_t tj,
                                       double r, EamPoint a, double fp_i, double fp_j) {
  const std::uint32_t T = static_cast<std::uint32_t>(v.types);
  // ρ'_i: the slope of the density at j due to i; ρ'_j: at i due to j.
  const double rhoip = eam_slope(eam_coeff(v.rhor, v.nr, v.type2rhor[ti * T + tj], a.m), a.p);
  const double rhojp = eam_slope(eam_coeff(v.rhor, v.nr, v.type2rhor[tj * T + ti], a.m), a.p);
  const double* z = eam_coeff(v.z2r, v.nr, v.type2z2r[ti * T + tj], a.m);
  const double z2p = eam_slope(z, a.p);
  const double z2 = eam_value(z, a.p);
  const double recip = 1.0 / r;
  const double phi = z2 * recip;
  const double phip = z2p * recip - phi * recip;
  // a + b == b + a in IEEE arithmetic: the same bits whichever particle is i.
  const double psip = fp_i * rhojp + fp_j * rhoip + phip;
  return {-psip * recip, phi};
}

// The same for one atom type: the two density slopes are the same function, looked up once (the
// same bits as eam_pair).
SCANMD_HD inline EamPairTerms eam_pair_single(const EamView& v, double r, EamPoint a, double fp_i,
                                              double fp_j) {
  const double rhop = eam_slope(eam_coeff(v.rhor, v.nr, v.type2rhor[0], a.m), a.p);
  const double* z = eam_coeff(v.z2r, v.nr, v.type2z2r[0], a.m);
  const double z2p = eam_slope(z, a.p);
  const double z2 = eam_value(z, a.p);
  const double recip = 1.0 / r;
  const double phi = z2 * recip;
  const double phip = z2p * recip - phi * recip;
  const double psip = fp_i * rhop + fp_j * rhop + phip;
  return {-psip * recip, phi};
}

}  // namespace scanmd
