// The host bonded compute (see bonded_forces.hpp).
#include "engine/bonded_forces.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/box.hpp"
#include "engine/bond_fene_avx512.hpp"
#include "engine/row_parts.hpp"
#include "engine/topology.hpp"
#include "physics/bonded/angle_cosine.hpp"
#include "physics/bonded/angle_harmonic.hpp"
#include "physics/bonded/bond_fene.hpp"
#include "physics/bonded/bond_harmonic.hpp"
#include "physics/bonded/special_pair.hpp"

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
  threads_ = std::max(1, s.scratch.threads);
  list_and_check(s.particles, s.box, rule, comm, step, s.import_cutoff);
  if (params_->bond_style != BondStyle::None && params_->special_lj[0] != 1.0)
    exclude_bonded_pairs(s.particles, list);
}

void HostBondedCompute::list_and_check(const ParticleStore& p, const Box& box, const PairRule& rule,
                                       const Communicator& comm, long long step,
                                       double import_cutoff) {
  step_ = step;
  neutral_ = rule.method == Method::NeutralTerritory;
  rank_ = comm.rank();
  ranks_ = comm.size();
  list_terms(p, box, rule);
  check_terms(p, import_cutoff, comm, step);
}

std::size_t HostBondedCompute::copies_slot(const ParticleStore& p, std::uint64_t id) const {
  const std::size_t slots = first_copy_.size();
  if (direct_) return id < slots ? static_cast<std::size_t>(id) : slots;
  const std::size_t mask = slots - 1;
  std::size_t h = static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (first_copy_[h] != kEmpty && p.id[first_copy_[h]] != id) h = (h + 1) & mask;
  return h;
}

std::uint32_t HostBondedCompute::first_copy_of(const ParticleStore& p, std::uint64_t id) const {
  const std::size_t h = copies_slot(p, id);
  return h < first_copy_.size() ? first_copy_[h] : kEmpty;
}

// Copies below which the listing runs on one thread.
constexpr std::size_t kThreadedListFrom = 1024;

