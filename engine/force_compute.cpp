// The list of force computes (see force_compute.hpp).
#include "engine/force_compute.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "base/vec3.hpp"
#include "engine/topology.hpp"
#include "physics/manybody/eam_file.hpp"
#include "physics/pair/pair_potential.hpp"

namespace scanmd {

std::vector<std::string> ForceComputeInfo::halo_fields(FieldAccess access) const {
  std::vector<std::string> out;
  for (const FieldUse& u : fields)
    if (u.access == access && u.field != kPositionField && u.field != kForceField)
      out.push_back(u.field);
  return out;
}

namespace {

// The bonded compute of a run with a bond or angle style (appended after the pair computes).
void add_bonded(const SimulationConfig& config, std::vector<ForceComputeInfo>& out) {
  const bool bonds = config.bond.style != BondStyle::None;
  const bool angles = config.angle.style != AngleStyle::None;
  if (!bonds && !angles) return;
  ForceComputeInfo b;
  b.kind = ForceKind::Bonded;
  b.name = "bonded";
  if (bonds)
    b.name += fmt::format(" bond {}", name_of<BondStyle>(kBondStyleNames, config.bond.style));
  if (angles)
    b.name += fmt::format(" angle {}", name_of<AngleStyle>(kAngleStyleNames, config.angle.style));
  // An angle's two ends lie within twice the longest bond of each other; under neutral
  // territory the owner of its vertex computes it, with the ends from the bonded shell
  // (SimulationConfig::bonded_shell), so R covers one bond.
  const bool two_bonds = angles && config.decomposition.method != Method::NeutralTerritory;
  b.cutoff = bond_reach(config.bond) * (two_bonds ? 2.0 : 1.0);
  b.fields = {{std::string(kIdField), FieldAccess::Read},
              {std::string(kPositionField), FieldAccess::Forward},
              {std::string(kForceField), FieldAccess::ReverseSum}};
  std::vector<std::string_view> names{kMoleculeField, kBondAtomField, kBondTypeField};
  if (angles) {
    names.push_back(kAngleAtomField);
    names.push_back(kAngleTypeField);
  }
  for (const std::string_view n : names) {
    b.particle_fields.push_back(topology_field(n));
    if (n != kMoleculeField) b.fields.push_back({std::string(n), FieldAccess::RebuildForward});
  }
  out.push_back(std::move(b));
}

}  // namespace

std::vector<ForceComputeInfo> force_computes(const SimulationConfig& config) {
  std::vector<ForceComputeInfo> out = nonbonded_computes(config);
  add_bonded(config, out);
  return out;
}

std::vector<ForceComputeInfo> nonbonded_computes(const SimulationConfig& config) {
  if (eam::is_eam_style(config.potential.style)) {
    ForceComputeInfo eam;
    eam.kind = ForceKind::ManyBody;
    eam.name = "many-body " + config.potential.style;
    eam.cutoff = SimulationConfig::max_pair_cutoff(config.potential);
    eam.fields = {{std::string(kIdField), FieldAccess::Read},
                  {std::string(kTypeField), FieldAccess::Read},
                  {std::string(kPositionField), FieldAccess::Forward},
                  {std::string(kEamDensityField), FieldAccess::PassReverseSum},
                  {std::string(kEamSlopeField), FieldAccess::PassForward},
                  {std::string(kForceField), FieldAccess::ReverseSum}};
    eam.particle_fields = {
        FieldSpec{std::string(kEamDensityField), FieldKind::Integer, 1, FieldLife::Scratch},
        FieldSpec{std::string(kEamSlopeField), FieldKind::Real, 1, FieldLife::Scratch}};
    return {eam};
  }
  ForceComputeInfo pair;
  pair.kind = ForceKind::Pair;
  pair.name = "pair " + config.potential.style;
  pair.cutoff = SimulationConfig::max_pair_cutoff(config.potential);
  pair.fields = {{std::string(kIdField), FieldAccess::Read},
                 {std::string(kTypeField), FieldAccess::Read},
                 {std::string(kPositionField), FieldAccess::Forward},
                 {std::string(kForceField), FieldAccess::ReverseSum}};
  if (pair_style_reads_motion(config.potential.style)) {
    pair.fields.push_back({std::string(kPairVelocityField), FieldAccess::Forward});
    pair.particle_fields.push_back(pair_velocity_field());
  }
  if (config.thermostat.style != ThermostatStyle::DpdTstat) return {pair};
  ForceComputeInfo tstat = pair;
  tstat.source = PairSource::Thermostat;
  tstat.name = "pair dpd/tstat (thermostat)";
  tstat.cutoff = config.thermostat.cutoff > 0.0 ? config.thermostat.cutoff : pair.cutoff;
  tstat.fields.resize(4);  // id, type, x, f, and the pair velocity
  tstat.fields.push_back({std::string(kPairVelocityField), FieldAccess::Forward});
  tstat.particle_fields = {pair_velocity_field()};
  return {pair, tstat};
}

HaloRecordBytes halo_record_bytes(const std::vector<ForceComputeInfo>& computes) {
  HaloRecordBytes b{static_cast<long long>(sizeof(Vec3)), static_cast<long long>(sizeof(Fix3))};
  const std::vector<FieldSpec> specs = particle_fields(computes);
  auto bytes_of = [&](const std::string& name) {
    for (const FieldSpec& f : specs)
      if (f.name == name) return 8LL * f.width;  // int64 or double words
    return 0LL;
  };
  for (FieldAccess a : {FieldAccess::Forward, FieldAccess::PassForward})
    for (const std::string& f : halo_fields(computes, a)) b.forward += bytes_of(f);
  for (FieldAccess a : {FieldAccess::ReverseSum, FieldAccess::PassReverseSum})
    for (const std::string& f : halo_fields(computes, a)) b.reverse += bytes_of(f);
  return b;
}

int pair_compute_count(const std::vector<ForceComputeInfo>& computes) {
  int n = 0;
  for (const ForceComputeInfo& c : computes) n += c.kind == ForceKind::Pair ? 1 : 0;
  return n;
}

std::vector<FieldSpec> particle_fields(const std::vector<ForceComputeInfo>& computes) {
  ParticleFields check;  // two computes asking for one name differently: std::logic_error
  std::vector<FieldSpec> out;
  for (const ForceComputeInfo& c : computes)
    for (const FieldSpec& f : c.particle_fields) {
      if (check.find(f.name) < 0) out.push_back(f);
      check.add(f);
    }
  return out;
}

std::vector<FieldSpec> state_fields(const std::vector<ForceComputeInfo>& computes) {
  std::vector<FieldSpec> out;
  for (const FieldSpec& f : particle_fields(computes))
    if (f.life == FieldLife::State) out.push_back(f);
  return out;
}

std::vector<std::string> halo_fields(const std::vector<ForceComputeInfo>& computes,
                                     FieldAccess access) {
  std::vector<std::string> out;
  for (const ForceComputeInfo& c : computes)
    for (const std::string& f : c.halo_fields(access))
      if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  return out;
}

double force_reach(const std::vector<ForceComputeInfo>& computes) {
  double r = 0.0;
  for (const ForceComputeInfo& c : computes) r = std::max(r, c.cutoff);
  return r;
}

double list_reach(const std::vector<ForceComputeInfo>& computes) {
  double r = 0.0;
  for (const ForceComputeInfo& c : computes)
    if (c.kind != ForceKind::Bonded) r = std::max(r, c.cutoff);
  return r;
}

std::string describe(const std::vector<ForceComputeInfo>& computes) {
  std::string s;
  for (const ForceComputeInfo& c : computes)
    s += fmt::format("{}{} (reach {:g})", s.empty() ? "" : ", ", c.name, c.cutoff);
  return s;
}

}  // namespace scanmd
