// tests/engine/test_support.hpp — configurations and brute-force oracles shared by the tests of
// engine/ and decomposition/.
//
// Everything here is written from the physics and DESIGN.md, not from the library: random
// numbers from a private SplitMix64 (no std:: distributions, so every rank and every platform
// draws the same bits), minimum image by rounding in long double, LJ energy and force from
// U(r) = 4ε[(σ/r)^12 − (σ/r)^6] − U(r_c)·[shift], F = −dU/dr · d/r, and O(N²) pair loops.
// Only the plain data types (Vec3, Int3, InitialParticle) are borrowed from the library.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/cell_list.hpp"
#include "engine/neighbor_list.hpp"
#include "engine/simulation.hpp"
#include "tests/support/rng.hpp"

namespace scanmd::test {

// A [[potential.pair]] entry of the LJ style (LAMMPS pair_coeff i j ε σ [r_c]).
inline PairCoeffs lj_pair(std::array<int, 2> types, double epsilon, double sigma,
                          std::optional<double> cutoff = std::nullopt) {
  return {types, {{"epsilon", epsilon}, {"sigma", sigma}}, cutoff};
}
// The one-species LJ coefficients of a [potential] section.
inline void set_lj(PotentialSection& p, double epsilon, double sigma) {
  p.coeffs["epsilon"] = epsilon;
  p.coeffs["sigma"] = sigma;
}

// ---- configurations --------------------------------------------------------------------

inline double wrap_into(double x, double len) {
  x -= std::floor(x / len) * len;
  if (x >= len) x = 0.0;  // -tiny + L rounds to L
  return x;
}

// Random sequential addition: n positions uniform in [0, L) whose minimum-image separations are
// all >= min_sep. A coarse cell grid keeps it O(n); throws when it cannot place a particle.
inline std::vector<Vec3> random_positions(std::size_t n, Vec3 L, double min_sep,
                                          std::uint64_t seed) {
  Rng rng(seed);
  const int cx = std::max(1, static_cast<int>(L.x / min_sep));
  const int cy = std::max(1, static_cast<int>(L.y / min_sep));
  const int cz = std::max(1, static_cast<int>(L.z / min_sep));
  std::vector<std::vector<std::uint32_t>> cells(static_cast<std::size_t>(cx) * cy * cz);
  auto cell = [&](Vec3 q) {
    return std::array<int, 3>{std::min(cx - 1, static_cast<int>(q.x / L.x * cx)),
                              std::min(cy - 1, static_cast<int>(q.y / L.y * cy)),
                              std::min(cz - 1, static_cast<int>(q.z / L.z * cz))};
  };
  auto flat = [&](int a, int b, int c) {
    a = (a % cx + cx) % cx, b = (b % cy + cy) % cy, c = (c % cz + cz) % cz;
    return static_cast<std::size_t>(a) +
           static_cast<std::size_t>(cx) * (b + static_cast<std::size_t>(cy) * c);
  };
  std::vector<Vec3> out;
  out.reserve(n);
  const double min_sq = min_sep * min_sep;
  long long attempts = 0;
  while (out.size() < n) {
    if (++attempts > 2000LL * static_cast<long long>(n) + 100000)
      throw std::runtime_error("random_positions: cannot place particles at this density");
    const Vec3 q{rng.uniform() * L.x, rng.uniform() * L.y, rng.uniform() * L.z};
    const auto c = cell(q);
    bool ok = true;
    for (int dz = -1; dz <= 1 && ok; ++dz)
      for (int dy = -1; dy <= 1 && ok; ++dy)
        for (int dx = -1; dx <= 1 && ok; ++dx)
          for (std::uint32_t k : cells[flat(c[0] + dx, c[1] + dy, c[2] + dz)]) {
            const Vec3 p = out[k];
            const double ex = std::remainder(q.x - p.x, L.x), ey = std::remainder(q.y - p.y, L.y),
                         ez = std::remainder(q.z - p.z, L.z);
            if (ex * ex + ey * ey + ez * ez < min_sq) {
              ok = false;
              break;
            }
          }
    if (!ok) continue;
    cells[flat(c[0], c[1], c[2])].push_back(static_cast<std::uint32_t>(out.size()));
    out.push_back(q);
  }
  return out;
}

// FCC lattice of nx·ny·nz unit cells at `density` (a = (4/ρ)^(1/3)), every site displaced by a
// uniform random vector in [-amp, amp)³ and wrapped into [0, L). Returns positions; L via out.
inline std::vector<Vec3> perturbed_fcc(std::array<int, 3> n, double density, double amp,
                                       std::uint64_t seed, Vec3& L) {
  const double a = std::cbrt(4.0 / density);
  L = {n[0] * a, n[1] * a, n[2] * a};
  static constexpr double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  Rng rng(seed);
  std::vector<Vec3> out;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        for (const auto& b : basis) {
          Vec3 q{(i + b[0]) * a + rng.uniform(-amp, amp), (j + b[1]) * a + rng.uniform(-amp, amp),
                 (k + b[2]) * a + rng.uniform(-amp, amp)};
          q = {wrap_into(q.x, L.x), wrap_into(q.y, L.y), wrap_into(q.z, L.z)};
          out.push_back(q);
        }
  return out;
}

// Particles with ids 1..n at the given positions; velocities uniform in [-vmax, vmax) (0: rest).
inline std::vector<InitialParticle> make_particles(const std::vector<Vec3>& x, double vmax = 0.0,
                                                   std::uint64_t seed = 7) {
  Rng rng(seed);
  std::vector<InitialParticle> out;
  out.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    Vec3 v{0, 0, 0};
    if (vmax > 0)
      v = {rng.uniform(-vmax, vmax), rng.uniform(-vmax, vmax), rng.uniform(-vmax, vmax)};
    out.push_back({static_cast<std::uint64_t>(i + 1), x[i], v, {0, 0, 0}});
  }
  return out;
}