void HostBondedCompute::list_terms(const ParticleStore& p, const Box& box, const PairRule& rule) {
  const std::size_t n = p.size();
  terms_.clear();
  // Copies by id: the first copy of each id, the other copies chained through next_copy_. The
  // table is indexed by the id itself when the ids here are dense enough (at most 4 slots per
  // particle: one rank or a few, scanmd's ids being 1..N), else it is an open-addressing hash
  // table (a power of two, at least twice the particles; many ranks).
  std::uint64_t max_id = 0;
  for (std::uint32_t i = 0; i < n; ++i) max_id = std::max(max_id, p.id[i]);
  // SCANMD_BONDED_ID_TABLE=hash: the hash table whatever the ids (the tests' way to run it on a
  // small system, where every rank's ids are dense).
  static const bool hash_only = [] {
    const char* e = std::getenv("SCANMD_BONDED_ID_TABLE");
    return e != nullptr && std::string_view(e) == "hash";
  }();
  direct_ = !hash_only && max_id < 4 * static_cast<std::uint64_t>(n) + 1024;
  std::size_t slots = 16;
  if (direct_)
    slots = static_cast<std::size_t>(max_id) + 1;
  else
    while (slots < 2 * n) slots <<= 1;
  first_copy_.assign(slots, kEmpty);
  next_copy_.assign(n, kEmpty);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::size_t h = copies_slot(p, p.id[i]);
    if (first_copy_[h] != kEmpty) next_copy_[i] = first_copy_[h];
    first_copy_[h] = i;
  }
  const Vec3 half = box.half_length;
  // The copy of atom `other` at the minimum image from copy c, or −1 when it is not here: the
  // image shift of minimum_image's branch (base/box.hpp), added to c's.
  auto partner = [&](std::uint32_t c, std::uint64_t other) -> long long {
    std::uint32_t k = first_copy_of(p, other);
    if (k == kEmpty) return -1;
    const Vec3 xc = p.x[c], xo = p.x[k];
    auto axis = [](double d, double hl) { return d > hl ? 1 : (d < -hl ? -1 : 0); };
    const Int3 want = p.shift[c] + Int3{axis(xc.x - xo.x, half.x), axis(xc.y - xo.y, half.y),
                                        axis(xc.z - xo.z, half.z)};
    for (; k != kEmpty; k = next_copy_[k])
      if (p.shift[k] == want) return k;
    return -1;
  };
  auto side = [&](std::uint32_t i) {
    return PairSide{i < p.n_owned, p.home[i], p.id[i], p.id[i], p.x[i]};
  };
  const bool full = rule.method == Method::FullShell;
  bool types_ok = true;
  const ParticleFields& f = p.fields;
  const int kb = f.find(kBondAtomField), kbt = f.find(kBondTypeField);
  const int ka = f.find(kAngleAtomField), kat = f.find(kAngleTypeField);
  const bool bonds = params_->bond_style != BondStyle::None && kb >= 0 && kbt >= 0;
  const bool angles = params_->angle_style != AngleStyle::None && ka >= 0 && kat >= 0;
  // With the direct table, the partners' slots are fetched 32 particles ahead and what is read
  // of them 16 ahead (the loop follows the cell order, the partners lie scattered).
  constexpr std::uint32_t kAhead = 16;
  const std::int64_t* bond_atoms =
      bonds ? f.integers(static_cast<std::size_t>(kb)).data() : nullptr;
  auto fetch_ahead = [&](std::uint32_t c) {
    if (c + 2 * kAhead < n)
      for (int slot = 0; slot < kBondSlots; ++slot) {
        const auto other =
            static_cast<std::uint64_t>(bond_atoms[(c + 2 * kAhead) * kBondSlots + slot]);
        if (other < first_copy_.size()) __builtin_prefetch(&first_copy_[other]);
      }
    if (c + kAhead < n)
      for (int slot = 0; slot < kBondSlots; ++slot) {
        const auto other = static_cast<std::uint64_t>(bond_atoms[(c + kAhead) * kBondSlots + slot]);
        if (other < slots && first_copy_[other] != kEmpty) {
          // What partner() and the rule read of it: its position, image shift, next copy, id
          // and home box.
          const std::uint32_t k = first_copy_[other];
          __builtin_prefetch(&p.x[k]);
          __builtin_prefetch(&p.shift[k]);
          __builtin_prefetch(&next_copy_[k]);
          __builtin_prefetch(&p.id[k]);
          __builtin_prefetch(&p.home[k]);
        }
      }
  };
  // The columns' views, once (each view checks its column's kind).
  std::span<const std::int64_t> bond_atom, bond_type, angle_atom, angle_type;
  if (bonds) {
    bond_atom = f.integers(static_cast<std::size_t>(kb));
    bond_type = f.integers(static_cast<std::size_t>(kbt));
  }
  if (angles) {
    angle_atom = f.integers(static_cast<std::size_t>(ka));
    angle_type = f.integers(static_cast<std::size_t>(kat));
  }
  // The terms listed from copies [begin, end), in order, appended to `out`.
  const auto list_from = [&](std::uint32_t begin, std::uint32_t end, std::vector<Term>& out,
                             bool& types_ok) {
    for (std::uint32_t c = begin; c < end; ++c) {
      if (bonds) {
        if (direct_) fetch_ahead(c);
        const auto atom = bond_atom;
        const auto type = bond_type;
        for (int slot = 0; slot < kBondSlots; ++slot) {
          const auto other = static_cast<std::uint64_t>(atom[c * kBondSlots + slot]);
          if (other == 0 || other < p.id[c]) continue;  // each bond from its lower id
          const long long j = partner(c, other);
          if (j < 0) continue;
          const auto u = static_cast<std::uint32_t>(j);
          const PairSide a = side(c), b = side(u);
          if (!rule.lists_pair(a, b) && !rule.lists_pair(b, a)) continue;
          // (Written field by field into the list: a Term built aside and copied in was
          // reloaded whole from the stack before its parts had landed, a stall per bond.)
          Term& t = out.emplace_back();
          t.at[0] = c;
          t.at[1] = u;
          t.at[2] = 0;
          t.type = static_cast<std::uint32_t>(type[c * kBondSlots + slot]);
          t.atoms = 2;
          t.apply = full ? static_cast<std::uint8_t>((a.owned ? 1 : 0) | (b.owned ? 2 : 0)) : 3;
          t.energy = full ? a.owned : true;  // full shell: the lower id's copy
          types_ok = types_ok && params_->has_bond_type(static_cast<int>(t.type));
        }
      }
      if (angles) {
        const auto atom = angle_atom;
        const auto type = angle_type;
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
            case Method::NeutralTerritory:  // the ends from the bonded shell
              here = c < p.n_owned;
              break;
          }
          if (here) out.push_back(t);
        }
      }
    }
  };
  // Threads: contiguous ranges of the copies, each listing into its own vector, appended in order
  // (the one-thread order of the terms: the first error is the same).
  const auto threads = static_cast<std::uint32_t>(n < kThreadedListFrom ? 1 : threads_);
  if (threads <= 1) {
    list_from(0, static_cast<std::uint32_t>(n), terms_, types_ok);
  } else {
    thread_terms_.resize(threads - 1);
    std::vector<char> ok(threads, 1);
#pragma omp parallel num_threads(static_cast <int>(threads))
    {
      const auto t = static_cast<std::uint32_t>(omp_get_thread_num());
      std::vector<Term>& out = t == 0 ? terms_ : thread_terms_[t - 1];
      out.clear();
      bool mine = true;
      list_from(static_cast<std::uint32_t>(n * t / threads),
                static_cast<std::uint32_t>(n * (t + 1) / threads), out, mine);
      ok[t] = mine;
    }
    for (const std::vector<Term>& more : thread_terms_)
      terms_.insert(terms_.end(), more.begin(), more.end());
    for (const char o : ok) types_ok = types_ok && o != 0;
  }
  bond_types_ok_ = types_ok;
}

