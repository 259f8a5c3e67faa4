// The host part of a rebuild (see domain.hpp).
#include "engine/domain.hpp"

namespace scanmd {

Domain::Domain(const Communicator& comm, const RankGrid& grid, const Box& box, Method method,
               double import_cutoff, double bonded_shell)
    : comm_(comm),
      grid_(grid),
      box_(box),
      r_(import_cutoff),
      bonded_shell_(bonded_shell),
      halo_(comm, grid, box, method, import_cutoff, bonded_shell) {}

ImportCounts Domain::redistribute(ParticleStore& p, long long step, Timers& timers, CellList* cells,
                                  kernels::Workspace* scratch, bool sort_owned) {
  {
    ScopedTimer t(timers, Phase::Migrate);
    halo_.migrate(p);
    check_census(comm_, p, census_, step);
  }
  if (sort_owned) {
    // Owned particles in cell order: neighbours sit close in memory in the force loop.
    ScopedTimer t(timers, Phase::Neigh);
    // (In the caller's cell list, whose arrays the binning of all particles reuses next, or a
    // local one: freed before the neighbour-list build, the peak of memory.)
    CellList local;
    CellList& owned_cells = cells ? *cells : local;
    owned_cells.build(ws_, p, box_, lo(), hi(), r_, r_);
    p.permute_owned(owned_cells.order());
  }
  ScopedTimer t(timers, Phase::Plan);
  return halo_.build(p, scratch);
}

}  // namespace scanmd
