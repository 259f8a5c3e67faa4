// The host side of the force computes (see host_force_computes.hpp).
#include "engine/host_force_computes.hpp"

#include <stdexcept>

#include "engine/eam_forces.hpp"

namespace scanmd {

ForceTotals HostPairCompute::compute(HostForceState& s, bool with_energy, bool first) {
  return compute_pair_forces(s.particles, s.list, potential_, s.box, s.images, s.owned_shares_only,
                             with_energy, s.kernel, &s.scratch, !first);
}

std::vector<std::unique_ptr<HostForceCompute>> make_host_computes(
    const std::vector<ForceComputeInfo>& computes, const Species& species) {
  std::vector<std::unique_ptr<HostForceCompute>> out;
  for (const ForceComputeInfo& c : computes) {
    switch (c.kind) {
      case ForceKind::Pair:
        out.push_back(std::make_unique<HostPairCompute>(species.pair));
        break;
      case ForceKind::ManyBody:
        if (species.eam) {
          out.push_back(std::make_unique<HostEamCompute>(species.eam));
          break;
        }
        [[fallthrough]];
      case ForceKind::Bonded:
        throw std::logic_error("force compute '" + c.name + "': no host side");
    }
  }
  return out;
}

}  // namespace scanmd