void HostBondedCompute::check_terms(const ParticleStore& p, double import_cutoff,
                                    const Communicator& comm, long long step) const {
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
  const auto bond_atom =
      bonds ? f.integers(static_cast<std::size_t>(kb)) : std::span<const std::int64_t>{};
  const auto angle_atom =
      angles ? f.integers(static_cast<std::size_t>(ka)) : std::span<const std::int64_t>{};
  auto held = [&](auto&& each) {
    for (std::uint32_t i = 0; i < p.n_owned; ++i) {
      if (bonds) {
        const auto atom = bond_atom;
        for (int slot = 0; slot < kBondSlots; ++slot) {
          const auto other = static_cast<std::uint64_t>(atom[i * kBondSlots + slot]);
          if (other != 0 && other > p.id[i]) each(TermKey{p.id[i], other, 0, 0, comm.rank()});
        }
      }
      if (angles) {
        const auto atom = angle_atom;
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
      } else if (e.kind == 1 && neutral_) {
        message = fmt::format(
            "{}, rank {} (the owner of atom {}): {} is computed by no rank: its atoms are not all "
            "present where the decomposition sends it: an end lies farther from the box of its "
            "vertex, whose owner computes it under neutral-territory, than the bonded shell "
            "R_b = bond.max_length + neighbor.skin covers",
            where, e.rank, e.b, what);
      } else {
        message = fmt::format(
            "{}, rank {} (the owner of atom {}): {} is computed by no rank: its atoms are not all "
            "present where the decomposition sends it: the {} is longer than the import cutoff "
            "R = {:.6g} covers (the longer of the pair cutoff and bond.max_length, twice that "
            "with angles, plus the skin)",
            where, e.rank, e.kind == 0 ? e.a : e.b, what, e.kind == 0 ? "bond" : "angle",
            import_cutoff);
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
  // By id (every image of a partner): the j of a row lie near i, their ids in cache (measured
  // faster than gathering each row's partners' copies from the listing's table).
  // Row i's partners' ids fetched once (an empty slot holds 0, no particle's id), each j's
  // tested against all four without a branch.
  static_assert(kBondSlots == 4);
  const std::uint64_t* id = p.id.data();
  list.drop_pairs([&](std::uint32_t i) {
    const std::int64_t* a = atom.data() + std::size_t{i} * kBondSlots;
    const std::int64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    return [=](std::uint32_t j) {
      const auto other = static_cast<std::int64_t>(id[j]);
      return (a0 == other) | (a1 == other) | (a2 == other) | (a3 == other);
    };
  });
}

namespace {

// One bond or angle's fixed-point terms, added where the term's mask says (see the header).
// (A value local to the loop over the terms, which the compiler keeps in registers: the
// overflow flag is tested after every term.)
struct TermSums {
  const ParticleStore& p;
  Fix3* f;  // p.f, or a thread's array (compute)
  ForceTotals totals;
  bool overflow = false;
  void add(std::uint32_t i, const Fix3& F, bool plus) {
    Fix3& a = f[i];
    const std::int64_t s = plus ? 1 : -1;
    fixed::add_checked(a.x, s * F.x, overflow);
    fixed::add_checked(a.y, s * F.y, overflow);
    fixed::add_checked(a.z, s * F.z, overflow);
  }
};

[[noreturn]] void term_overflow(const ParticleStore& p, const HostBondedCompute::Term& t) {
  std::string ids = fmt::format("{} and {}", p.id[t.at[0]], p.id[t.at[1]]);
  if (t.atoms == 3) ids = fmt::format("{}, {} and {}", p.id[t.at[0]], p.id[t.at[1]], p.id[t.at[2]]);
  throw std::overflow_error(
      fmt::format("the {} of atoms {} does not fit the fixed point (a force or energy beyond "
                  "2^22)",
                  t.atoms == 2 ? "bond" : "angle", ids));
}

// Energy: a pass with energies (each term adds its own where t.energy says); without, the
// style skips what only the energy needs (FENE's log): the forces are the same bits.
template <class Bond, bool Energy>
[[gnu::always_inline]] inline void bond_term(TermSums& sums, const HostBondedCompute::Term& t,
                                             const BondedParams& prm, const PairPotential* special,
                                             Vec3 L, Vec3 half, bool types_checked) {
  const ParticleStore& p = sums.p;
  const std::uint32_t i = t.at[0], j = t.at[1];
  const BondGeometry g = bond_geometry(p.x[i], p.x[j], L, half);
  const double rsq = g.rsq;
  if (!types_checked && !prm.has_bond_type(static_cast<int>(t.type)))
    throw std::runtime_error(
        fmt::format("bond {}-{}: bond type {} has no [[bond.coeff]]", p.id[i], p.id[j], t.type));
  const BondCoeff& co = prm.bond[t.type - 1];
  BondTerms b = Bond::eval(rsq, co, Energy);
  double e_pair = 0.0;
  if (special) {  // w × the pair style's terms of the two atoms (special_bonds 0 < w < 1)
    const double w = prm.special_lj[0];
    special->visit([&]<class E>(const StyleTable<E>& table) {
      if constexpr (!MotionStyle<E>) {  // (refused with the deck: species.cpp)
        const SpecialShare s = special_share<E>(rsq, table.view().of(p.type[i], p.type[j]), w);
        if (s.in) {
          b.fbond += s.fpair;
          e_pair = s.energy;
        }
      }
    });
  }
  const bool energy = Energy && t.energy;
  const BondFixed r = bond_fixed(g, b, energy, sums.overflow);
  if (t.apply & 1u) sums.add(i, r.f, true);
  if (t.apply & 2u) sums.add(j, r.f, false);
  if (energy) {
    sums.totals.energy += r.energy + fixed::to_fixed(e_pair, sums.overflow);
    sums.totals.bond_energy += r.energy;
    sums.totals.virial += r.virial;
  }
  if (b.bad) [[unlikely]]
    throw std::runtime_error(
        fmt::format("bad FENE bond between atoms {} and {}: r = {:.6g} >= 2 R0 (R0 = {:g})",
                    p.id[i], p.id[j], std::sqrt(rsq), co.r0));
  if (sums.overflow) [[unlikely]]
    term_overflow(p, t);
}

template <class Angle>
[[gnu::always_inline]] inline void angle_term(TermSums& sums, const HostBondedCompute::Term& t,
                                              const BondedParams& prm, Vec3 L, Vec3 half,
                                              bool with_energy) {
  const ParticleStore& p = sums.p;
  const std::uint32_t i = t.at[0], j = t.at[1], k = t.at[2];
  if (!prm.has_angle_type(static_cast<int>(t.type)))
    throw std::runtime_error(fmt::format("angle {}-{}-{}: angle type {} has no [[angle.coeff]]",
                                         p.id[i], p.id[j], p.id[k], t.type));
  const bool energy = with_energy && t.energy;
  const AngleFixed a = angle_fixed<Angle>(p.x[i], p.x[j], p.x[k], L, half, prm.angle[t.type - 1],
                                          energy, sums.overflow);
  if (t.apply & 1u) sums.add(i, a.f1, true);
  if (t.apply & 2u) sums.add(j, a.f2, true);
  if (t.apply & 4u) sums.add(k, a.f3, true);
  if (energy) {
    sums.totals.energy += a.energy;
    sums.totals.angle_energy += a.energy;
    sums.totals.virial += a.virial;
  }
  if (sums.overflow) term_overflow(p, t);
}

// The force-only pass of FENE bonds without a special_bonds pair share, eight bonds at a time
// by the AVX-512 block (engine/bond_fene_avx512.hpp; the same bits): a block holding an angle,
// or one the vector leaves to the scalar path (a bad bond, a force beyond the fixed point), is
// computed by the scalar loop, which reports what it finds as before.
template <class Angle>
ForceTotals fene_terms_avx512(const ParticleStore& p,
                              std::span<const HostBondedCompute::Term> terms, Fix3* f,
                              const BondedParams& prm, Vec3 L, Vec3 half) {
  TermSums sums{p, f, {}};
  constexpr std::size_t kBlock = 8, kAhead = 16;
  const std::size_t count = terms.size();
  std::int64_t fx[kBlock], fy[kBlock], fz[kBlock];
  for (std::size_t k = 0; k < count; k += kBlock) {
    const std::size_t m = std::min(kBlock, count - k);
    const HostBondedCompute::Term* block = terms.data() + k;
    for (std::size_t l = 0; l < m && k + kAhead + l < count; ++l) {
      const HostBondedCompute::Term& ahead = terms[k + kAhead + l];
      __builtin_prefetch(&p.x[ahead.at[0]]);
      __builtin_prefetch(&p.x[ahead.at[1]]);
    }
    bool bonds_only = true;
    for (std::size_t l = 0; l < m; ++l) bonds_only = bonds_only && block[l].atoms == 2;
    if (!bonds_only ||
        !fene_forces_avx512(p.x.data(), block, m, prm.bond.data(), L, half, fx, fy, fz)) {
      for (std::size_t l = 0; l < m; ++l) {
        if (block[l].atoms == 2)
          bond_term<BondFene, false>(sums, block[l], prm, nullptr, L, half, true);
        else
          angle_term<Angle>(sums, block[l], prm, L, half, false);
      }
      continue;
    }
    for (std::size_t l = 0; l < m; ++l) {
      const HostBondedCompute::Term& t = block[l];
      const Fix3 F{fx[l], fy[l], fz[l]};
      if (t.apply & 1u) sums.add(t.at[0], F, true);
      if (t.apply & 2u) sums.add(t.at[1], F, false);
      if (sums.overflow) [[unlikely]]
        term_overflow(p, t);
    }
  }
  return sums.totals;
}

template <class Bond, class Angle, bool Energy>
ForceTotals all_terms(const ParticleStore& p, std::span<const HostBondedCompute::Term> terms,
                      Fix3* f, const BondedParams& prm, const PairPotential* special, Vec3 L,
                      Vec3 half, bool types_checked) {
  TermSums sums{p, f, {}};
  // The partners of the terms a few ahead fetched early: the listing follows the first atom's
  // (cell) order, the others' positions and forces lie scattered.
  constexpr std::size_t kAhead = 8;
  const std::size_t count = terms.size();
  for (std::size_t k = 0; k < count; ++k) {
    const HostBondedCompute::Term& t = terms[k];
    if (k + kAhead < count) {
      const std::uint32_t ahead = terms[k + kAhead].at[1];
      __builtin_prefetch(&p.x[ahead]);
      __builtin_prefetch(&sums.f[ahead], 1);
    }
    if (t.atoms == 2)
      bond_term<Bond, Energy>(sums, t, prm, special, L, half, types_checked);
    else
      angle_term<Angle>(sums, t, prm, L, half, Energy);
  }
  return sums.totals;
}

template <class Bond, class Angle>
ForceTotals all_terms(const ParticleStore& p, std::span<const HostBondedCompute::Term> terms,
                      Fix3* f, const BondedParams& prm, const PairPotential* special, Vec3 L,
                      Vec3 half, bool with_energy, bool types_checked, bool avx512) {
  if constexpr (std::is_same_v<Bond, BondFene>)
    if (avx512 && !with_energy && special == nullptr && types_checked)
      return fene_terms_avx512<Angle>(p, terms, f, prm, L, half);
  if (with_energy)
    return all_terms<Bond, Angle, true>(p, terms, f, prm, special, L, half, types_checked);
  return all_terms<Bond, Angle, false>(p, terms, f, prm, special, L, half, types_checked);
}

}  // namespace

// Terms below which a rank's threads do not split the bonded pass (a few microseconds of work:
// about what a parallel region costs).
constexpr std::size_t kThreadedFrom = 256;

ForceTotals HostBondedCompute::compute(HostForceState& s, bool with_energy, bool first) {
  ParticleStore& p = s.particles;
  const BondedParams& prm = *params_;
  const Vec3 L = s.box.length, half = s.box.half_length;
  const bool fene = prm.bond_style == BondStyle::Fene;
  const bool cosine = prm.angle_style == AngleStyle::Cosine;
  const double w12 = prm.special_lj[0];
  const PairPotential* special = w12 > 0.0 && w12 < 1.0 ? pair_ : nullptr;
  const bool avx512 = uses_avx512(s.kernel);  // the vector kernel chosen: the CPU has it
  // The terms [begin, end) into f.
  const auto terms = [&](std::size_t begin, std::size_t end, Fix3* f) {
    const std::span<const Term> some(terms_.data() + begin, end - begin);
    if (fene && cosine)
      return all_terms<BondFene, AngleCosine>(p, some, f, prm, special, L, half, with_energy,
                                              bond_types_ok_, avx512);
    if (fene)
      return all_terms<BondFene, AngleHarmonic>(p, some, f, prm, special, L, half, with_energy,
                                                bond_types_ok_, avx512);
    if (cosine)
      return all_terms<BondHarmonic, AngleCosine>(p, some, f, prm, special, L, half, with_energy,
                                                  bond_types_ok_, avx512);
    return all_terms<BondHarmonic, AngleHarmonic>(p, some, f, prm, special, L, half, with_energy,
                                                  bond_types_ok_, avx512);
  };
  const std::size_t n = p.f.size();
  const int threads = std::max(1, s.scratch.threads);
  if (threads == 1 || terms_.size() < kThreadedFrom) {
    if (first) std::fill(p.f.begin(), p.f.end(), Fix3{0, 0, 0});
    return terms(0, terms_.size(), p.f.data());
  }
  // Threads: the terms in parts (engine/row_parts.hpp), each thread's forces in its own array
  // (thread 0: the store's), summed. A term's own errors (a bad bond, a term beyond the fixed
  // point) are the same in any part, and the first part's is the one a single thread meets
  // first. A sum that no longer fits (each term does: it takes several terms near 2^22 on one
  // atom) is an error too, found in a part's running sum or where the arrays are summed (then
  // named by its atom), not always where one thread finds it.
  const std::vector<std::size_t> at = item_parts(terms_.size(), threads);
  std::vector<ForceTotals> part(at.size() - 1);
  std::atomic<std::size_t> wrapped{n};
  const Fix3* const f0 = p.f.data();
  run_parts(
      at, n, threads, p.f.data(), first, s.scratch.per_thread,
      [&](int c, std::size_t begin, std::size_t end, Fix3* into) {
        part[static_cast<std::size_t>(c)] = terms(begin, end, into);
      },
      [&](Fix3& a, const Fix3& b) {
        bool o = false;
        fixed::add_checked(a.x, b.x, o);
        fixed::add_checked(a.y, b.y, o);
        fixed::add_checked(a.z, b.z, o);
        if (o) wrapped.store(static_cast<std::size_t>(&a - f0), std::memory_order_relaxed);
      });
  if (const std::size_t k = wrapped.load(); k < n)
    throw std::overflow_error(fmt::format(
        "the bonded forces on atom {} do not fit the fixed point (a sum beyond 2^23)", p.id[k]));
  ForceTotals totals;
  for (const ForceTotals& t : part) totals += t;
  return totals;
}

}  // namespace scanmd
