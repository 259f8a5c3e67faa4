// This rank's share of the decomposition, on the host: its box in the rank grid, the halo
// exchange (migration and halo plans, executed on host arrays), the particle census, and the
// cell order of the owned particles. Both backends rebuild through it — the host backend on its
// own store, the CUDA backend on the owned particles it brings back for multi-rank rebuilds — so
// the host part of a rebuild is written once:
//
//   migrate (particles to the ranks whose boxes hold them)      Phase::Migrate
//   census check (nothing lost, nothing duplicated)             Phase::Migrate
//   owned particles into cell order (locality in the force loop) Phase::Neigh
//   halo plan: export selection, ghosts appended to the store    Phase::Plan
#pragma once

#include "base/box.hpp"
#include "base/communicator.hpp"
#include "base/particles.hpp"
#include "base/timers.hpp"
#include "decomposition/census.hpp"
#include "decomposition/halo_exchange.hpp"
#include "decomposition/rank_grid.hpp"
#include "engine/cell_list.hpp"
#include "kernels/workspace.hpp"

namespace scanmd {

class Domain {
 public:
  // `bonded_shell`: R_b of neutral territory with angles (HaloExchange; 0: none).
  Domain(const Communicator& comm, const RankGrid& grid, const Box& box, Method method,
         double import_cutoff, double bonded_shell = 0.0);

  // The census every later rebuild is checked against (collective).
  void take_census(const ParticleStore& p) { census_ = Census::take(comm_, p); }
  const Census& census() const { return census_; }
  // Migrate → census check → cell order → halo plan; `p` then holds the owned particles in
  // cell order and the ghosts of the new plan. Collective. `cells`: a cell list to bin the owned
  // particles in (its arrays reused: the host backend passes the one it bins all particles in
  // next), and `scratch`: the Workspace of the halo build's records (HaloExchange::build); none:
  // temporary ones. Without `sort_owned` the owned particles keep their order (the order of the
  // particles changes no bit of the state: forces and sums are fixed point, pairs canonical).
  ImportCounts redistribute(ParticleStore& p, long long step, Timers& timers,
                            CellList* cells = nullptr, kernels::Workspace* scratch = nullptr,
                            bool sort_owned = true);

  // New cut planes (load balancing): the next redistribute() migrates to them.
  void set_grid(const RankGrid& grid) {
    grid_ = grid;
    halo_.set_grid(grid);
  }

  HaloExchange& halo() { return halo_; }
  const HaloExchange& halo() const { return halo_; }
  Int3 coord() const { return halo_.coord(); }
  Vec3 lo() const { return grid_.lo(coord()); }  // this rank's box
  Vec3 hi() const { return grid_.hi(coord()); }
  // The cell geometry of every binning of this rank (host and CUDA): the box padded by R, cells
  // of edge >= R/2.
  CellGrid cell_grid() const { return CellGrid::make(lo(), hi(), r_, r_); }
  double import_cutoff() const { return r_; }
  double bonded_shell() const { return bonded_shell_; }
  const Box& box() const { return box_; }
  const GridCuts& cuts() const { return grid_.cuts(); }

 private:
  const Communicator& comm_;
  RankGrid grid_;
  Box box_;
  double r_;
  double bonded_shell_;
  HaloExchange halo_;
  Census census_;
  kernels::Workspace ws_;
};

}  // namespace scanmd
