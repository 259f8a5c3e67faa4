// Derived quantities of the configuration (see config.hpp).
#include "engine/config.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/force_compute.hpp"
#include "engine/lattice.hpp"
#include "physics/manybody/eam_file.hpp"

namespace scanmd {

Vec3 initial_box_length(const SystemSection& system) {
  if (system.box) return *system.box;
  return FccLattice::from_density(system.density, system.cells).box().length;
}

std::uint64_t lattice_start_count(const SimulationConfig& c) {
  const FccLattice lattice = FccLattice::from_density(c.system.density, c.system.cells);
  if (c.region.style == RegionStyle::Box) return lattice.site_count();
  return lattice.count_in([&](Vec3 x) { return c.region.contains(x); });
}

double SimulationConfig::import_cutoff() const {
  return force_reach(force_computes(*this)) + neighbor.skin;
}

double SimulationConfig::bonded_shell() const {
  if (decomposition.method != Method::NeutralTerritory || angle.style == AngleStyle::None) return 0;
  return bond_reach(bond) + neighbor.skin;
}

double SimulationConfig::max_pair_cutoff(const PotentialSection& p) {
  if (eam::is_eam_style(p.style)) {
    if (p.eam) return p.eam->cut;
    // Not read yet (a configuration made without the deck reader): the files' cutoff, or the
    // deck's until the files are readable (make_species reports why they are not).
    try {
      const std::size_t types = p.style == "eam" ? p.files.size() : p.elements.size();
      return eam::load(p, std::max<int>(1, static_cast<int>(types)))->cut;
    } catch (const std::exception&) {
      return p.cutoff;
    }
  }
  if (p.pairs.empty()) return p.cutoff;
  double r = 0.0;
  for (const PairCoeffs& c : p.pairs) r = std::max(r, c.cutoff.value_or(p.cutoff));
  return r;
}

std::optional<int> short_box_axis(Vec3 length, double skin) {
  const double l[3] = {length.x, length.y, length.z};
  for (int axis = 0; axis < 3; ++axis)
    if (!(l[axis] > skin)) return axis;
  return std::nullopt;
}

std::string short_box_message(Vec3 length, double skin, int axis) {
  const double l[3] = {length.x, length.y, length.z};
  return fmt::format("box {:.4g} along {} is not longer than neighbor.skin = {:.4g}", l[axis],
                     "xyz"[axis], skin);
}

std::vector<std::string> thermo_columns(const std::vector<std::string>& given, bool thermostat) {
  if (!given.empty()) return given;
  std::vector<std::string> c{"step", "temp", "pe", "ke", "etotal", "press"};
  if (thermostat) c.emplace_back("econs");
  c.emplace_back("pstep/s");
  c.emplace_back("eta");
  return c;
}

bool is_timing_column(std::string_view keyword) {
  return keyword == "cpu" || keyword == "pstep/s" || keyword == "eta";
}

std::vector<std::string> thermo_table_columns(const std::vector<std::string>& columns) {
  std::vector<std::string> out;
  for (const std::string& c : columns)
    if (c != "step" && !is_timing_column(c)) out.push_back(c);
  return out;
}

}  // namespace scanmd