// ---- brute-force oracles -----------------------------------------------------------------

using LD = long double;

inline LD min_image(LD d, LD len) {
  return d - len * std::nearbyint(d / len);
}

// Cheap double-precision prefilter for the O(N²) loops: true when the minimum-image distance is
// certainly >= r (with a generous margin), so the exact long double test can be skipped.
inline bool surely_beyond(const Vec3& a, const Vec3& b, Vec3 L, double r) {
  auto c = [](double d, double len) {
    d = std::fabs(d);
    return d > 0.5 * len ? len - d : d;
  };
  const double dx = c(a.x - b.x, L.x), dy = c(a.y - b.y, L.y), dz = c(a.z - b.z, L.z);
  const double lim = r + 1e-6;
  return dx > lim || dy > lim || dz > lim || dx * dx + dy * dy + dz * dz > lim * lim;
}

struct LJSpec {
  double epsilon = 1.0, sigma = 1.0, cutoff = 2.5;
  bool shift = false;
};

struct BruteForce {
  std::vector<std::array<LD, 3>> force;  // per particle (index order of the input)
  LD energy = 0;                         // Σ U over pairs with r < r_c
  LD virial = 0;                         // Σ r·F = Σ r (−dU/dr)
  long long pairs = 0;                   // pairs with r < r_c
  long long near_cutoff = 0;             // pairs with |r − r_c| < 1e-9 (ambiguous; should be 0)
};

// O(N²) Lennard-Jones over all minimum-image pairs, in long double.
// Several species: pair (i, j) uses spec_of(type[i], type[j]) (its own ε, σ, r_c and shift).
template <class SpecOf>
BruteForce brute_force_lj(const std::vector<Vec3>& x, Vec3 L, const std::vector<int>& type,
                          SpecOf spec_of) {
  const std::size_t n = x.size();
  BruteForce out;
  out.force.assign(n, {0, 0, 0});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const LJSpec s = spec_of(type[i], type[j]);
      const LD rc = s.cutoff, eps = s.epsilon, sig = s.sigma;
      auto u = [&](LD r) {
        const LD sr6 = std::pow(sig / r, LD(6));
        return 4 * eps * (sr6 * sr6 - sr6);
      };
      if (surely_beyond(x[i], x[j], L, s.cutoff)) continue;
      const LD dx = min_image(LD(x[i].x) - LD(x[j].x), L.x);
      const LD dy = min_image(LD(x[i].y) - LD(x[j].y), L.y);
      const LD dz = min_image(LD(x[i].z) - LD(x[j].z), L.z);
      const LD r = std::sqrt(dx * dx + dy * dy + dz * dz);
      if (std::fabs(r - rc) < 1e-9L) ++out.near_cutoff;
      if (r >= rc) continue;
      const LD sr6 = std::pow(sig / r, LD(6));
      const LD minus_dudr = 24 * eps * (2 * sr6 * sr6 - sr6) / r;  // −dU/dr
      const LD f_over_r = minus_dudr / r;
      out.force[i][0] += f_over_r * dx, out.force[i][1] += f_over_r * dy,
          out.force[i][2] += f_over_r * dz;
      out.force[j][0] -= f_over_r * dx, out.force[j][1] -= f_over_r * dy,
          out.force[j][2] -= f_over_r * dz;
      out.energy += u(r) - (s.shift ? u(rc) : LD(0));
      out.virial += minus_dudr * r;
      ++out.pairs;
    }
  return out;
}

