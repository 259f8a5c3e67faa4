// The host side of the bonded compute (bonds and angles, physics/bonded/), and the special_bonds
// exclusions of the pair list.
//
// Which rank computes a term. At every rebuild each rank lists the terms it computes, from the
// topology fields (engine/topology.hpp) of its particles and ghosts: a term is a set of atom
// images — a bond from a copy of its lower-id atom to the minimum image of its partner, an angle
// from a copy of its vertex to the minimum images of its two ends — and a rank takes one such
// image set when all its copies are present and the decomposition's rule gives it the set:
//   bond (2 atoms)  the pair rule of the decomposition (PairRule::lists_pair), the same rule the
//                   neighbour list obeys, so every method computes each bond once
//                   (import cutoff >= longest bond + skin, as for a pair)
//   angle           full shell   every rank that owns one of its atoms, adding only the shares
//                                of its own atoms (full shell has no reverse exchange)
//                   half shell   the rank whose box is the lexicographically lowest of the three
//                                images' homes: the other two lie at lexicographically positive
//                                offsets (imported) within the angle's span of it
//                   eighth shell the rank whose box is the component-wise lowest of the homes:
//                                the three lie in its upper octant, within the span of its box
//                   midpoint     the owner of the vertex: its two ends lie within one bond of
//                                it, inside the R/2 shell when R >= 2 × longest bond
//                   neutral      the owner of the vertex too. Its import region (a tower and a
//                   territory    half plate) holds no box with all three atoms of an angle
//                                spread over three columns and three layers, so with angles it
//                                also imports the bonded shell: every image within R_b =
//                                longest bond + skin of its box outside the tower and plate
//                                (decomposition/import_rule.hpp, ImportKind::Bonded), which
//                                holds both ends; no pair rule lists those ghosts
//   The angle's span (the diagonal of its bounding box) is at most twice the longest bond, so
//   the bonded compute's reach is 2 × longest bond with angles: R covers it plus the skin
//   (neutral territory: one bond, the bonded shell the rest).
// Homes move only at rebuilds, so the listing holds until the next one. Each term is counted:
// the terms whose energy a rank adds (one rank per term), and the atoms' shares it applies,
// summed over the ranks, must equal the terms the particles hold (each bond at its lower id,
// each angle at its vertex). A term no rank computes — an atom missing where its rule sends it,
// a bond stretched beyond the import region — is an error naming its atoms, the step and the
// rank that owns its first atom, on every rank.
//
// The forces use the canonical displacement of the pair code (base/box.hpp: minimum image of
// x_a − x_b from wrapped coordinates), so every rank computing a term gets the same bits; each
// force goes to fixed point once (2^-40, truncated), the vertex of an angle takes minus the sum
// of the two ends' fixed-point forces (momentum exact), and energy and virial (r·F) are
// converted once per term on the one rank that adds them.
//
// The CUDA backend (engine/cuda/device_force_computes.hpp, DeviceBondedCompute) lists the terms
// on the device by these rules and in this order (engine/cuda/bonded.cu) and computes them with
// the evaluation of physics/bonded/bonded_terms.hpp; it runs this listing and check
// (list_and_check) on a host copy only to word an error, or at every rebuild with
// SCANMD_CUDA_BONDED_CHECK=1 to require the same terms in the same order.
//
// special_bonds: with a 1-2 weight w other than 1 the pairs of bond partners are dropped from the
// neighbour list after it is built (by id: each atom's bond_atom field, forwarded to the ghosts
// at the rebuild), as LAMMPS leaves pairs of weight 0 out of its lists; with 0 < w < 1 each bond
// term adds w times the pair style's force and energy of its two atoms (within the pair
// cutoff), as LAMMPS's factor_lj scales them: the pair energy counts in evdwl, not ebond.
#pragma once

#include <memory>
#include <vector>

#include "engine/host_force_computes.hpp"
#include "physics/bonded/bonded_params.hpp"
#include "physics/bonded/bonded_terms.hpp"
#include "physics/pair/pair_potential.hpp"

namespace scanmd {

class HostBondedCompute final : public HostForceCompute {
 public:
  // `pair`: the run's pair potential, for special_bonds weights strictly between 0 and 1 (the
  // bonded pairs' scaled pair terms are computed here; nullptr without such a weight).
  explicit HostBondedCompute(std::shared_ptr<const BondedParams> params,
                             const PairPotential* pair = nullptr)
      : params_(std::move(params)), pair_(pair) {}
  ForceTotals compute(HostForceState& s, bool with_energy, bool first) override;
  bool uses_kernel() const override { return false; }
  // Its terms are its own lists', not the pair list's rows.
  bool reads_rows_in_order(PairKernel, PairImages) const override { return false; }
  void on_rebuild(HostForceState& s, NeighborList& list, const PairRule& rule,
                  const Communicator& comm, long long step) override;

  using Term = BondedTerm;
  const std::vector<Term>& terms() const { return terms_; }

  // The listing of a rebuild without the exclusions (the CUDA compute runs it on a host copy of
  // its particles and ghosts to word an error or check its own): the terms of this rank
  // (terms()), then the global count check (collective; an error naming the term's atoms, `step`
  // and the rank).
  // `import_cutoff`: R, for the messages.
  void list_and_check(const ParticleStore& p, const Box& box, const PairRule& rule,
                      const Communicator& comm, long long step, double import_cutoff);

 private:
  void list_terms(const ParticleStore& p, const Box& box, const PairRule& rule);
  void check_terms(const ParticleStore& p, double import_cutoff, const Communicator& comm,
                   long long step) const;
  void exclude_bonded_pairs(const ParticleStore& p, NeighborList& list) const;
  // The copies of an id here (the listing's table): the slot of first_copy_ for `id` (the
  // table's size when a direct table has no such slot), and the first copy (kEmpty: none).
  std::size_t copies_slot(const ParticleStore& p, std::uint64_t id) const;
  std::uint32_t first_copy_of(const ParticleStore& p, std::uint64_t id) const;

  std::shared_ptr<const BondedParams> params_;
  const PairPotential* pair_;
  std::vector<Term> terms_;
  std::vector<std::vector<Term>> thread_terms_;  // the listing's threads after the first
  int threads_ = 1;                              // of the rank (on_rebuild): the listing's
  static constexpr std::uint32_t kEmpty = 0xffffffffu;
  std::vector<std::uint32_t> first_copy_, next_copy_;  // copies by id (list_terms)
  bool direct_ = true;                                 // first_copy_ indexed by id (else hashed)
  // Every listed bond's type has coefficients (else they are checked per term).
  bool bond_types_ok_ = false;
  long long step_ = 0;    // of the listing (messages)
  bool neutral_ = false;  // neutral territory (messages)
  int rank_ = 0, ranks_ = 1;
};

}  // namespace scanmd
