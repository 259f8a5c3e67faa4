// Pair forces (see pair_forces.hpp): the scalar loop, the dispatch to the vector kernels, and
// the split of the rows among threads, each a template over the style's evaluator E.
#include "engine/pair_forces.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "engine/fixed_terms.hpp"
#include "engine/pair_clusters.hpp"
#include "engine/pair_rows.hpp"
#include "engine/row_parts.hpp"
#include "physics/pair/pair_noise.hpp"

namespace scanmd {

namespace {

// Typed: more than one species, the pair's constants looked up by the two types; else the one
// entry, hoisted (the same bits, no type loads in the loop).
// Explicit: small boxes, the displacement from the images' shifts (base/box.hpp).
// Rows [row_begin, row_end) of the list, their forces added into f (the store's own array, or a
// thread's).
template <class E>
struct Pass {
  const ParticleStore& p;
  const NeighborList& list;
  PairTable<E> table;
  const PairPotential& potential;  // the words of an overflow
  const Box& box;
  PairImages images;
  bool owned_shares_only, with_energy;
  // Styles that read the pair's motion (MotionStyle): every particle's velocity (owned, then
  // ghosts) and the step of the random numbers.
  const Vec3* v = nullptr;
  std::uint64_t step = 0;
  double share = 1.0;     // the pair computes adding to the forces: limit² / share² per term
  InteriorRows interior;  // the vector kernels' rows without the minimum-image test
};

// limit² of one term (fixed_terms.hpp), divided by share² (a power of two for 1, 2 computes:
// exact, and 1 leaves the bits of a run with one compute).
template <class E>
double term_limit_sq(const Pass<E>& pass) {
  return pair_term_limit_sq(pass.list.max_terms()) / (pass.share * pass.share);
}

// The terms of pair (i, j) at displacement d: the style's eval, given the pair's motion when it
// reads it (d·(v_i − v_j) and the pair's random number).
template <class E>
inline PairTerms<double> pair_terms(const Pass<E>& pass, double r2,
                                    const typename E::Params& params, Vec3 d, std::size_t i,
                                    std::uint32_t j) {
  if constexpr (MotionStyle<E>) {
    const Vec3 vi = pass.v[i], vj = pass.v[j];
    const double dvd = d.x * (vi.x - vj.x) + d.y * (vi.y - vj.y) + d.z * (vi.z - vj.z);
    const double theta = pair_noise(params.seed, pass.step, pass.p.id[i], pass.p.id[j]);
    return E::eval(r2, params, PairMotion<double>{dvd, theta});
  } else {
    return E::eval(r2, params);
  }
}

template <class E, bool WithEnergy, bool OwnedSharesOnly, bool Typed, bool Explicit>
ForceTotals accumulate(const Pass<E>& pass, std::size_t row_begin, std::size_t row_end, Fix3* f) {
  const ParticleStore& p = pass.p;
  const NeighborList& list = pass.list;
  const PairTable<E> table = pass.table;
  const Box& box = pass.box;
  const std::size_t n_owned = p.n_owned;
  const auto* offsets = list.offsets().data();
  const auto* nbr = list.neighbors().data();
  const Vec3* x = p.x.data();
  const std::uint32_t* type = p.type.data();
  const Int3* shift = p.shift.data();
  const Vec3 L = box.length, H = box.half_length;
  ForceTotals totals;
  fixed::Wide energy = 0, virial = 0;
  // Per-term bound, a power of two ≤ 2^63 / (max_terms + 1) / share, in fixed-point units.
  const double limit_sq = term_limit_sq(pass);
  for (std::size_t i = row_begin; i < row_end; ++i) {
    const std::uint32_t begin = offsets[i], end = offsets[i + 1];
    if (begin == end) continue;
    const Vec3 xi = x[i];
    const Int3 si = Explicit ? shift[i] : Int3{0, 0, 0};
    const typename E::Params* row = Typed ? table.params + type[i] * table.types : table.params;
    std::int64_t fx = 0, fy = 0, fz = 0;
    bool overflow = false;
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint32_t j = nbr[k];
      const Vec3 d = Explicit ? image_displacement(xi, x[j], si, shift[j], L)
                              : pair_displacement(xi, x[j], L, H);
      const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      const typename E::Params& params = Typed ? row[type[j]] : *row;
      // A plain branch: measured faster than branch-free selection or a compaction pass,
      // because it skips the division for the third of the list beyond r_c.
      if (r2 >= params.cutoff_sq) continue;
      ++totals.pairs;
      const PairTerms<double> t = pair_terms(pass, r2, params, d, i, j);
      const Fix3 F = pair_force_fixed(d, r2, t, limit_sq, overflow);
      const std::int64_t Fx = F.x, Fy = F.y, Fz = F.z;
      fx += Fx;
      fy += Fy;
      fz += Fz;
      f[j].x -= Fx;
      f[j].y -= Fy;
      f[j].z -= Fz;
      if constexpr (WithEnergy) {
        const std::int64_t e = pair_energy_fixed(t, overflow);
        const std::int64_t w = pair_virial_fixed(t, r2, overflow);
        const bool shared = OwnedSharesOnly && j >= n_owned;
        const bool i_lower =
            shared && takes_lower_share(p.id[i], p.id[j], si, Explicit ? shift[j] : Int3{0, 0, 0});
        add_pair_energy(energy, virial, e, w, shared, i_lower);
      }
      if (overflow) {
        throw std::overflow_error(pass.potential.overflow_message(
            p.id[i], p.id[j], r2, Typed ? type[i] : 0, Typed ? type[j] : 0));
      }
    }
    f[i].x += fx;
    f[i].y += fy;
    f[i].z += fz;
  }
  totals.energy = energy;
  totals.virial = virial;
  return totals;
}

template <class E, bool Typed, bool Explicit>
ForceTotals scalar_rows(const Pass<E>& pass, std::size_t begin, std::size_t end, Fix3* f) {
  if (pass.with_energy)
    return pass.owned_shares_only
               ? accumulate<E, true, true, Typed, Explicit>(pass, begin, end, f)
               : accumulate<E, true, false, Typed, Explicit>(pass, begin, end, f);
  // Without energy, full shell's share rule does not enter.
  return accumulate<E, false, false, Typed, Explicit>(pass, begin, end, f);
}

template <class E>
ForceTotals scalar_rows(const Pass<E>& pass, std::size_t begin, std::size_t end, Fix3* f) {
  const bool typed = pass.table.types > 1;
  if (pass.images == PairImages::Explicit)
    return typed ? scalar_rows<E, true, true>(pass, begin, end, f)
                 : scalar_rows<E, false, true>(pass, begin, end, f);
  return typed ? scalar_rows<E, true, false>(pass, begin, end, f)
               : scalar_rows<E, false, false>(pass, begin, end, f);
}

// Rows [begin, end) by the chosen kernel where it applies (pair_kernel.hpp), else the scalar
// loop. A vector pass that overflowed sets `overflow` (the caller reruns the scalar loop). The
// vector kernels take energy steps too, unless full shell splits the pairs' energies by ids.
// Several species too (each lane its own type pair's constants and cutoff).
template <class E>
ForceTotals rows_pass(const Pass<E>& pass, PairKernel kernel, std::size_t begin, std::size_t end,
                      Fix3* f, bool& overflow) {
  const bool typed = pass.table.types > 1;
  const bool vector = E::kVector && kernel != PairKernel::Scalar &&
                      !(pass.with_energy && pass.owned_shares_only) &&
                      pass.images == PairImages::Minimum && pass.p.size() < INT_MAX / 3;
  if (!vector) return scalar_rows(pass, begin, end, f);
  PairRows<E> rows{pass.list.offsets().data(),
                   pass.list.neighbors().data(),
                   pass.p.x.data(),
                   pass.box.length,
                   pass.box.half_length,
                   pass.table.params[0],
                   term_limit_sq(pass),
                   pass.with_energy};
  rows.gather = position_loads() == PositionLoads::Gather;
  rows.interior = pass.interior;
  if (typed) {
    rows.type = pass.p.type.data();
    rows.table = pass.table.params;
    rows.types = pass.table.types;
  }
  const RowsTotals r = kernel == PairKernel::Avx512 ? pair_rows_avx512(rows, begin, end, f)
                                                    : pair_rows_avx2(rows, begin, end, f);
  overflow |= r.overflow;
  ForceTotals t;
  t.pairs = r.pairs;
  t.energy = r.energy;
  t.virial = r.virial;
  return t;
}

}  // namespace