inline BruteForce brute_force_lj(const std::vector<Vec3>& x, Vec3 L, const LJSpec& s) {
  return brute_force_lj(x, L, std::vector<int>(x.size(), 0), [&](int, int) { return s; });
}

// O(N²·images) Lennard-Jones over every pair of periodic images, for boxes of any size (shorter
// than 2·r_c or even than r_c): pair (i, j + S·L) for i < j and every shift S, and (i, i + S·L)
// for the S that are lexicographically positive (each image pair of a particle with itself
// once). Long double, written from ε, σ, r_c alone; no minimum image anywhere.
inline BruteForce brute_force_lj_all_images(const std::vector<Vec3>& x, Vec3 L, const LJSpec& s) {
  const std::size_t n = x.size();
  BruteForce out;
  out.force.assign(n, {0, 0, 0});
  const LD rc = s.cutoff, eps = s.epsilon, sig = s.sigma;
  auto u = [&](LD r) {
    const LD sr6 = std::pow(sig / r, LD(6));
    return 4 * eps * (sr6 * sr6 - sr6);
  };
  // Wrapped coordinates differ by less than L, so |S_a| <= ceil(r_c / L_a) + 1 covers every image.
  const int nx = static_cast<int>(std::ceil(s.cutoff / L.x)) + 1;
  const int ny = static_cast<int>(std::ceil(s.cutoff / L.y)) + 1;
  const int nz = static_cast<int>(std::ceil(s.cutoff / L.z)) + 1;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j)
      for (int sx = -nx; sx <= nx; ++sx)
        for (int sy = -ny; sy <= ny; ++sy)
          for (int sz = -nz; sz <= nz; ++sz) {
            if (i == j) {  // own images: S lexicographically positive only
              const bool positive = sx > 0 || (sx == 0 && (sy > 0 || (sy == 0 && sz > 0)));
              if (!positive) continue;
            }
            const LD dx = LD(x[i].x) - LD(x[j].x) - sx * LD(L.x);
            const LD dy = LD(x[i].y) - LD(x[j].y) - sy * LD(L.y);
            const LD dz = LD(x[i].z) - LD(x[j].z) - sz * LD(L.z);
            const LD r = std::sqrt(dx * dx + dy * dy + dz * dz);
            if (std::fabs(r - rc) < 1e-9L) ++out.near_cutoff;
            if (r >= rc) continue;
            const LD sr6 = std::pow(sig / r, LD(6));
            const LD minus_dudr = 24 * eps * (2 * sr6 * sr6 - sr6) / r;
            const LD f_over_r = minus_dudr / r;
            out.force[i][0] += f_over_r * dx, out.force[i][1] += f_over_r * dy,
                out.force[i][2] += f_over_r * dz;
            out.force[j][0] -= f_over_r * dx, out.force[j][1] -= f_over_r * dy,
                out.force[j][2] -= f_over_r * dz;
            out.energy += u(r) - (s.shift ? u(rc) : LD(0));
            out.virial += minus_dudr * r;
            ++out.pairs;
          }
  return out;
}

// Unordered pairs (id_lo, id_hi) of ids 1..n within distance `r` (minimum image), with for
// each whether the pair is "direct": its minimum image needs no periodic shift.
struct BrutePair {
  std::uint64_t a, b;
  bool direct;
};
inline std::vector<BrutePair> brute_pairs_within(const std::vector<Vec3>& x, Vec3 L, double r,
                                                 long long* ambiguous = nullptr) {
  std::vector<BrutePair> out;
  const LD r_sq = LD(r) * r;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      if (surely_beyond(x[i], x[j], L, r)) continue;
      const LD rx = LD(x[i].x) - LD(x[j].x), ry = LD(x[i].y) - LD(x[j].y),
               rz = LD(x[i].z) - LD(x[j].z);
      const LD dx = min_image(rx, L.x), dy = min_image(ry, L.y), dz = min_image(rz, L.z);
      const LD d_sq = dx * dx + dy * dy + dz * dz;
      if (ambiguous && std::fabs(d_sq - r_sq) < 1e-9L) ++*ambiguous;
      if (d_sq < r_sq) out.push_back({i + 1, j + 1, dx == rx && dy == ry && dz == rz});
    }
  return out;
}

// ---- the neighbour list of one rank, built from the public pieces --------------------------

