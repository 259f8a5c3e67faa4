// Species tables and lattice types (see species.hpp).
#include "engine/species.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace scanmd {

namespace {

std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// thermostat.style = "dpd/tstat" as a pair potential of style dpd/tstat: every pair of types
// listed with the thermostat's γ and r_c (0: the pair style's largest cutoff, which the
// neighbour list keeps; a longer reach would need a longer list). Problems name the
// thermostat's keys.
PairPotential make_tstat(const SimulationConfig& config, int T) {
  const ThermostatSection& t = config.thermostat;
  const double max_cutoff = SimulationConfig::max_pair_cutoff(config.potential);
  const double cutoff = t.cutoff > 0.0 ? t.cutoff : max_cutoff;
  if (!(cutoff <= max_cutoff))
    throw SpeciesError("thermostat.cutoff",
                       fmt::format("thermostat.cutoff = {} is beyond the pair style's largest "
                                   "cutoff {} (the neighbour list's reach): at most {}",
                                   cutoff, max_cutoff, max_cutoff));
  PotentialSection p;
  p.style = "dpd/tstat";
  p.cutoff = cutoff;
  p.mixing = Mixing::None;
  p.coeffs = {{"temperature", t.temperature}, {"seed", static_cast<double>(t.seed)}};
  if (T == 1) {
    p.coeffs["gamma"] = t.gamma;
  } else {
    for (int i = 1; i <= T; ++i)
      for (int j = i; j <= T; ++j) p.pairs.push_back(PairCoeffs({i, j}, {{"gamma", t.gamma}}));
  }
  p.dt = config.run.dt;
  p.boltz = config.system.constants().boltz;
  try {
    return PairPotential::make(p, T);
  } catch (const SpeciesError& e) {  // the keys are the thermostat's
    const std::string key = e.key().find("seed") != std::string::npos ? "thermostat.seed"
                            : e.key().find("temperature") != std::string::npos
                                ? "thermostat.temperature"
                                : "thermostat.gamma";
    std::string what = e.what();
    if (const auto at = what.find("potential."); at != std::string::npos)
      what.replace(at, 10, "thermostat.");
    throw SpeciesError(key, what);
  }
}

}  // namespace

Species make_species(const SimulationConfig& config) {
  const int T = config.system.type_count();
  Species s;
  s.types = T;

  if (T < 1 || T > kMaxAtomTypes)
    throw SpeciesError("system.type_fractions",
                       fmt::format("{} atom types: a run has 1..{}", T, kMaxAtomTypes));
  const std::vector<double>& mass = config.system.mass;
  if (mass.size() != 1 && mass.size() != static_cast<std::size_t>(T))
    throw SpeciesError("system.mass", fmt::format("{} masses given for {} atom type{}: give one "
                                                  "for every type, or one for all",
                                                  mass.size(), T, T == 1 ? "" : "s"));
  for (int t = 0; t < T; ++t) s.mass.push_back(config.system.mass_of(t));
  // Velocities go as m^-1/2 and kinetic terms as m·v²: a subnormal mass (below 2^-1022) has too
  // few digits for either (1e-310 overflowed v² and read as "moves too fast").
  for (const double m : s.mass)
    if (!(m >= std::numeric_limits<double>::min()))
      throw SpeciesError("system.mass",
                         fmt::format("mass {} is below the smallest normal double ({}): its "
                                     "velocities and kinetic energy cannot be computed exactly",
                                     m, std::numeric_limits<double>::min()));

  if (config.bond.style != BondStyle::None || config.angle.style != AngleStyle::None) {
    if (config.bond.style != BondStyle::None && config.bond.coeffs.empty())
      throw SpeciesError(
          "bond.style",
          fmt::format("bond.style = \"{}\" needs [[bond.coeff]] tables (type, "
                      "k, r0{})",
                      name_of<BondStyle>(kBondStyleNames, config.bond.style),
                      config.bond.style == BondStyle::Fene ? ", epsilon, sigma" : ""));
    if (config.angle.style != AngleStyle::None && config.angle.coeffs.empty())
      throw SpeciesError("angle.style",
                         "angle.style needs [[angle.coeff]] tables (type, k, "
                         "theta0)");
    if (config.angle.style != AngleStyle::None && config.bond.style == BondStyle::None)
      throw SpeciesError("angle.style",
                         "angles need a bond style too ([bond] style: the import "
                         "region covers twice the longest bond)");
    if (config.bond.style != BondStyle::None &&
        (config.special_bonds.lj[1] != 1.0 || config.special_bonds.lj[2] != 1.0))
      throw SpeciesError(
          "special_bonds.lj",
          fmt::format("special_bonds.lj = [{}, {}, {}]: 1-3 and 1-4 weights other than 1 are "
                      "not supported yet (only bond partners can be excluded): use [0.0, 1.0, "
                      "1.0] (LAMMPS special_bonds fene) or [1.0, 1.0, 1.0]",
                      config.special_bonds.lj[0], config.special_bonds.lj[1],
                      config.special_bonds.lj[2]));
    const double w12 = config.special_bonds.lj[0];
    if (w12 > 0.0 && w12 < 1.0 &&
        (eam::is_eam_style(config.potential.style) ||
         pair_style_reads_motion(config.potential.style)))
      throw SpeciesError("special_bonds.lj",
                         fmt::format("a 1-2 weight of {} scales the pair style's terms of bonded "
                                     "pairs: not with potential.style = \"{}\" yet (weights 0 "
                                     "or 1 work with every style)",
                                     w12, config.potential.style));
    s.bonded = std::make_shared<const BondedParams>(
        BondedParams::from(config.bond, config.angle, config.special_bonds));
  }

  if (eam::is_eam_style(config.potential.style)) {
    if (config.run.precision == Precision::Mixed)
      throw SpeciesError("run.precision",
                         fmt::format("run.precision = \"mixed\" supports pair styles {}; the "
                                     "many-body style \"{}\" is double only",
                                     mixed_pair_style_names(), config.potential.style));
    if (config.system.units != UnitSystem::Metal)
      throw SpeciesError("system.units",
                         fmt::format("potential.style = \"{}\" needs system.units = \"metal\" "
                                     "(its files are in eV, Å and g/mol)",
                                     config.potential.style));
    s.eam = config.potential.eam;
    if (!s.eam || s.eam->types != T) {
      try {
        s.eam = eam::load(config.potential, T);
      } catch (const eam::KeyError& e) {
        throw SpeciesError(e.key(), e.what());
      } catch (const eam::FileError& e) {
        throw SpeciesError(config.potential.style == "eam" ? "potential.files" : "potential.file",
                           e.what());
      }
    }
    if (config.thermostat.style == ThermostatStyle::DpdTstat)
      throw SpeciesError("thermostat.style",
                         fmt::format("thermostat.style = \"dpd/tstat\" runs on top of a pair "
                                     "style, not yet beside the many-body potential.style = "
                                     "\"{}\"; use \"langevin\" or \"nose-hoover\"",
                                     config.potential.style));
    return s;
  }
  if (config.minimize.style != MinimizeStyle::None &&
      (config.potential.style == "dpd" || config.thermostat.style == ThermostatStyle::DpdTstat))
    throw SpeciesError(
        "minimize.style",
        fmt::format("minimize.style = \"{}\" relaxes a potential energy, and DPD ({}) has none to "
                    "minimise: its dissipative and random pair forces depend on velocities and "
                    "noise. Minimise with a conservative pair style (e.g. \"soft\" or \"lj/cut\") "
                    "in a run of its own, then start the DPD run from its output",
                    name_of<MinimizeStyle>(kMinimizeNames, config.minimize.style),
                    config.thermostat.style == ThermostatStyle::DpdTstat
                        ? "thermostat.style = \"dpd/tstat\""
                        : "potential.style = \"dpd\""));
  PotentialSection potential = config.potential;
  potential.dt = config.run.dt;
  potential.boltz = config.system.constants().boltz;
  potential.mixed = config.run.precision == Precision::Mixed;
  s.pair = PairPotential::make(potential, T);
  if (config.thermostat.style == ThermostatStyle::DpdTstat) s.tstat = make_tstat(config, T);
  return s;
}

