// The host bonded compute (see bonded_forces.hpp).
#include "engine/bonded_forces.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "base/box.hpp"
#include "engine/topology.hpp"
#include "physics/bonded/angle_cosine.hpp"
#include "physics/bonded/angle_harmonic.hpp"
#include "physics/bonded/bond_fene.hpp"
#include "physics/bonded/bond_harmonic.hpp"

namespace scanmd {

namespace {

// a lexicographically below b (x, then y, then z)?
bool lex_less(Int3 a, Int3 b) {
  return lex_sign(b - a) > 0;
}

// What a rank's sums of the listing must add up to, and what they do.
struct TermCounts {
  long long bonds = 0, angles = 0;              // terms whose energy is added here
  long long bond_shares = 0, angle_shares = 0;  // atoms' forces applied here
};

// A term's atoms, for messages and the check: its kind and ids (bond: a < b; angle: a, b the
// vertex, c), and the rank that owns its first atom (its holder).
struct TermKey {
  std::uint64_t a, b, c;
  int kind;  // 0 bond, 1 angle
  int rank;
  bool operator<(const TermKey& o) const {
    if (kind != o.kind) return kind < o.kind;
    if (a != o.a) return a < o.a;
    if (b != o.b) return b < o.b;
    return c < o.c;
  }
  bool same(const TermKey& o) const { return kind == o.kind && a == o.a && b == o.b && c == o.c; }
};

}  // namespace

void HostBondedCompute::on_rebuild(HostForceState& s, NeighborList& list, const PairRule& rule,
                                   const Communicator& comm, long long step) {
  step_ = step;
  rank_ = comm.rank();
  ranks_ = comm.size();
  list_terms(s, rule);
  check_terms(s, comm, step);
  if (params_->bond_style != BondStyle::None && params_->special_lj[0] == 0.0)
    exclude_bonded_pairs(s.particles, list);
}

void HostBondedCompute::list_terms(HostForceState& s, const PairRule& rule) {
  const ParticleStore& p = s.particles;
  const std::size_t n = p.size();
  terms_.clear();
  by_id_.resize(n);
  for (std::size_t i = 0; i < n; ++i) by_id_[i] = {p.id[i], static_cast<std::uint32_t>(i)};
  std::sort(by_id_.begin(), by_id_.end());
  const Vec3 L = s.box.length, half = s.box.half_length;
  // The copy of atom `other` at the minimum image from copy c, or −1 when it is not here.
  auto partner = [&](std::uint32_t c, std::uint64_t other) -> long long {
    auto it = std::lower_bound(by_id_.begin(), by_id_.end(),
                               std::pair<std::uint64_t, std::uint32_t>{other, 0});
    if (it == by_id_.end() || it->first != other) return -1;
    const Vec3 xc = p.x[c], xo = p.x[it->second];
    const Vec3 d = pair_displacement(xc, xo, L, half);
    const Int3 m{static_cast<int>(std::rint((xc.x - xo.x - d.x) / L.x)),
                 static_cast<int>(std::rint((xc.y - xo.y - d.y) / L.y)),
                 static_cast<int>(std::rint((xc.z - xo.z - d.z) / L.z))};
    const Int3 want = p.shift[c] + m;
    for (; it != by_id_.end() && it->first == other; ++it)
      if (p.shift[it->second] == want) return it->second;
    return -1;
  };
  auto side = [&](std::uint32_t i) {
    return PairSide{i < p.n_owned, p.home[i], p.id[i], p.id[i], p.x[i]};
  };
  const bool full = rule.method == Method::FullShell;
  const ParticleFields& f = p.fields;
  const int kb = f.find(kBondAtomField), kbt = f.find(kBondTypeField);
  const int ka = f.find(kAngleAtomField), kat = f.find(kAngleTypeField);
  const bool bonds = params_->bond_style != BondStyle::None && kb >= 0 && kbt >= 0;
  const bool angles = params_->angle_style != AngleStyle::None && ka >= 0 && kat >= 0;
  for (std::uint32_t c = 0; c < n; ++c) {
    if (bonds) {
      const auto atom = f.integers(static_cast<std::size_t>(kb));
      const auto type = f.integers(static_cast<std::size_t>(kbt));
      for (int slot = 0; slot < kBondSlots; ++slot) {
        const auto other = static_cast<std::uint64_t>(atom[c * kBondSlots + slot]);
        if (other == 0 || other < p.id[c]) continue;  // each bond from its lower id
        const long long j = partner(c, other);
        if (j < 0) continue;
        const auto u = static_cast<std::uint32_t>(j);
        const PairSide a = side(c), b = side(u);
        if (!rule.lists_pair(a, b) && !rule.lists_pair(b, a)) continue;
        Term t{{c, u, 0}, static_cast<std::uint32_t>(type[c * kBondSlots + slot]), 2, 3, true};
        if (full) {
          t.apply = static_cast<std::uint8_t>((a.owned ? 1 : 0) | (b.owned ? 2 : 0));
          t.energy = a.owned;  // the lower id's copy
        }
        terms_.push_back(t);
      }
    }
    if (angles) {
      const auto atom = f.integers(static_cast<std::size_t>(ka));
      const auto type = f.integers(static_cast<std::size_t>(kat));
      for (int slot = 0; slot < kAngleSlots; ++slot) {
        const auto e1 = static_cast<std::uint64_t>(atom[c * 2 * kAngleSlots + 2 * slot]);
        const auto e2 = static_cast<std::uint64_t>(atom[c * 2 * kAngleSlots + 2 * slot + 1]);
        if (e1 == 0) continue;
        const long long i1 = partner(c, e1), i3 = partner(c, e2);
        if (i1 < 0 || i3 < 0) continue;
        const std::uint32_t at[3] = {static_cast<std::uint32_t>(i1), c,
                                     static_cast<std::uint32_t>(i3)};
        bool here = false;
        Term t{{at[0], at[1], at[2]},
               static_cast<std::uint32_t>(type[c * kAngleSlots + slot]),
               3,
               7,
               true};
        switch (rule.method) {
          case Method::FullShell: {
            std::uint8_t mask = 0;
            std::uint32_t lowest = 0;
            for (std::uint32_t m = 0; m < 3; ++m) {
              if (at[m] < p.n_owned) mask |= static_cast<std::uint8_t>(1u << m);
              if (p.id[at[m]] < p.id[at[lowest]]) lowest = m;
            }
            here = mask != 0;
            t.apply = mask;
            t.energy = (mask >> lowest) & 1u;
            break;
          }
          case Method::HalfShell: {
            Int3 low = p.home[at[0]];
            for (int m = 1; m < 3; ++m)
              if (lex_less(p.home[at[m]], low)) low = p.home[at[m]];
            here = low == rule.coord;
            break;
          }
          case Method::EighthShell: {
            Int3 low = p.home[at[0]];
            for (int m = 1; m < 3; ++m) {
              low.x = std::min(low.x, p.home[at[m]].x);
              low.y = std::min(low.y, p.home[at[m]].y);
              low.z = std::min(low.z, p.home[at[m]].z);
            }
            here = low == rule.coord;
            break;
          }
          case Method::Midpoint:
            here = c < p.n_owned;
            break;
          case Method::NeutralTerritory:
            throw std::logic_error("angles under neutral territory: refused with the deck");
        }
        if (here) terms_.push_back(t);
      }
    }
  }
}

void HostBondedCompute::check_terms(HostForceState& s, const Communicator& comm,
                                    long long step) const {
  const ParticleStore& p = s.particles;
  const ParticleFields& f = p.fields;
  const int kb = f.find(kBondAtomField), ka = f.find(kAngleAtomField);
  const bool bonds = params_->bond_style != BondStyle::None && kb >= 0;
  const bool angles = params_->angle_style != AngleStyle::None && ka >= 0;
  // [0..3]: what the listing gives; [4..5]: the terms the owned particles hold.
  long long sums[6] = {0, 0, 0, 0, 0, 0};
  for (const Term& t : terms_) {
    const int k = t.atoms == 2 ? 0 : 1;
    sums[k] += t.energy ? 1 : 0;
    sums[2 + k] += std::popcount(static_cast<unsigned>(t.apply));
  }
  auto held = [&](auto&& each) {
    for (std::uint32_t i = 0; i < p.n_owned; ++i) {
      if (bonds) {
        const auto atom = f.integers(static_cast<std::size_t>(kb));
        for (int slot = 0; slot < kBondSlots; ++slot) {
          const auto other = static_cast<std::uint64_t>(atom[i * kBondSlots + slot]);
          if (other != 0 && other > p.id[i]) each(TermKey{p.id[i], other, 0, 0, comm.rank()});
        }
      }
      if (angles) {
        const auto atom = f.integers(static_cast<std::size_t>(ka));
        for (int slot = 0; slot < kAngleSlots; ++slot) {
          const auto e1 = static_cast<std::uint64_t>(atom[i * 2 * kAngleSlots + 2 * slot]);
          if (e1 != 0)
            each(TermKey{e1, p.id[i],
                         static_cast<std::uint64_t>(atom[i * 2 * kAngleSlots + 2 * slot + 1]), 1,
                         comm.rank()});
        }
      }
    }
  };
  held([&](const TermKey& k) { ++sums[4 + k.kind]; });
  comm.sum(std::span<long long>(sums, 6));
  if (sums[0] == sums[4] && sums[1] == sums[5] && sums[2] == 2 * sums[4] && sums[3] == 3 * sums[5])
    return;
  // Some term is computed by no rank (or twice): find one, on rank 0, from every rank's lists.
  std::vector<TermKey> mine, expected;
  for (const Term& t : terms_) {
    if (!t.energy) continue;
    if (t.atoms == 2)
      mine.push_back({p.id[t.at[0]], p.id[t.at[1]], 0, 0, comm.rank()});
    else
      mine.push_back({p.id[t.at[0]], p.id[t.at[1]], p.id[t.at[2]], 1, comm.rank()});
  }
  held([&](const TermKey& k) { expected.push_back(k); });
  std::vector<TermKey> all_mine = comm.gatherv<TermKey>(mine, 0);
  std::vector<TermKey> all_expected = comm.gatherv<TermKey>(expected, 0);
  std::string message;
  if (comm.rank() == 0) {
    std::sort(all_mine.begin(), all_mine.end());
    std::sort(all_expected.begin(), all_expected.end());
    const std::string where = fmt::format("step {}", step);
    for (const TermKey& e : all_expected) {
      const auto it = std::lower_bound(all_mine.begin(), all_mine.end(), e);
      const bool found = it != all_mine.end() && it->same(e);
      const bool twice = found && std::next(it) != all_mine.end() && std::next(it)->same(e);
      if (found && !twice) continue;
      const std::string what =
          e.kind == 0 ? fmt::format("the bond between atoms {} and {}", e.a, e.b)
                      : fmt::format("the angle {}-{}-{} (vertex {})", e.a, e.b, e.c, e.b);
      if (twice) {
        message = fmt::format("{}, rank {}: {} is computed twice (a bonded listing error)", where,
                              e.rank, what);
      } else {
        message = fmt::format(
            "{}, rank {} (the owner of atom {}): {} is computed by no rank: its atoms are not all "
            "present where the decomposition sends it: the {} is longer than the import cutoff "
            "R = {:.6g} covers (the longer of the pair cutoff and bond.max_length, twice that "
            "with angles, plus the skin)",
            where, e.rank, e.kind == 0 ? e.a : e.b, what, e.kind == 0 ? "bond" : "angle",
            s.import_cutoff);
      }
      break;
    }
    if (message.empty())
      message = fmt::format(
          "step {}: the bonded terms do not add up ({} of {} bonds, {} of {} "
          "angles)",
          step, sums[0], sums[4], sums[1], sums[5]);
  }
  raise_first_error(comm, std::move(message));
}

void HostBondedCompute::exclude_bonded_pairs(const ParticleStore& p, NeighborList& list) const {
  const int kb = p.fields.find(kBondAtomField);
  if (kb < 0) return;
  const auto atom = p.fields.integers(static_cast<std::size_t>(kb));
  list.drop_pairs([&](std::uint32_t i, std::uint32_t j) {
    const auto other = static_cast<std::int64_t>(p.id[j]);
    for (int slot = 0; slot < kBondSlots; ++slot)
      if (atom[i * kBondSlots + slot] == other) return true;
    return false;
  });
}

ForceTotals HostBondedCompute::compute(HostForceState& s, bool with_energy, bool first) {
  ParticleStore& p = s.particles;
  if (first) std::fill(p.f.begin(), p.f.end(), Fix3{0, 0, 0});
  const Vec3 L = s.box.length, half = s.box.half_length;
  ForceTotals totals;
  bool overflow = false;
  auto add = [&](std::uint32_t i, Fix3 F, bool plus) {
    Fix3& a = p.f[i];
    if (plus) {
      fixed::add_checked(a.x, F.x, overflow);
      fixed::add_checked(a.y, F.y, overflow);
      fixed::add_checked(a.z, F.z, overflow);
    } else {
      fixed::add_checked(a.x, -F.x, overflow);
      fixed::add_checked(a.y, -F.y, overflow);
      fixed::add_checked(a.z, -F.z, overflow);
    }
  };
  auto fix = [&](Vec3 v) {
    return Fix3{fixed::to_fixed(v.x, overflow), fixed::to_fixed(v.y, overflow),
                fixed::to_fixed(v.z, overflow)};
  };
  const BondedParams& prm = *params_;
  for (const Term& t : terms_) {
    bool bad = false;
    if (t.atoms == 2) {
      const std::uint32_t i = t.at[0], j = t.at[1];
      const Vec3 d = pair_displacement(p.x[i], p.x[j], L, half);
      const double rsq = d.x * d.x + d.y * d.y + d.z * d.z;
      if (!prm.has_bond_type(static_cast<int>(t.type)))
        throw std::runtime_error(fmt::format("bond {}-{}: bond type {} has no [[bond.coeff]]",
                                             p.id[i], p.id[j], t.type));
      const BondCoeff& co = prm.bond[t.type - 1];
      const BondTerms b =
          prm.bond_style == BondStyle::Fene ? BondFene::eval(rsq, co) : BondHarmonic::eval(rsq, co);
      bad = b.bad;
      const Fix3 F = fix({b.fbond * d.x, b.fbond * d.y, b.fbond * d.z});
      if (t.apply & 1u) add(i, F, true);
      if (t.apply & 2u) add(j, F, false);
      if (with_energy && t.energy) {
        const std::int64_t e = fixed::to_fixed(b.energy, overflow);
        totals.energy += e;
        totals.bond_energy += e;
        totals.virial += fixed::to_fixed(b.fbond * rsq, overflow);
      }
      if (bad)
        throw std::runtime_error(
            fmt::format("bad FENE bond between atoms {} and {}: r = {:.6g} >= 2 R0 (R0 = {:g})",
                        p.id[i], p.id[j], std::sqrt(rsq), co.r0));
    } else {
      const std::uint32_t i = t.at[0], j = t.at[1], k = t.at[2];
      const Vec3 d1 = pair_displacement(p.x[i], p.x[j], L, half);
      const Vec3 d2 = pair_displacement(p.x[k], p.x[j], L, half);
      if (!prm.has_angle_type(static_cast<int>(t.type)))
        throw std::runtime_error(
            fmt::format("angle {}-{}-{}: angle type {} has no "
                        "[[angle.coeff]]",
                        p.id[i], p.id[j], p.id[k], t.type));
      const AngleCoeff& co = prm.angle[t.type - 1];
      const AngleTerms a = prm.angle_style == AngleStyle::Harmonic ? AngleHarmonic::eval(d1, d2, co)
                                                                   : AngleCosine::eval(d1, d2, co);
      const Fix3 F1 = fix(a.f1), F3 = fix(a.f3);
      const Fix3 F2{-(F1.x + F3.x), -(F1.y + F3.y), -(F1.z + F3.z)};
      if (t.apply & 1u) add(i, F1, true);
      if (t.apply & 2u) add(j, F2, true);
      if (t.apply & 4u) add(k, F3, true);
      if (with_energy && t.energy) {
        const std::int64_t e = fixed::to_fixed(a.energy, overflow);
        totals.energy += e;
        totals.angle_energy += e;
        const double w = d1.x * a.f1.x + d1.y * a.f1.y + d1.z * a.f1.z + d2.x * a.f3.x +
                         d2.y * a.f3.y + d2.z * a.f3.z;
        totals.virial += fixed::to_fixed(w, overflow);
      }
    }
    if (overflow) {
      std::string ids = fmt::format("{} and {}", p.id[t.at[0]], p.id[t.at[1]]);
      if (t.atoms == 3)
        ids = fmt::format("{}, {} and {}", p.id[t.at[0]], p.id[t.at[1]], p.id[t.at[2]]);
      throw std::overflow_error(fmt::format(
          "the {} of atoms {} does not fit the fixed point (a force or energy beyond 2^22)",
          t.atoms == 2 ? "bond" : "angle", ids));
    }
  }
  return totals;
}

}  // namespace scanmd
