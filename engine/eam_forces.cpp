// The host EAM compute (see eam_forces.hpp).
#include "engine/eam_forces.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/eam_rows.hpp"
#include "engine/fixed_terms.hpp"
#include "engine/row_parts.hpp"

namespace scanmd {

namespace {

template <bool Explicit>
Vec3 displacement(const ParticleStore& p, std::size_t i, std::size_t j, Vec3 L, Vec3 H) {
  if constexpr (Explicit) return image_displacement(p.x[i], p.x[j], p.shift[i], p.shift[j], L);
  return pair_displacement(p.x[i], p.x[j], L, H);
}

// Pass 1: the density contributions of the listed pairs of rows [row_begin, row_end) within the
// cutoff, added to rho. Single: one atom type, whose two contributions are the same function
// (computed once: the same bits). The first pair out of range sets bad_i, bad_j.
template <bool Explicit, bool Single>
void density_pass(const ParticleStore& p, const NeighborList& list, const EamView& v,
                  const Box& box, bool owned_only, std::size_t row_begin, std::size_t row_end,
                  std::int64_t* rho, bool& overflow, std::uint64_t& bad_i, std::uint64_t& bad_j) {
  const auto* offsets = list.offsets().data();
  const auto* nbr = list.neighbors().data();
  const std::size_t n_owned = p.n_owned;
  const Vec3 L = box.length, H = box.half_length;
  for (std::size_t i = row_begin; i < row_end; ++i) {
    const std::uint32_t ti = p.type[i];
    std::int64_t sum = 0;
    bool o = false;
    for (std::uint32_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      const std::uint32_t j = nbr[k];
      const Vec3 d = displacement<Explicit>(p, i, j, L, H);
      const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      if (r2 >= v.cutoff_sq) continue;
      const std::uint32_t tj = p.type[j];
      const EamPoint a = eam_r_point(v, std::sqrt(r2));
      const std::int64_t to_i = fixed::to_fixed(eam_density(v, ti, tj, a), o);
      fixed::add_checked(sum, to_i, o);
      if (!(owned_only && j >= n_owned))
        fixed::add_checked(rho[j], Single ? to_i : fixed::to_fixed(eam_density(v, tj, ti, a), o),
                           o);
      if (o && !overflow) {
        bad_i = p.id[i];
        bad_j = p.id[j];
      }
      overflow |= o;
    }
    fixed::add_checked(rho[i], sum, overflow);
  }
}

// Pass 3: the forces of rows [row_begin, row_end), added to f, and their pair energy and virial.
template <bool Explicit, bool Single, bool WithEnergy, bool OwnedSharesOnly>
ForceTotals force_pass(const ParticleStore& p, const NeighborList& list, const EamView& v,
                       const Box& box, const double* fp, std::size_t row_begin, std::size_t row_end,
                       Fix3* f, bool& overflow, std::uint64_t& bad_i, std::uint64_t& bad_j) {
  const auto* offsets = list.offsets().data();
  const auto* nbr = list.neighbors().data();
  const std::size_t n_owned = p.n_owned;
  const Vec3 L = box.length, H = box.half_length;
  const double limit_sq = pair_term_limit_sq(list.max_terms());
  ForceTotals totals;
  fixed::Wide energy = 0, virial = 0;
  for (std::size_t i = row_begin; i < row_end; ++i) {
    const std::uint32_t ti = p.type[i];
    const double fp_i = fp[i];
    std::int64_t fx = 0, fy = 0, fz = 0;
    for (std::uint32_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      const std::uint32_t j = nbr[k];
      const Vec3 d = displacement<Explicit>(p, i, j, L, H);
      const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      if (r2 >= v.cutoff_sq) continue;
      ++totals.pairs;
      const std::uint32_t tj = p.type[j];
      const double r = std::sqrt(r2);
      const EamPairTerms e = Single ? eam_pair_single(v, r, eam_r_point(v, r), fp_i, fp[j])
                                    : eam_pair(v, ti, tj, r, eam_r_point(v, r), fp_i, fp[j]);
      const PairTerms<double> t{e.fpair, e.phi};
      bool o = false;
      const Fix3 F = pair_force_fixed(d, r2, t, limit_sq, o);
      fx += F.x;
      fy += F.y;
      fz += F.z;
      f[j].x -= F.x;
      f[j].y -= F.y;
      f[j].z -= F.z;
      if constexpr (WithEnergy) {
        const std::int64_t u = pair_energy_fixed(t, o);
        const std::int64_t w = pair_virial_fixed(t, r2, o);
        const bool shared = OwnedSharesOnly && j >= n_owned;
        const bool i_lower =
            shared && takes_lower_share(p.id[i], p.id[j], Explicit ? p.shift[i] : Int3{0, 0, 0},
                                        Explicit ? p.shift[j] : Int3{0, 0, 0});
        add_pair_energy(energy, virial, u, w, shared, i_lower);
      }
      if (o && !overflow) {
        bad_i = p.id[i];
        bad_j = p.id[j];
      }
      overflow |= o;
    }
    f[i].x += fx;
    f[i].y += fy;
    f[i].z += fz;
  }
  totals.energy = energy;
  totals.virial = virial;
  return totals;
}

template <bool Explicit, bool Single>
ForceTotals force_pass(const ParticleStore& p, const NeighborList& list, const EamView& v,
                       const Box& box, const double* fp, bool with_energy, bool owned_only,
                       std::size_t row_begin, std::size_t row_end, Fix3* f, bool& overflow,
                       std::uint64_t& bad_i, std::uint64_t& bad_j) {
  const auto pass = [&]<bool WithEnergy, bool OwnedSharesOnly>() {
    return force_pass<Explicit, Single, WithEnergy, OwnedSharesOnly>(
        p, list, v, box, fp, row_begin, row_end, f, overflow, bad_i, bad_j);
  };
  if (!with_energy) return pass.template operator()<false, false>();
  return owned_only ? pass.template operator()<true, true>()
                    : pass.template operator()<true, false>();
}

// A part's first error (rows in order): a term out of range and its two particles' ids.
struct PartError {
  bool overflow = false;
  std::uint64_t bad_i = 0, bad_j = 0;
};

}  // namespace

ForceTotals HostEamCompute::compute(HostForceState& s, bool with_energy, bool first) {
  ParticleStore& p = s.particles;
  const std::size_t n = p.size(), n_owned = p.n_owned;
  const auto k_rho = static_cast<std::size_t>(p.fields.find(kEamDensityField));
  const auto k_fp = static_cast<std::size_t>(p.fields.find(kEamSlopeField));
  const bool explicit_images = s.images == PairImages::Explicit;
  bool overflow = false;
  std::uint64_t bad_i = 0, bad_j = 0;

  // Threads of the rank: each pass in parts of the rows (engine/row_parts.hpp).
  const int threads = n > 0 ? std::max(1, s.scratch.threads) : 1;

  // 1. Densities, summed into the owners.
  std::int64_t* rho = p.fields.integers(k_rho).data();
  const bool single = view_.types == 1;
  // The AVX-512 rows: minimum images (any number of types); the same bits as the scalar loop.
  const bool vector =
      uses_avx512(s.kernel) && !explicit_images && n < static_cast<std::size_t>(INT_MAX / 3);
  const EamRows rows{s.list.offsets().data(),
                     s.list.neighbors().data(),
                     p.x.data(),
                     p.type.data(),
                     s.box.length,
                     s.box.half_length,
                     view_,
                     pair_term_limit_sq(s.list.max_terms()),
                     n_owned,
                     s.owned_shares_only,
                     position_loads() == PositionLoads::Gather};
  // Rows [begin, end) of the scalar density pass into `into`.
  const auto density = [&](std::size_t begin, std::size_t end, std::int64_t* into, PartError& e) {
    const auto pass = [&]<bool Explicit, bool Single>() {
      density_pass<Explicit, Single>(p, s.list, view_, s.box, s.owned_shares_only, begin, end, into,
                                     e.overflow, e.bad_i, e.bad_j);
    };
    if (explicit_images)
      single ? pass.template operator()<true, true>() : pass.template operator()<true, false>();
    else
      single ? pass.template operator()<false, true>() : pass.template operator()<false, false>();
  };
  // One thread: the vector rows, or the scalar loop where they met a term beyond its range (it
  // names the pair). Threads: parts of the rows (engine/row_parts.hpp), their arrays summed;
  // should any part meet an error, or a sum wrap, the pass is run again on one thread, which
  // meets the error one thread meets first.
  const auto one_thread_density = [&] {
    std::fill(rho, rho + n, std::int64_t{0});
    PartError e;
    if (!vector || !eam_density_avx512(rows, 0, n, rho)) {
      std::fill(rho, rho + n, std::int64_t{0});
      density(0, n, rho, e);
    }
    overflow = e.overflow;
    bad_i = e.bad_i;
    bad_j = e.bad_j;
  };
  if (threads <= 1) {
    one_thread_density();
  } else {
    std::vector<char> failed(static_cast<std::size_t>(most_row_parts(threads)), 0);
    std::atomic<bool> wrapped{false};
    run_row_parts(
        s.list.offsets().data(), n, threads, rho, true, rho_parts_,
        [&](int c, std::size_t begin, std::size_t end, std::int64_t* into) {
          PartError e;
          if (vector)
            e.overflow = !eam_density_avx512(rows, begin, end, into);
          else
            density(begin, end, into, e);
          failed[static_cast<std::size_t>(c)] = e.overflow;
        },
        [&](std::int64_t& a, std::int64_t b) {
          if (__builtin_add_overflow(a, b, &a)) wrapped.store(true, std::memory_order_relaxed);
        });
    if (wrapped || std::find(failed.begin(), failed.end(), 1) != failed.end()) one_thread_density();
  }
  const bool density_overflow = overflow;
  s.halo.reverse_sum_words(p.fields.integers(k_rho), 1, n_owned, p.id, "EAM density");

  // 2. F(ρ) and F'(ρ) on the owners; F' forwarded to the ghosts.
  std::uint64_t* fp_words = p.fields.words(k_fp).data();
  fixed::Wide embedding = 0;
  long long outside = 0;
  std::size_t first_bad = n_owned;  // the first owner whose F(ρ) is out of range
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    fixed::Wide mine = 0;
    long long mine_outside = 0;
    std::size_t mine_bad = n_owned;
#pragma omp for schedule(static) nowait
    for (std::size_t i = 0; i < n_owned; ++i) {
      const double r = fixed::to_double(rho[i]);
      const EamEmbedding e = eam_embedding(view_, p.type[i], r);
      fp_words[i] = std::bit_cast<std::uint64_t>(e.fp);
      mine_outside += eam_density_outside(view_, r) ? 1 : 0;
      if (with_energy) {
        bool o = false;
        mine += fixed::to_fixed(e.energy, o);
        if (o) mine_bad = std::min(mine_bad, i);
      }
    }
#pragma omp critical(scanmd_eam_embedding)
    {
      embedding += mine;
      outside += mine_outside;
      first_bad = std::min(first_bad, mine_bad);
    }
  }
  if (first_bad < n_owned) {
    if (!overflow) bad_i = bad_j = p.id[first_bad];
    overflow = true;
  }
  s.halo.forward_words(p.fields.words(k_fp), 1, n_owned);
  // Said once per run, by rank 0, on the first thermo step (every rank computes energies on the
  // same steps: the sum is collective) that finds a particle outside the tables.
  if (with_energy && !told_outside_) {
    const long long total = s.halo.communicator().sum(outside);
    if (total > 0) {
      told_outside_ = true;
      if (s.halo.communicator().rank() == 0)
        std::fprintf(stderr,
                     "warning: EAM: %lld particle%s ha%s a density outside the tables [0, %.6g]: "
                     "clamped as LAMMPS clamps it (F' of the table's end, F continued "
                     "linearly); said once\n",
                     total, total == 1 ? "" : "s", total == 1 ? "s" : "ve", view_.rhomax);
    }
  }