// One entry of a neighbour list row, as ids: the pair (id_lo, id_hi), the squared distance of
// the two listed images (binning positions x + shift·L), and whether that image displacement is
// the minimum-image displacement of the wrapped positions (to 1e-9).
struct ListedPair {
  std::uint64_t a, b;
  double d_sq;
  bool minimum_image;
  std::uint32_t row, slot;  // the entry's row and its neighbour's slot (owned, then ghosts)
};

// The list's reach beyond R (engine/pair_candidate.hpp: the search test runs in float over a
// sphere a little wider than R, by 2^-20 of the domain's extent plus 2R): a listed pair may lie
// beyond R by at most this factor in the tests' boxes (under 25σ + 2R).
inline constexpr double kListReach = 1.0 + 1e-5;

// Builds this rank's neighbour list for the particles (ids 1..n; each rank keeps those its box
// holds) exactly as Simulation::rebuild does — migrate, halo build, cell list, neighbour list
// with the method's PairRule — and returns its entries. Collective over `comm`. `sorted`: the
// owned particles put in cell order first, as a rebuild does at every few rebuilds
// (Domain::redistribute), so that rows of one cell follow each other. `max_terms`: where
// given, the list's max_terms().
inline std::vector<ListedPair> listed_pairs(const Communicator& comm, const std::vector<Vec3>& x,
                                            Vec3 L, Method method, double R, Int3 grid_dims,
                                            std::size_t* ghosts = nullptr,
                                            PairKernel kernel = PairKernel::Scalar, int threads = 1,
                                            bool sorted = false,
                                            std::uint32_t* max_terms = nullptr) {
  const Box box = Box::make(L);
  const RankGrid grid(grid_dims, box);
  HaloExchange halo(comm, grid, box, method, R);
  ParticleStore p;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (grid.box_of(x[i]) == halo.coord())
      p.push_owned(i + 1, 0, x[i], {0, 0, 0}, {0, 0, 0}, halo.coord());
  halo.migrate(p);
  kernels::Workspace ws;
  if (sorted) {
    CellList owned;
    owned.build(ws, p, box, grid.lo(halo.coord()), grid.hi(halo.coord()), R, R);
    p.permute_owned(owned.order());
  }
  halo.build(p);
  if (ghosts) *ghosts = p.n_ghost();
  CellList cells;
  cells.build(ws, p, box, grid.lo(halo.coord()), grid.hi(halo.coord()), R, R);
  NeighborList list;
  list.set_kernel(kernel);
  list.set_threads(threads);
  list.build(ws, p, cells, PairRule{method, halo.coord(), grid.cuts()}, R);
  if (max_terms) *max_terms = list.max_terms();
  std::vector<ListedPair> out;
  const auto& off = list.offsets();
  const auto& nbr = list.neighbors();
  auto q = [&](std::size_t i) {
    const Int3 s = p.shift[i];
    return std::array<LD, 3>{LD(p.x[i].x) + s.x * LD(L.x), LD(p.x[i].y) + s.y * LD(L.y),
                             LD(p.x[i].z) + s.z * LD(L.z)};
  };
  for (std::size_t i = 0; i + 1 < off.size(); ++i)
    for (std::uint32_t k = off[i]; k < off[i + 1]; ++k) {
      const std::uint32_t j = nbr[k];
      const auto qi = q(i), qj = q(j);
      const LD d[3] = {qi[0] - qj[0], qi[1] - qj[1], qi[2] - qj[2]};
      const LD m[3] = {min_image(LD(p.x[i].x) - LD(p.x[j].x), L.x),
                       min_image(LD(p.x[i].y) - LD(p.x[j].y), L.y),
                       min_image(LD(p.x[i].z) - LD(p.x[j].z), L.z)};
      bool mi = true;
      for (int c = 0; c < 3; ++c) mi = mi && std::fabs(d[c] - m[c]) < 1e-9L;
      out.push_back({std::min(p.id[i], p.id[j]), std::max(p.id[i], p.id[j]),
                     static_cast<double>(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), mi,
                     static_cast<std::uint32_t>(i), j});
    }
  return out;
}

// Scientific notation for RecordProperty / logs.
inline std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

// ---- MPI helpers ---------------------------------------------------------------------------

// All ranks' vectors concatenated in rank order, on every rank.
template <class T>
std::vector<T> all_gather_vector(MPI_Comm comm, const std::vector<T>& mine) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const int bytes = static_cast<int>(mine.size() * sizeof(T));
  std::vector<int> counts(size), displs(size);
  MPI_Allgather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) displs[r] = total, total += counts[r];
  std::vector<T> all(total / sizeof(T));
  MPI_Allgatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                 comm);
  return all;
}

// True on every rank iff `ok` on every rank.
inline bool all_ranks(MPI_Comm comm, bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
  return all != 0;
}

}  // namespace scanmd::test
