#include "core/lj_force.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/fixed_terms.hpp"
#include "core/step_errors.hpp"

namespace scanmd {

namespace {

// Typed: more than one species, the pair's constants looked up by the two types; else the one
// entry, hoisted (the same bits, no type loads in the loop).
// Explicit: small boxes, the displacement from the images' shifts (core/lj.hpp).
template <bool WithEnergy, bool OwnedSharesOnly, bool Typed, bool Explicit>
ForceTotals accumulate(ParticleStore& p, const NeighborList& list, const PairTable& table,
                       const Box& box) {
  const std::size_t n = p.size();
  const std::size_t n_owned = p.n_owned;
  const auto* offsets = list.offsets().data();
  const auto* nbr = list.neighbors().data();
  const Vec3* x = p.x.data();
  const std::uint32_t* type = p.type.data();
  const Int3* shift = p.shift.data();
  Fix3* f = p.f.data();
  const Vec3 L = box.length, H = box.half_length;
  ForceTotals totals;
  fixed::Wide energy = 0, virial = 0;
  // Per-term bound, a power of two ≤ 2^63 / (max_terms + 1), in fixed-point units.
  const double limit_sq = pair_term_limit_sq(list.max_terms());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t begin = offsets[i], end = offsets[i + 1];
    if (begin == end) continue;
    const Vec3 xi = x[i];
    const Int3 si = Explicit ? shift[i] : Int3{0, 0, 0};
    const LJParams* row = Typed ? table.params + type[i] * table.types : table.params;
    std::int64_t fx = 0, fy = 0, fz = 0;
    bool overflow = false;
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint32_t j = nbr[k];
      const Vec3 d = Explicit ? image_displacement(xi, x[j], si, shift[j], L)
                              : pair_displacement(xi, x[j], L, H);
      const double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      const LJParams& lj = Typed ? row[type[j]] : *row;
      // A plain branch: measured faster than branch-free selection or a compaction pass,
      // because it skips the division for the third of the list beyond r_c.
      if (r2 >= lj.cutoff_sq) continue;
      ++totals.pairs;
      const PairFixed pf = lj_pair_fixed(d, r2, lj, limit_sq, overflow);
      const PairTerms& t = pf.terms;
      const std::int64_t Fx = pf.f.x, Fy = pf.f.y, Fz = pf.f.z;
      fx += Fx;
      fy += Fy;
      fz += Fz;
      f[j].x -= Fx;
      f[j].y -= Fy;
      f[j].z -= Fz;
      if constexpr (WithEnergy) {
        const std::int64_t e = lj_energy_fixed(t, overflow);
        const std::int64_t w = lj_virial_fixed(t, r2, overflow);
        const bool shared = OwnedSharesOnly && j >= n_owned;
        const bool i_lower =
            shared && takes_lower_share(p.id[i], p.id[j], si, Explicit ? shift[j] : Int3{0, 0, 0});
        add_pair_energy(energy, virial, e, w, shared, i_lower);
      }
      if (overflow) {
        throw std::overflow_error(pair_overflow_message(p.id[i], p.id[j], r2, lj));
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

template <bool Typed, bool Explicit>
ForceTotals dispatch(ParticleStore& p, const NeighborList& list, const PairTable& table,
                     const Box& box, bool owned_shares_only, bool with_energy) {
  if (with_energy)
    return owned_shares_only ? accumulate<true, true, Typed, Explicit>(p, list, table, box)
                             : accumulate<true, false, Typed, Explicit>(p, list, table, box);
  // Without energy, full shell's share rule does not enter.
  return accumulate<false, false, Typed, Explicit>(p, list, table, box);
}

}  // namespace

ForceTotals compute_lj_forces(ParticleStore& p, const NeighborList& list, const PairTable& table,
                              const Box& box, PairImages images, bool owned_shares_only,
                              bool with_energy) {
  std::fill(p.f.begin(), p.f.end(), Fix3{0, 0, 0});
  const bool typed = table.types > 1;
  if (images == PairImages::Explicit)
    return typed ? dispatch<true, true>(p, list, table, box, owned_shares_only, with_energy)
                 : dispatch<false, true>(p, list, table, box, owned_shares_only, with_energy);
  return typed ? dispatch<true, false>(p, list, table, box, owned_shares_only, with_energy)
               : dispatch<false, false>(p, list, table, box, owned_shares_only, with_energy);
}

}  // namespace scanmd