  // 3. Forces: the vector rows where they cover the pass (and where they met a term beyond its
  // range, the scalar loop on one thread, which names the pair), else the scalar loop; on one
  // thread, or in parts of the rows (engine/row_parts.hpp).
  const double* fp = reinterpret_cast<const double*>(fp_words);
  const auto forces = [&](std::size_t begin, std::size_t end, Fix3* into, PartError& e) {
    const auto pass = [&]<bool Explicit, bool Single>() {
      return force_pass<Explicit, Single>(p, s.list, view_, s.box, fp, with_energy,
                                          s.owned_shares_only, begin, end, into, e.overflow,
                                          e.bad_i, e.bad_j);
    };
    if (explicit_images)
      return single ? pass.template operator()<true, true>()
                    : pass.template operator()<true, false>();
    return single ? pass.template operator()<false, true>()
                  : pass.template operator()<false, false>();
  };
  const bool vector_forces = vector && first && !with_energy;
  const auto zero_forces = [&] {
    std::fill(p.f.begin(), p.f.begin() + static_cast<std::ptrdiff_t>(n), Fix3{0, 0, 0});
  };
  ForceTotals t;
  PartError force_error;
  if (threads <= 1) {
    if (first) zero_forces();
    if (vector_forces) {
      const EamRowsTotals r = eam_forces_avx512(rows, 0, n, fp, p.f.data());
      t.pairs = r.pairs;
      force_error.overflow = r.overflow;
    } else {
      t = forces(0, n, p.f.data(), force_error);
    }
  } else {
    const auto most = static_cast<std::size_t>(most_row_parts(threads));
    std::vector<ForceTotals> part(most);
    std::vector<PartError> errors(most);
    const int parts = run_row_parts(
        s.list.offsets().data(), n, threads, p.f.data(), first, s.scratch.per_thread,
        [&](int c, std::size_t begin, std::size_t end, Fix3* into) {
          const auto u = static_cast<std::size_t>(c);
          if (vector_forces) {
            const EamRowsTotals r = eam_forces_avx512(rows, begin, end, fp, into);
            part[u].pairs = r.pairs;
            errors[u].overflow = r.overflow;
          } else {
            part[u] = forces(begin, end, into, errors[u]);
          }
        },
        add_fixed3);
    for (std::size_t u = 0; u < static_cast<std::size_t>(parts); ++u) {
      t += part[u];
      if (errors[u].overflow && !force_error.overflow) force_error = errors[u];
    }
  }
  if (vector_forces && force_error.overflow) {  // the scalar loop finds the pair and names it
    zero_forces();
    force_error = {};
    t = forces(0, n, p.f.data(), force_error);
  }
  if (force_error.overflow && !overflow) {
    bad_i = force_error.bad_i;
    bad_j = force_error.bad_j;
  }
  overflow = overflow || force_error.overflow;
  t.energy += embedding;
  if (overflow)
    throw std::overflow_error(fmt::format(
        "EAM {} of particles {} and {} left the 64-bit fixed point (|value| >= 2^62 units of "
        "2^-40): particles too close, or moving too fast for run.dt",
        density_overflow ? "density" : "force or energy", bad_i, bad_j));
  return t;
}

}  // namespace scanmd
