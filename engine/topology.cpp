// Topology fields (see topology.hpp).
#include "engine/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace scanmd {

std::vector<std::uint64_t> topology_state_words(std::span<const FieldSpec> state,
                                                std::span<const std::uint64_t> ids,
                                                const Topology& topology) {
  std::size_t words = 0;
  int at_molecule = -1, at_bond_atom = -1, at_bond_type = -1, at_angle_atom = -1,
      at_angle_type = -1;
  for (const FieldSpec& f : state) {
    const int here = static_cast<int>(words);
    if (f.name == kMoleculeField) at_molecule = here;
    if (f.name == kBondAtomField) at_bond_atom = here;
    if (f.name == kBondTypeField) at_bond_type = here;
    if (f.name == kAngleAtomField) at_angle_atom = here;
    if (f.name == kAngleTypeField) at_angle_type = here;
    words += static_cast<std::size_t>(f.width);
  }
  std::vector<std::uint64_t> out(words * ids.size(), 0);
  if (words == 0) return out;
  std::unordered_map<std::uint64_t, std::size_t> index;
  index.reserve(ids.size());
  for (std::size_t n = 0; n < ids.size(); ++n) index.emplace(ids[n], n);
  auto row = [&](std::uint64_t id) -> std::uint64_t* {
    const auto it = index.find(id);
    if (it == index.end())
      throw std::invalid_argument(fmt::format("atom {} of the topology is not a particle", id));
    return out.data() + it->second * words;
  };
  if (at_molecule >= 0)
    for (std::size_t n = 0; n < ids.size() && n < topology.molecule.size(); ++n)
      out[n * words + static_cast<std::size_t>(at_molecule)] =
          static_cast<std::uint64_t>(topology.molecule[n]);
  if (at_bond_atom >= 0 && at_bond_type >= 0) {
    auto add = [&](std::uint64_t self, std::uint64_t other, int type) {
      std::uint64_t* r = row(self);
      for (int s = 0; s < kBondSlots; ++s) {
        std::uint64_t& slot = r[at_bond_atom + s];
        if (slot == other)
          throw std::invalid_argument(fmt::format("atoms {} and {} are bonded twice",
                                                  std::min(self, other), std::max(self, other)));
        if (slot != 0) continue;
        slot = other;
        r[at_bond_type + s] = static_cast<std::uint64_t>(type);
        return;
      }
      throw std::invalid_argument(
          fmt::format("atom {} has more than {} bonds (scanmd holds at most {} bonds per atom)",
                      self, kBondSlots, kBondSlots));
    };
    for (const TopologyBond& b : topology.bonds) {
      add(b.a, b.b, b.type);
      add(b.b, b.a, b.type);
    }
  } else if (!topology.bonds.empty()) {
    throw std::logic_error("topology_state_words: bonds but no bond fields");
  }
  if (at_angle_atom >= 0 && at_angle_type >= 0) {
    for (const TopologyAngle& a : topology.angles) {
      std::uint64_t* r = row(a.b);
      int s = 0;
      while (s < kAngleSlots && r[at_angle_atom + 2 * s] != 0) ++s;
      if (s == kAngleSlots)
        throw std::invalid_argument(fmt::format(
            "atom {} is the vertex of more than {} angles (scanmd holds at most {} per atom)", a.b,
            kAngleSlots, kAngleSlots));
      r[at_angle_atom + 2 * s] = a.a;
      r[at_angle_atom + 2 * s + 1] = a.c;
      r[at_angle_type + s] = static_cast<std::uint64_t>(a.type);
    }
  } else if (!topology.angles.empty()) {
    throw std::logic_error("topology_state_words: angles but no angle fields");
  }
  return out;
}

void collect_topology(const ParticleFields& fields, std::span<const std::uint64_t> ids,
                      std::size_t n, std::vector<TopologyBond>& bonds,
                      std::vector<TopologyAngle>& angles, std::vector<std::int64_t>& molecule) {
  const int km = fields.find(kMoleculeField);
  const int kb = fields.find(kBondAtomField), kbt = fields.find(kBondTypeField);
  const int ka = fields.find(kAngleAtomField), kat = fields.find(kAngleTypeField);
  for (std::size_t i = 0; i < n; ++i) {
    molecule.push_back(km >= 0 ? fields.integers(static_cast<std::size_t>(km))[i] : 0);
    if (kb >= 0 && kbt >= 0) {
      const auto atom = fields.integers(static_cast<std::size_t>(kb));
      const auto type = fields.integers(static_cast<std::size_t>(kbt));
      for (int s = 0; s < kBondSlots; ++s) {
        const auto other = static_cast<std::uint64_t>(atom[i * kBondSlots + s]);
        if (other != 0 && ids[i] < other)
          bonds.push_back({static_cast<int>(type[i * kBondSlots + s]), ids[i], other});
      }
    }
    if (ka >= 0 && kat >= 0) {
      const auto atom = fields.integers(static_cast<std::size_t>(ka));
      const auto type = fields.integers(static_cast<std::size_t>(kat));
      for (int s = 0; s < kAngleSlots; ++s) {
        const auto a = static_cast<std::uint64_t>(atom[i * 2 * kAngleSlots + 2 * s]);
        if (a == 0) continue;
        angles.push_back({static_cast<int>(type[i * kAngleSlots + s]), a, ids[i],
                          static_cast<std::uint64_t>(atom[i * 2 * kAngleSlots + 2 * s + 1])});
      }
    }
  }
}

}  // namespace scanmd
