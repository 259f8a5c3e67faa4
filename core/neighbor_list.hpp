// The neighbour list of one rank: CSR rows, one per local particle, built count → scan → fill.
//
// Row i lists the j with |q_i − q_j| < R for which the decomposition's PairRule says
// "this pair is computed here, with i first" — so each pair computed by the rank appears
// exactly once, under one of its two particles. Rows of particles that cannot head a pair
// (ghosts in the shell methods) are empty. Built on rebuild steps only; between rebuilds
// the pair set within the cutoff is covered as long as no particle moved more than skin/2.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cell_list.hpp"
#include "core/particles.hpp"
#include "decomposition/import_rule.hpp"
#include "kernels/workspace.hpp"

namespace scanmd {

class NeighborList {
 public:
  void build(kernels::Workspace& ws, const ParticleStore& p, const CellList& cells,
             const PairRule& rule, double import_cutoff);

  const std::vector<std::uint32_t>& offsets() const { return offsets_; }
  const std::vector<std::uint32_t>& neighbors() const { return neighbors_; }
  std::size_t pair_count() const { return neighbors_.size(); }

 private:
  template <class Visit>
  void for_each_listed(const ParticleStore& p, const CellList& cells, const PairRule& rule,
                       double r_sq, std::size_t i, Visit&& visit) const;

  std::vector<std::uint32_t> counts_, offsets_, neighbors_;
};

}  // namespace scanmd