int force_threads() {
  // Like LAMMPS' OPENMP package: one thread unless OMP_NUM_THREADS asks for more, so that
  // mpirun -np <cores> never oversubscribes by default. OpenMP is told too, so the scan
  // primitives (kernels/) follow the same count.
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (env == nullptr || *env == '\0') omp_set_num_threads(1);
  return std::max(1, omp_get_max_threads());
}

int cores_available() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

void build_clusters(const ParticleStore& p, const NeighborList& list, ForceScratch& scratch) {
  ClusterList& cl = scratch.clusters;
  if (cl.built() && scratch.clusters_of == &list && cl.built_from() == list.generation()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = p.size();
  if (list.cell_order().size() != n)
    throw std::logic_error("build_clusters: the neighbour list is not of these particles");
  const auto& offsets = list.offsets();
  cl.build(offsets.data(), list.neighbors().data(), offsets.empty() ? 0 : offsets.size() - 1,
           list.cell_order().data(), n, list.generation());
  scratch.clusters_of = &list;
  scratch.cluster_build_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++scratch.cluster_builds;
}

namespace {

template <class E>
ForceTotals compute(const Pass<E>& pass, ParticleStore& p, PairKernel kernel, ForceScratch* scratch,
                    bool adding);

// Whether the cluster kernel covers the pass: one species of a vector style in minimum image, and
// energy only when each pair's energy is wholly this rank's (not full shell's owned shares).
template <class E>
bool clusters_cover(const Pass<E>& pass, const ForceScratch* scratch) {
  return E::kVector && scratch != nullptr && pass.table.types == 1 &&
         pass.images == PairImages::Minimum && !(pass.with_energy && pass.owned_shares_only) &&
         pass.p.size() < (std::size_t{1} << 29);
}

// The pass by the cluster kernel: the cluster list (re)built when the neighbour list changed,
// the positions copied to slot order, the i-clusters split among threads by their entries, each
// thread's forces in slot order added to its force array (thread 0: the store's), and the
// arrays summed as compute() does.
template <class E>
ForceTotals compute_clusters(const Pass<E>& pass, ParticleStore& p, ForceScratch& scratch,
                             bool adding) {
  const std::size_t n = p.size();
  build_clusters(p, pass.list, scratch);
  const ClusterList& cl = scratch.clusters;
  if (!cl.exact()) return compute(pass, p, rows_kernel(PairKernel::Cluster), &scratch, adding);
  const std::size_t slots = cl.slots(), clusters = cl.clusters();
  const int threads = std::max(1, scratch.threads);
  resize_with_slack(scratch.cx, slots);
  resize_with_slack(scratch.cy, slots);
  resize_with_slack(scratch.cz, slots);
  resize_with_slack(scratch.bounds, 8 * clusters);
  scratch.cf.resize(static_cast<std::size_t>(threads));
  scratch.per_thread.resize(static_cast<std::size_t>(threads - 1));
  for (auto& b : scratch.per_thread) b.resize(n);
  // i-cluster boundaries giving each thread about the same number of entries.
  std::vector<std::size_t> at(static_cast<std::size_t>(threads) + 1, clusters);
  at[0] = 0;
  const auto& offsets = cl.offsets();
  for (int t = 1; t < threads; ++t) {
    const auto target = static_cast<std::uint32_t>(static_cast<double>(cl.entries()) * t / threads);
    at[static_cast<std::size_t>(t)] = static_cast<std::size_t>(
        std::lower_bound(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(clusters),
                         target) -
        offsets.begin());
  }
  const PairClusters<E> c{&cl,
                          scratch.cx.data(),
                          scratch.cy.data(),
                          scratch.cz.data(),
                          scratch.bounds.data(),
                          pass.box.length,
                          pass.box.half_length,
                          pass.table.params[0],
                          term_limit_sq(pass)};
  std::vector<ClusterTotals> part(static_cast<std::size_t>(threads));
  const std::uint32_t* particle = cl.particle().data();
  const auto kernel = rows_kernel(PairKernel::Cluster) == PairKernel::Avx512
                          ? &pair_clusters_avx512<E>
                          : &pair_clusters_avx2<E>;
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (std::size_t k = 0; k < clusters; ++k)
      cluster_positions(cl, p.x.data(), k, k + 1, scratch.cx.data(), scratch.cy.data(),
                        scratch.cz.data(), scratch.bounds.data());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    std::vector<std::int64_t>& cf = scratch.cf[t];
    resize_with_slack(cf, 3 * slots);
    std::fill(cf.begin(), cf.begin() + static_cast<std::ptrdiff_t>(3 * slots), 0);
    std::int64_t *fx = cf.data(), *fy = fx + slots, *fz = fy + slots;
    part[t] = kernel(c, at[t], at[t + 1], fx, fy, fz, pass.with_energy);
    Fix3* f = t == 0 ? p.f.data() : scratch.per_thread[t - 1].data();
    if (t != 0 || !adding) std::fill(f, f + n, Fix3{0, 0, 0});
    for (std::size_t s = 0; s < slots; ++s) {
      const std::uint32_t i = particle[s];
      if (i == ClusterList::kNone) continue;
      f[i].x += fx[s];
      f[i].y += fy[s];
      f[i].z += fz[s];
    }
    if (threads > 1) {
#pragma omp barrier
#pragma omp for schedule(static) nowait  // the region's end is the barrier
      for (std::size_t k = 0; k < n; ++k)
        for (const auto& b : scratch.per_thread) {
          p.f[k].x += b[k].x;
          p.f[k].y += b[k].y;
          p.f[k].z += b[k].z;
        }
    }
  }
  ForceTotals totals;
  bool overflow = false;
  for (const ClusterTotals& pt : part) {
    totals.pairs += pt.pairs;
    totals.energy += pt.energy;
    totals.virial += pt.virial;
    overflow = overflow || pt.overflow;
  }
  if (overflow) {
    // A term out of range: the scalar loop finds the same pair and names it.
    std::fill(p.f.begin(), p.f.end(), Fix3{0, 0, 0});
    scalar_rows(pass, 0, n, p.f.data());
    throw std::logic_error(
        "the cluster pair kernel reported an overflow the scalar loop does not see");
  }
  return totals;
}

template <class E>
ForceTotals compute(const Pass<E>& pass, ParticleStore& p, PairKernel kernel, ForceScratch* scratch,
                    bool adding) {
  if (kernel == PairKernel::Cluster) {
    if (clusters_cover(pass, scratch)) return compute_clusters(pass, p, *scratch, adding);
    kernel = rows_kernel(kernel);  // the rest: the same instruction set's rows (or the scalar loop)
  }
  const std::size_t n = p.size();
  const int threads = scratch != nullptr ? scratch->threads : 1;
  bool overflow = false;
  ForceTotals totals;
  if (threads <= 1 || n == 0) {
    if (!adding) std::fill(p.f.begin(), p.f.end(), Fix3{0, 0, 0});
    totals = rows_pass(pass, kernel, 0, n, p.f.data(), overflow);
  } else {
    // Parts of the rows taken by whichever thread is free, each adding into its own array
    // (engine/row_parts.hpp).
    const int most = most_row_parts(threads);
    std::vector<ForceTotals> part(static_cast<std::size_t>(most));
    std::vector<char> part_overflow(static_cast<std::size_t>(most), 0);
    const int parts = run_row_parts(
        pass.list.offsets().data(), n, threads, p.f.data(), !adding, scratch->per_thread,
        [&](int c, std::size_t begin, std::size_t end, Fix3* f) {
          bool o = false;
          part[static_cast<std::size_t>(c)] = rows_pass(pass, kernel, begin, end, f, o);
          part_overflow[static_cast<std::size_t>(c)] = o;
        },
        add_fixed3);
    for (int c = 0; c < parts; ++c) {
      totals += part[static_cast<std::size_t>(c)];
      overflow = overflow || part_overflow[static_cast<std::size_t>(c)] != 0;
    }
  }
  if (overflow) {
    // A vector pass found a term out of range: the scalar loop finds the same pair and names it.
    std::fill(p.f.begin(), p.f.end(), Fix3{0, 0, 0});
    totals = scalar_rows(pass, 0, n, p.f.data());
    throw std::logic_error(
        "a vector pair kernel reported an overflow the scalar loop does not see");
  }
  return totals;
}

}  // namespace

ForceTotals compute_pair_forces(ParticleStore& p, const NeighborList& list,
                                const PairPotential& potential, const Box& box, PairImages images,
                                bool owned_shares_only, bool with_energy, PairKernel kernel,
                                ForceScratch* scratch, bool adding, const Vec3* v,
                                std::uint64_t step, int pair_computes) {
  return potential.visit([&]<class E>(const StyleTable<E>& table) {
    if (MotionStyle<E> && v == nullptr)
      throw std::logic_error("pair style " + std::string(E::kName) + " needs the velocities");
    const Pass<E> pass{p,
                       list,
                       table.view(),
                       potential,
                       box,
                       images,
                       owned_shares_only,
                       with_energy,
                       v,
                       step,
                       static_cast<double>(pair_computes),
                       scratch != nullptr && images == PairImages::Minimum
                           ? InteriorRows{p.x_build.data(), p.n_owned, scratch->interior}
                           : InteriorRows{}};
    return compute(pass, p, kernel, scratch, adding);
  });
}

}  // namespace scanmd
