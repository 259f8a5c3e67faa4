// The neighbour list of one rank: CSR rows, one per local particle, built count → scan → fill.
//
// Row i lists the j with |q_i − q_j| < R (and perhaps a few just beyond: the distance test runs
// in float over a slightly wider sphere, engine/pair_candidate.hpp) for which the
// decomposition's PairRule says "this pair is computed here, with i first" — so each pair
// computed by the rank appears exactly once, under one of its two particles. Rows of particles
// that cannot head a pair (ghosts in the shell methods) are empty. Built on rebuild steps only;
// between rebuilds the pair set within the cutoff is covered as long as no particle moved more
// than skin/2.
//
// Row order: when given the interaction cutoff r_c, each row lists the neighbours inside r_c
// at build time first and the rest (within the skin) after. Between rebuilds particles move
// little, so the force loop's "r < r_c?" test then follows a predictable pattern instead of a
// random one (about a third of the entries lie beyond r_c): measured ~25% off the pair time.
// The host backend asks for it only while a pass reads rows in order (the scalar loop, the
// AVX2 rows): the AVX-512 rows pack the pairs within r_c whatever the order, and the build
// without it is a fifth faster (one compaction per vector of candidates, not two).
//
// Search: the cell list has cells of edge >= R/2 sorted x-fastest, so the cells
// (cx−2 … cx+2, cy+dy, cz+dz) are one contiguous run of the cell-sorted particle order:
// 25 contiguous scans per particle, over ~60% of the volume a 27-cell stencil of edge R
// would read (a sparse system, under one particle per such cell, has cells of edge >= R and 9
// runs of 3 cells: engine/cell_list.hpp). One pass collects each row's candidates and counts them; an exclusive scan of
// the counts gives the row offsets, and the rows are filled from the collected candidates.
// Half and full shell keep an owned pair under the particle first in the cell order, so a run
// without ghosts is scanned only after i (a run wholly before i, about half of them, is dropped
// before the scan: an empty run would still cost a vector); they scan the runs with
// engine/candidate_runs.hpp (AVX-512 where the pair kernel is), and threads collect disjoint row
// ranges: the list is the same either way.
// Neutral territory takes the same scan with its rule by classes of the candidates' homes
// (PairRule::nt_class: our box, the plate, the rest); the other methods ask PairRule::lists_pair
// per candidate.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/particles.hpp"
#include "decomposition/import_rule.hpp"
#include "engine/cell_list.hpp"
#include "engine/pair_candidate.hpp"
#include "engine/pair_kernel.hpp"
#include "kernels/workspace.hpp"

namespace scanmd {

class NeighborList {
 public:
  // inner_cutoff > 0: order each row as described above.
  void build(kernels::Workspace& ws, const ParticleStore& p, const CellList& cells,
             const PairRule& rule, double import_cutoff, double inner_cutoff = 0.0);

  const std::vector<std::uint32_t>& offsets() const { return offsets_; }
  const std::vector<std::uint32_t>& neighbors() const { return neighbors_; }
  std::size_t pair_count() const { return neighbors_.size(); }
  // The most list entries any one particle takes part in (as i or as j): bounds how many
  // fixed-point terms one force accumulator can receive.
  std::uint32_t max_terms() const { return max_terms_; }
  // The particles in the cell order of the last build (the rule's "first in the cell order"),
  // and a counter of the list's changes (builds and drop_pairs), so that a list derived from
  // this one (engine/cluster_list.hpp) knows when it is stale.
  const std::vector<std::uint32_t>& cell_order() const { return cell_order_; }
  std::uint64_t generation() const { return generation_; }

  // Drops the entries (i, j) for which drop_row(i)(j) holds, each row keeping its order (the
  // special_bonds exclusions, after a build); max_terms() stays a bound. drop_row(i) makes row
  // i's test (what it needs is fetched once per row); each entry is copied unconditionally and
  // kept by its count (no branch per entry).
  template <class DropRow>
  void drop_pairs(DropRow&& drop_row) {
    const std::size_t rows = offsets_.empty() ? 0 : offsets_.size() - 1;
    std::uint32_t w = 0;
    std::uint32_t* nb = neighbors_.data();
    for (std::size_t i = 0; i < rows; ++i) {
      const std::uint32_t begin = offsets_[i], end = offsets_[i + 1];
      offsets_[i] = w;
      const auto drop = drop_row(static_cast<std::uint32_t>(i));
      for (std::uint32_t k = begin; k < end; ++k) {
        const std::uint32_t j = nb[k];
        nb[w] = j;
        w += drop(j) ? 0u : 1u;
      }
    }
    if (rows > 0) offsets_[rows] = w;
    neighbors_.resize(w);
    ++generation_;
  }

  // Build options: the candidate scan's vector version (AVX-512 kernel: candidate_runs.hpp)
  // and threads (rows split by owned particles; each thread collects its rows, the counts are
  // scanned, each thread copies its rows to their offsets). The list is the same either way.
  void set_kernel(PairKernel kernel) { kernel_ = kernel; }
  void set_threads(int threads) { threads_ = threads; }
  // Frees the build's arrays, which stay between builds (the next build allocates them again;
  // the positions in cell order are the Workspace's, freed with it).
  void release_build_arrays();
  // The first of the three Workspace slots of the positions in cell order.
  static constexpr std::size_t kPositionSlot = kernels::Workspace::kUserSlot;

 private:
  struct RowScratch {
    std::vector<std::uint32_t> candidates, far;
    std::vector<std::uint32_t> as_j;  // threads after the first: their terms per particle as j
    std::size_t kept = 0;
  };
  template <bool GeneralRule>
  void collect(const ParticleStore& p, const CellList& cells, const PairRule& rule, float r_sq,
               float inner_sq, std::size_t row_begin, std::size_t row_end, RowScratch& s);

  PairKernel kernel_ = PairKernel::Scalar;
  int threads_ = 1;
  std::vector<std::uint32_t> counts_, offsets_, neighbors_;
  std::vector<RowScratch> scratch_;  // per thread
  std::uint32_t max_terms_ = 0;
  std::vector<std::uint32_t> cell_order_;
  std::uint64_t generation_ = 0;
  std::vector<std::uint32_t> rank_;  // particle index → position in cell order
  // Binning positions in cell order: scratch of the build's Workspace (slots kPositionSlot..+2,
  // which the halo build's records share: HaloExchange::build, over before the list build).
  std::span<float> qx_, qy_, qz_;  // as SearchPoints (engine/pair_candidate.hpp)
  std::vector<Int3> home_sorted_;
  std::vector<std::uint32_t> nt_class_;       // neutral territory: PairRule::nt_class in cell order
  std::vector<std::uint32_t> ghosts_before_;  // ghosts among cell-order positions < k
};

}  // namespace scanmd
