// The host side of the force computes (engine/force_compute.hpp): one class per kind, made from
// the run's ForceComputeInfo list, run in order by HostBackend::compute_forces.
//
//   HostPairCompute   the pair forces of the run's pair style over the neighbour list
//                     (compute_pair_forces: the scalar loop or a vector kernel, on threads);
//                     a style that reads the pair's motion (DPD) takes the velocities from the
//                     forwarded field kPairVelocityField
#pragma once

#include <memory>
#include <vector>

#include "base/box.hpp"
#include "base/communicator.hpp"
#include "base/particles.hpp"
#include "decomposition/halo_exchange.hpp"
#include "decomposition/import_rule.hpp"
#include "engine/force_compute.hpp"
#include "engine/force_totals.hpp"
#include "engine/neighbor_list.hpp"
#include "engine/pair_forces.hpp"
#include "engine/pair_kernel.hpp"
#include "engine/species.hpp"

namespace scanmd {

// What a host compute reads and writes: the step's particles (owned, then ghosts), the
// neighbour list of the last rebuild, and the halo (a many-body compute exchanges its own fields
// between passes).
struct HostForceState {
  ParticleStore& particles;
  const NeighborList& list;
  HaloExchange& halo;
  const Box& box;
  PairImages images;
  bool owned_shares_only;  // full shell: cross-rank terms on both sides, owned shares only
  PairKernel kernel;       // resolved
  ForceScratch& scratch;   // threads
  std::uint64_t step;      // the counter of the pairs' random numbers (DPD)
  int pair_computes;       // of the list (pair_compute_count): each term's bound is shared
  double import_cutoff;    // R (messages)
};

class HostForceCompute {
 public:
  virtual ~HostForceCompute() = default;
  // This compute's forces into s.particles.f (`first`: written, zeroed first; else added), its
  // energy and virial when `with_energy`. Throws std::overflow_error naming the particles when a
  // term does not fit the fixed point.
  virtual ForceTotals compute(HostForceState& s, bool with_energy, bool first) = 0;
  // Whether s.kernel changes how it runs (a vector kernel): else the backend does not time
  // its force pass against the scalar loop.
  virtual bool uses_kernel() const { return true; }
  // Whether its passes with `kernel` over a list of `images` read each row in order, and so run
  // faster on rows ordered near-first (engine/neighbor_list.hpp): the scalar loop and the AVX2
  // rows do; the AVX-512 rows pack the pairs within the cutoff whatever their order.
  virtual bool reads_rows_in_order(PairKernel, PairImages) const { return true; }
  // Called by every rank after each rebuild's neighbour list is final (collective): a compute
  // that lists its own terms (bonded) does it here, and may drop pairs from the list (the
  // special_bonds exclusions).
  virtual void on_rebuild(HostForceState&, NeighborList&, const PairRule&, const Communicator&,
                          long long) {}
};

class HostPairCompute final : public HostForceCompute {
 public:
  explicit HostPairCompute(PairPotential potential) : potential_(std::move(potential)) {}
  ForceTotals compute(HostForceState& s, bool with_energy, bool first) override;
  bool reads_rows_in_order(PairKernel kernel, PairImages images) const override;

 private:
  PairPotential potential_;
  bool motion_ = pair_style_reads_motion(potential_.style());
  std::vector<Vec3> v_;  // the pair velocities of owned particles and ghosts (motion_)
};

// The host side of every compute of `computes`, in order. Throws std::logic_error for a kind
// the host has no side for.
std::vector<std::unique_ptr<HostForceCompute>> make_host_computes(
    const std::vector<ForceComputeInfo>& computes, const Species& species);

}  // namespace scanmd