std::vector<std::uint64_t> type_counts(const std::vector<double>& fractions, std::uint64_t n) {
  std::vector<std::uint64_t> counts(fractions.size());
  std::vector<std::pair<double, std::size_t>> remainder;
  std::uint64_t assigned = 0;
  for (std::size_t t = 0; t < fractions.size(); ++t) {
    const double exact = fractions[t] * static_cast<double>(n);
    counts[t] = static_cast<std::uint64_t>(std::floor(exact));
    assigned += counts[t];
    remainder.emplace_back(exact - std::floor(exact), t);
  }
  std::stable_sort(remainder.begin(), remainder.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; assigned < n && k < remainder.size(); ++k, ++assigned)
    ++counts[remainder[k].second];
  // Rounding of f·n can leave more than T sites over only if the fractions do not sum to 1.
  if (assigned < n) counts.back() += n - assigned;
  return counts;
}

LatticeTypes::LatticeTypes(const std::vector<double>& fractions, std::uint64_t n,
                           std::uint64_t seed)
    : n_(n), seed_(seed) {
  std::uint64_t sum = 0;
  for (const std::uint64_t c :
       type_counts(fractions.empty() ? std::vector<double>{1.0} : fractions, n))
    upper_.push_back(sum += c);
  int bits = 1;
  while (bits < 64 && (std::uint64_t{1} << bits) < n) ++bits;
  half_bits_ = (bits + 1) / 2;
}

// A balanced Feistel network on 2·half_bits bits is a permutation of [0, 4^half_bits); cycle
// walking (re-applying it until the value falls below n) restricts it to a permutation of [0, n).
std::uint64_t LatticeTypes::permute(std::uint64_t k) const {
  const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
  do {
    std::uint64_t left = k >> half_bits_, right = k & mask;
    for (std::uint64_t round = 0; round < 4; ++round) {
      const std::uint64_t f = splitmix(seed_ ^ splitmix(round ^ (right << 8))) & mask;
      const std::uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    k = (left << half_bits_) | right;
  } while (k >= n_);
  return k;
}

std::uint32_t LatticeTypes::operator()(std::uint64_t id) const {
  const std::uint64_t slot = permute(id - 1);
  return static_cast<std::uint32_t>(std::upper_bound(upper_.begin(), upper_.end(), slot) -
                                    upper_.begin());
}

}  // namespace scanmd
