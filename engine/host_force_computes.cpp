// The host side of the force computes (see host_force_computes.hpp).
#include "engine/host_force_computes.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/bonded_forces.hpp"
#include "engine/eam_forces.hpp"

namespace scanmd {

ForceTotals HostPairCompute::compute(HostForceState& s, bool with_energy, bool first) {
  const Vec3* v = nullptr;
  if (motion_) {
    // The column's words as Vec3 (the column holds the bits of x, y, z per particle).
    const ParticleFields& fields = s.particles.fields;
    const int k = fields.find(kPairVelocityField);
    if (k < 0)
      throw std::logic_error("pair style needs the field " + std::string(kPairVelocityField));
    const auto words = fields.words(static_cast<std::size_t>(k));
    v_.resize(s.particles.size());
    std::memcpy(static_cast<void*>(v_.data()), words.data(), v_.size() * sizeof(Vec3));
    v = v_.data();
  }
  return compute_pair_forces(s.particles, s.list, potential_, s.box, s.images, s.owned_shares_only,
                             with_energy, s.kernel, &s.scratch, !first, v, s.step, s.pair_computes);
}

bool HostPairCompute::reads_rows_in_order(PairKernel kernel, PairImages images) const {
  // (Full shell's energy steps take the scalar loop too: a pass in a hundred, left aside.)
  const bool vector = potential_.visit([]<class E>(const StyleTable<E>&) { return E::kVector; });
  return !(vector && uses_avx512(kernel) && images == PairImages::Minimum);
}

std::vector<std::unique_ptr<HostForceCompute>> make_host_computes(
    const std::vector<ForceComputeInfo>& computes, const Species& species) {
  std::vector<std::unique_ptr<HostForceCompute>> out;
  for (const ForceComputeInfo& c : computes) {
    switch (c.kind) {
      case ForceKind::Pair:
        out.push_back(std::make_unique<HostPairCompute>(
            c.source == PairSource::Thermostat ? *species.tstat : species.pair));
        break;
      case ForceKind::ManyBody:
        if (species.eam) {
          out.push_back(std::make_unique<HostEamCompute>(species.eam));
          break;
        }
        throw std::logic_error("force compute '" + c.name + "': no host side");
      case ForceKind::Bonded:
        if (!species.bonded) throw std::logic_error("force compute '" + c.name + "': no params");
        out.push_back(std::make_unique<HostBondedCompute>(species.bonded, &species.pair));
        break;
    }
  }
  return out;
}

}  // namespace scanmd
