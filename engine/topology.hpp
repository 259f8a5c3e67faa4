// Bonds and angles as per-particle State fields (base/particle_fields.hpp): they migrate with
// the particle, go to checkpoints and come back at a restart on any rank count or method.
//
//   molecule    1 word: the molecule id of the data file (0: none)
//   bond_atom   kBondSlots words: the ids of the atom's bond partners (0: empty slot); each bond
//               is held by both of its atoms, so that each knows its 1-2 neighbours (the
//               special_bonds exclusions)
//   bond_type   kBondSlots words: the bond's type (1-based), beside its partner
//   angle_atom  2·kAngleSlots words: the two end atoms of each angle whose vertex is this atom
//   angle_type  kAngleSlots words: the angle's type
// The widths cover Kremer–Grest chains (2 bonds, 1 angle per bead) and common molecules (an
// sp3 carbon: 4 bonds, 6 angles); an atom with more is an error naming it and the widths.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/particle_fields.hpp"

namespace scanmd {

inline constexpr int kBondSlots = 4;   // bonds per atom
inline constexpr int kAngleSlots = 6;  // angles per vertex atom

inline constexpr std::string_view kMoleculeField = "molecule";
inline constexpr std::string_view kBondAtomField = "bond_atom";
inline constexpr std::string_view kBondTypeField = "bond_type";
inline constexpr std::string_view kAngleAtomField = "angle_atom";
inline constexpr std::string_view kAngleTypeField = "angle_type";

inline FieldSpec topology_field(std::string_view name) {
  const int width = name == kMoleculeField    ? 1
                    : name == kAngleAtomField ? 2 * kAngleSlots
                    : name == kAngleTypeField ? kAngleSlots
                                              : kBondSlots;
  return {std::string(name), FieldKind::Integer, width, FieldLife::State};
}

struct TopologyBond {
  int type;
  std::uint64_t a, b;
};
struct TopologyAngle {
  int type;
  std::uint64_t a, b, c;  // b the vertex
};

// The topology of a start from a data file: molecule ids by particle (in the order of the
// particles given to Simulation::setup), bonds and angles by atom ids.
struct Topology {
  std::vector<std::int64_t> molecule;
  std::vector<TopologyBond> bonds;
  std::vector<TopologyAngle> angles;
};

// The State words of each particle (ids[n] its id), in the order of `state` (the run's State
// fields, engine/force_compute.hpp's state_fields), as Simulation::setup takes them; fields that
// are not topology are 0. Throws std::invalid_argument naming an atom with more than
// kBondSlots bonds or kAngleSlots angles (as vertex).
std::vector<std::uint64_t> topology_state_words(std::span<const FieldSpec> state,
                                                std::span<const std::uint64_t> ids,
                                                const Topology& topology);

// The bonds and angles held by the particles (each bond once, from its lower id; each angle from
// its vertex), from their topology fields (those of `fields` that exist), for the data file the
// run writes. `ids` are the particles' ids, `n` how many (the owned ones).
void collect_topology(const ParticleFields& fields, std::span<const std::uint64_t> ids,
                      std::size_t n, std::vector<TopologyBond>& bonds,
                      std::vector<TopologyAngle>& angles, std::vector<std::int64_t>& molecule);

}  // namespace scanmd
