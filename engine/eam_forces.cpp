// The host EAM compute (see eam_forces.hpp).
#include "engine/eam_forces.hpp"

#include <bit>
#include <climits>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/eam_rows.hpp"
#include "engine/fixed_terms.hpp"

namespace scanmd {

namespace {

template <bool Explicit>
Vec3 displacement(const ParticleStore& p, std::size_t i, std::size_t j, Vec3 L, Vec3 H) {
  if constexpr (Explicit) return image_displacement(p.x[i], p.x[j], p.shift[i], p.shift[j], L);
  return pair_displacement(p.x[i], p.x[j], L, H);
}

// Pass 1: the density contributions of every listed pair within the cutoff. Single: one atom
// type, whose two contributions are the same function (computed once: the same bits).
template <bool Explicit, bool Single>
void density_pass(const ParticleStore& p, const NeighborList& list, const EamView& v,
                  const Box& box, bool owned_only, std::int64_t* rho, bool& overflow,
                  std::uint64_t& bad_i, std::uint64_t& bad_j) {
  const auto* offsets = list.offsets().data();
  const auto* nbr = list.neighbors().data();
  const std::size_t n = p.size(), n_owned = p.n_owned;
  const Vec3 L = box.length, H = box.half_length;
  for (std::size_t i = 0; i < n; ++i) {
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

// Pass 3: forces, and the pair energy and virial.
template <bool Explicit, bool Single, bool WithEnergy, bool OwnedSharesOnly>
ForceTotals force_pass(ParticleStore& p, const NeighborList& list, const EamView& v, const Box& box,
                       const double* fp, bool& overflow, std::uint64_t& bad_i,
                       std::uint64_t& bad_j) {
  const auto* offsets = list.offsets().data();
  const auto* nbr = list.neighbors().data();
  const std::size_t n = p.size(), n_owned = p.n_owned;
  const Vec3 L = box.length, H = box.half_length;
  Fix3* f = p.f.data();
  const double limit_sq = pair_term_limit_sq(list.max_terms());
  ForceTotals totals;
  fixed::Wide energy = 0, virial = 0;
  for (std::size_t i = 0; i < n; ++i) {
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
ForceTotals force_pass(ParticleStore& p, const NeighborList& list, const EamView& v, const Box& box,
                       const double* fp, bool with_energy, bool owned_only, bool& overflow,
                       std::uint64_t& bad_i, std::uint64_t& bad_j) {
  if (!with_energy)
    return force_pass<Explicit, Single, false, false>(p, list, v, box, fp, overflow, bad_i, bad_j);
  return owned_only
             ? force_pass<Explicit, Single, true, true>(p, list, v, box, fp, overflow, bad_i, bad_j)
             : force_pass<Explicit, Single, true, false>(p, list, v, box, fp, overflow, bad_i,
                                                         bad_j);
}

}  // namespace

ForceTotals HostEamCompute::compute(HostForceState& s, bool with_energy, bool first) {
  ParticleStore& p = s.particles;
  const std::size_t n = p.size(), n_owned = p.n_owned;
  const auto k_rho = static_cast<std::size_t>(p.fields.find(kEamDensityField));
  const auto k_fp = static_cast<std::size_t>(p.fields.find(kEamSlopeField));
  const bool explicit_images = s.images == PairImages::Explicit;
  bool overflow = false;
  std::uint64_t bad_i = 0, bad_j = 0;

  // 1. Densities, summed into the owners.
  std::int64_t* rho = p.fields.integers(k_rho).data();
  std::fill(rho, rho + n, std::int64_t{0});
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
  auto density = [&]<bool Explicit, bool Single>() {
    density_pass<Explicit, Single>(p, s.list, view_, s.box, s.owned_shares_only, rho, overflow,
                                   bad_i, bad_j);
  };
  if (vector) {
    if (!eam_density_avx512(rows, 0, n, rho)) {  // a term beyond its range: the scalar loop
      std::fill(rho, rho + n, std::int64_t{0});
      single ? density.template operator()<false, true>()
             : density.template operator()<false, false>();
    }
  } else if (explicit_images)
    single ? density.template operator()<true, true>() : density.template operator()<true, false>();
  else
    single ? density.template operator()<false, true>()
           : density.template operator()<false, false>();
  const bool density_overflow = overflow;
  s.halo.reverse_sum_words(p.fields.integers(k_rho), 1, n_owned, p.id, "EAM density");

  // 2. F(ρ) and F'(ρ) on the owners; F' forwarded to the ghosts.
  std::uint64_t* fp_words = p.fields.words(k_fp).data();
  fixed::Wide embedding = 0;
  long long outside = 0;
  for (std::size_t i = 0; i < n_owned; ++i) {
    const double r = fixed::to_double(rho[i]);
    const EamEmbedding e = eam_embedding(view_, p.type[i], r);
    fp_words[i] = std::bit_cast<std::uint64_t>(e.fp);
    outside += eam_density_outside(view_, r) ? 1 : 0;
    if (with_energy) {
      bool o = false;
      embedding += fixed::to_fixed(e.energy, o);
      if (o && !overflow) bad_i = bad_j = p.id[i];
      overflow |= o;
    }
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

  // 3. Forces.
  if (first) std::fill(p.f.begin(), p.f.begin() + static_cast<std::ptrdiff_t>(n), Fix3{0, 0, 0});
  const double* fp = reinterpret_cast<const double*>(fp_words);
  auto forces = [&]<bool Explicit, bool Single>() {
    return force_pass<Explicit, Single>(p, s.list, view_, s.box, fp, with_energy,
                                        s.owned_shares_only, overflow, bad_i, bad_j);
  };
  ForceTotals t;
  if (vector && first && !with_energy) {
    const EamRowsTotals r = eam_forces_avx512(rows, 0, n, fp, p.f.data());
    t.pairs = r.pairs;
    if (r.overflow) {  // the scalar loop finds the pair and names it
      std::fill(p.f.begin(), p.f.begin() + static_cast<std::ptrdiff_t>(n), Fix3{0, 0, 0});
      t = single ? forces.template operator()<false, true>()
                 : forces.template operator()<false, false>();
    }
  } else
    t = explicit_images ? (single ? forces.template operator()<true, true>()
                                  : forces.template operator()<true, false>())
                        : (single ? forces.template operator()<false, true>()
                                  : forces.template operator()<false, false>());
  t.energy += embedding;
  if (overflow)
    throw std::overflow_error(fmt::format(
        "EAM {} of particles {} and {} left the 64-bit fixed point (|value| >= 2^62 units of "
        "2^-40): particles too close, or moving too fast for run.dt",
        density_overflow ? "density" : "force or energy", bad_i, bad_j));
  return t;
}

}  // namespace scanmd
