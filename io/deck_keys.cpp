// The deck's keys (see deck_keys.hpp): one row per key, in the order of the resolved deck.
#include "io/deck_keys.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>

#include "engine/config.hpp"
#include "io/deck_reader.hpp"
#include "physics/pair/pair_potential.hpp"

namespace scanmd::io {

namespace {

constexpr std::string_view kLattices[] = {"fcc"};
constexpr std::string_view kAxes[] = {"x", "y", "z"};
constexpr std::int64_t kMaxSteps = std::int64_t{1} << 53;

// The allowed values of a key read by one_of: the names of a NamedValue table or a list.
template <auto& kList>
std::vector<std::string_view> names_in() {
  std::vector<std::string_view> v;
  for (const auto& n : kList) {
    if constexpr (std::is_convertible_v<decltype(n), std::string_view>) {
      v.push_back(n);
    } else {
      v.push_back(n.name);
    }
  }
  return v;
}

std::vector<std::string_view> pair_style_choices() {
  std::vector<std::string_view> v;
  for_each_pair_style([&]<class E>() {
    v.push_back(E::kName);
    for (const std::string_view a : E::kAliases) v.push_back(a);
  });
  // The many-body styles (physics/manybody/eam_file.hpp).
  for (const std::string_view s : {"eam", "eam/alloy", "eam/fs"}) v.push_back(s);
  return v;
}

// An array of non-empty strings (at least one).
std::vector<std::string> string_list(const KeyReader& r, std::string_view expected) {
  const auto* arr = r.node().as_array();
  if (!arr || arr->empty())
    r.fail(fmt::format("expected {}, got {}", expected, arr ? "an empty array" : "something else"));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const toml::node& e = *arr->get(i);
    if (!e.is_string() || e.value<std::string>()->empty())
      r.fail_at(e, fmt::format("expected {}: entry {} is not a non-empty string", expected, i));
    out.push_back(*e.value<std::string>());
  }
  if (out.size() > static_cast<std::size_t>(kMaxAtomTypes))
    r.fail(fmt::format("{} entries: a run has at most {} atom types", out.size(), kMaxAtomTypes));
  return out;
}

std::string toml_strings(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + toml_quote(v[i]);
  return s + "]";
}

// [potential]: the one pair's coefficients (with a pair table they are not used: an error if
// given) and the style-level keys, defaults written out, in the style's order.
std::string coefficient_lines(const Deck& d) {
  const PotentialSection& p = d.potential;
  std::vector<std::string_view> names = pair_style_globals(p.style);
  if (p.pairs.empty()) {
    const std::vector<std::string_view> per_pair = pair_style_coefficients(p.style);
    names.insert(names.begin(), per_pair.begin(), per_pair.end());
  }
  CoefficientValues one = p.coeffs;
  for (const std::string_view name : names) {
    const double v = pair_coefficient_default(p.style, name);
    if (!std::isnan(v)) one.try_emplace(std::string(name), v);
  }
  std::string s;
  for (const std::string_view name : names)
    if (const auto it = one.find(name); it != one.end())
      s += fmt::format("{} = {}\n", name, toml_float(it->second));
  return s;
}

// [potential]: the style's string keys, the one pair's (with a pair table they are not used: an
// error if given) and the style-level ones, defaults written out, in the style's order.
std::string string_key_lines(const Deck& d) {
  const PotentialSection& p = d.potential;
  std::vector<std::string_view> names = pair_style_string_globals(p.style);
  if (p.pairs.empty()) {
    const std::vector<std::string_view> per_pair = pair_style_strings(p.style);
    names.insert(names.begin(), per_pair.begin(), per_pair.end());
  }
  // eam/alloy and eam/fs read potential.file (physics/manybody/eam_file.hpp).
  if (p.style == "eam/alloy" || p.style == "eam/fs") names.push_back("file");
  std::string s;
  for (const std::string_view name : names) {
    const std::string_view fallback = pair_string_default(p.style, name);
    if (const auto it = p.strings.find(name); it != p.strings.end())
      s += fmt::format("{} = {}\n", name, toml_quote(it->second));
    else if (!fallback.empty())
      s += fmt::format("{} = {}\n", name, toml_quote(fallback));
  }
  return s;
}

// [[potential.pair]] tables, as given.
std::string pair_table_lines(const Deck& d) {
  std::string s;
  for (const PairCoeffs& c : d.potential.pairs) {
    s += fmt::format("\n[[potential.pair]]\ntypes = [{}, {}]\n", c.types[0], c.types[1]);
    for (const auto& [name, value] : c.values)
      s += fmt::format("{} = {}\n", name, toml_float(value));
    for (const auto& [name, value] : c.strings)
      s += fmt::format("{} = {}\n", name, toml_quote(value));
    if (c.cutoff) s += fmt::format("cutoff = {}\n", toml_float(*c.cutoff));
  }
  return s;
}

// [[bond.coeff]] / [[angle.coeff]]: an array of tables {type = n, <numbers named in `keys`>};
// each table's numbers go to `set(row, name, value)`. A type listed twice, a missing type, or an
// unknown key is an error naming the table.
template <class Row, class Set>
std::vector<Row> read_coeff_tables(const KeyReader& r, std::string_view table,
                                   std::initializer_list<std::string_view> keys, Set&& set) {
  const auto* arr = r.node().as_array();
  std::string names;
  for (const std::string_view k : keys) names += fmt::format(", {}", k);
  if (!arr)
    r.fail(
        fmt::format("expected [[{}]] tables (type{}), got {}", table, names, describe(r.node())));
  std::vector<Row> out;
  for (std::size_t n = 0; n < arr->size(); ++n) {
    const toml::node& e = *arr->get(n);
    const auto* t = e.as_table();
    if (!t) r.fail_at(e, fmt::format("entry {}: expected a table, got {}", n, describe(e)));
    Row row;
    bool has_type = false;
    for (const auto& kv : *t) {
      const toml::key& key = kv.first;
      const toml::node& v = kv.second;
      if (key == "type") {
        const auto ty = v.value<std::int64_t>();
        if (!v.is_integer() || !ty || *ty < 1 || *ty > kMaxAtomTypes)
          r.fail_at(v, fmt::format("type: expected an integer 1..{}, got {}", kMaxAtomTypes,
                                   describe(v)));
        row.type = static_cast<int>(*ty);
        has_type = true;
        continue;
      }
      if (std::find(keys.begin(), keys.end(), key.str()) == keys.end())
        r.fail_at(v, fmt::format("unknown key '{}' in a [[{}]] table (keys: type{})", key.str(),
                                 table, names));
      const auto x = v.value<double>();
      if (!x || !(v.is_floating_point() || v.is_integer()) || !std::isfinite(*x))
        r.fail_at(v, fmt::format("{}: expected a number, got {}", key.str(), describe(v)));
      if (!set(row, key.str(), *x))
        r.fail_at(v, fmt::format("{}: out of range (got {})", key.str(), *x));
    }
    if (!has_type) r.fail_at(e, fmt::format("entry {} ({}): needs type = n", n, r.where(e)));
    for (const Row& o : out)
      if (o.type == row.type)
        r.fail_at(e, fmt::format("entry {}: type {} given twice", n, row.type));
    out.push_back(row);
  }
  return out;
}

std::string bond_coeff_lines(const Deck& d) {
  std::string s;
  for (const BondCoeffRow& c : d.bond.coeffs) {
    s += fmt::format("\n[[bond.coeff]]\ntype = {}\nk = {}\nr0 = {}\n", c.type, toml_float(c.k),
                     toml_float(c.r0));
    if (d.bond.style == BondStyle::Fene)
      s += fmt::format("epsilon = {}\nsigma = {}\n", toml_float(c.epsilon), toml_float(c.sigma));
  }
  return s;
}

std::string angle_coeff_lines(const Deck& d) {
  std::string s;
  for (const AngleCoeffRow& c : d.angle.coeffs) {
    s += fmt::format("\n[[angle.coeff]]\ntype = {}\nk = {}\n", c.type, toml_float(c.k));
    if (d.angle.style != AngleStyle::Cosine)
      s += fmt::format("theta0 = {}\n", toml_float(c.theta0));
  }
  return s;
}

// clang-format off
constexpr DeckKey kKeys[] = {
  // [system]
  {.section = "system", .key = "units", .choices = names_in<kUnitSystemNames>,
   .doc = "unit system, as LAMMPS `units`: `lj` (reduced: σ, ε, m, τ, k_B = 1), `metal` (Å, eV, "
          "ps, g/mol, K, bar) or `real` (Å, kcal/mol, fs, g/mol, K, atm), with LAMMPS's "
          "constants (boltz, mvv2e, ftm2v, nktv2p). Thermo energies are per particle in lj and "
          "totals in metal and real (LAMMPS's thermo_modify norm defaults); the trajectory's "
          "datasets carry H5MD `unit` attributes in metal and real. `density` stays a number "
          "density in every system",
   .sample = "\"metal\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.system.units = one_of<UnitSystem>(r, kUnitSystemNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<UnitSystem>(kUnitSystemNames, d.system.units)); }},
  {.section = "system", .key = "lattice", .choices = names_in<kLattices>,
   .doc = "initial lattice (fcc only), laid out as LAMMPS `lattice fcc` + `create_atoms` (same "
          "ids)",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     one_of(r, kLattices);
     d.system.lattice = "fcc"; },
   .value = [](const Deck& d) { return toml_quote(d.system.lattice); }},
  {.section = "system", .key = "density", .type = "float > 0",
   .dimension = Dimension::NumberDensity,
   .doc = "number density ρ; lattice constant a = (4/ρ)^(1/3); lattice neighbours (a/√2) must be "
          "at least 0.5σ apart (ρ ≤ 11.3); the box of each rank, padded by R, is cut into cells "
          "of edge ≥ R/2 and may have at most 2^30 of them, so a density so low that its box is "
          "far too large for its particles (1e-10) is an error naming this key",
   .sample = "0.9",
   .read = [](Deck& d, const KeyReader& r) { d.system.density = positive(r); },
   .value = [](const Deck& d) { return toml_float(d.system.density); }},
  {.section = "system", .key = "cells", .type = "[int, int, int], each ≥ 1",
   .doc = "unit cells along x, y, z; N = 4·nx·ny·nz, box = cells·a",
   .sample = "[10, 12, 14]",
   .read = [](Deck& d, const KeyReader& r) {
     d.system.cells = r.int3(1, "an array of 3 positive integers"); },
   .value = [](const Deck& d) { return toml_int3(d.system.cells); }},
  {.section = "system", .key = "temperature", .type = "float ≥ 0",
   .dimension = Dimension::Temperature,
   .doc = "initial temperature, exact with 3N−3 degrees of freedom",
   .sample = "0.7",
   .read = [](Deck& d, const KeyReader& r) { d.system.temperature = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.system.temperature); }},
  {.section = "system", .key = "seed", .type = "int ≥ 0",
   .doc = "velocities and lattice types are functions of (seed, particle id) only",
   .sample = "12345",
   .read = [](Deck& d, const KeyReader& r) {
     d.system.seed = static_cast<std::uint64_t>(non_negative_int(r)); },
   .value = [](const Deck& d) { return fmt::format("{}", d.system.seed); }},
  {.section = "system", .key = "mass", .type = "float > 0, or [float > 0, …]",
   .dimension = Dimension::Mass,
   .doc = "particle mass: one value for every type, or one per type (type 1 first; at most 1024 "
          "types); any positive normal double (≥ 2.2e-308): the initial temperature and zero "
          "momentum are exact whatever the masses",
   .sample = "2.5",
   .read = [](Deck& d, const KeyReader& r) {
     d.system.mass = numbers(r, "a mass or an array of masses (one per atom type)", true, true);
     if (d.system.mass.size() > static_cast<std::size_t>(kMaxAtomTypes))
       r.fail(fmt::format("{} masses: a run has at most {} atom types", d.system.mass.size(),
                          kMaxAtomTypes)); },
   .value = [](const Deck& d) {
     return d.system.mass.size() == 1 ? toml_float(d.system.mass[0]) : toml_floats(d.system.mass); }},
  {.section = "system", .key = "type_fractions", .type = "[float ≥ 0, …], summing to 1",
   .doc = "lattice starts with several species: the share of each type (types 1..T, T ≤ 1024, as "
          "for data files and pair tables), summing to 1. Counts are exact (⌊f·N⌋, the rest by "
          "largest remainder) and which site gets which type is a pseudo-random permutation of "
          "the ids keyed by `seed`, so no decomposition changes it. Empty: every particle is "
          "type 1",
   .only_if_set = true,
   .sample = "[0.75, 0.25]",
   .sample_needs = "potential.pair=[{types = [1, 1], epsilon = 1.0, sigma = 1.0}, "
                   "{types = [2, 2], epsilon = 0.5, sigma = 0.88}]",
   .read = [](Deck& d, const KeyReader& r) {
     const auto f = numbers(r, "an array of fractions, one per atom type", false, false);
     if (f.size() > static_cast<std::size_t>(kMaxAtomTypes))
       r.fail(fmt::format("{} fractions: a run has at most {} atom types", f.size(),
                          kMaxAtomTypes));
     double sum = 0;
     for (const double x : f) sum += x;
     if (std::abs(sum - 1.0) > 1e-9)
       r.fail(fmt::format("the fractions must sum to 1 (they sum to {:.9g})", sum));
     d.system.type_fractions = f; },
   .value = [](const Deck& d) { return toml_floats(d.system.type_fractions); }},
  {.section = "system", .key = "data_file", .type = "string, path",
   .doc = "LAMMPS `write_data` file (`atom_style atomic`, orthogonal box, any number of atom "
          "types, ids 1..N) to start from instead of the lattice: box, ids, types, positions, "
          "image flags, velocities (0 without a `Velocities` section) and masses (`Masses`; "
          "`system.mass` if absent) come from the file (a regular file, lines of at most 1 MiB, "
          "at most 1024 atom types, an atom count the file's size can hold); lattice, density, "
          "cells, temperature, seed and type_fractions are then unused; the box size and the "
          "pair table are checked against the file after reading it. Positions may lie outside "
          "the box: they are wrapped in by the full count of box lengths, which is added to the "
          "image flags; one whose image flag would then leave the 32-bit range is an error "
          "naming its line",
   .sample = "\"melt.data\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) { d.system.data_file = r.string(); },
   .value = [](const Deck& d) { return toml_quote(d.system.data_file); }},

  // [region]: printed only for a slab or a sphere, with that style's keys.
  {.section = "region", .key = "style", .choices = names_in<kRegionNames>,
   .doc = "where the lattice's sites are kept, as LAMMPS `region` + `create_atoms ... region`: "
          "`\"box\"` (all), `\"slab\"`, `\"sphere\"`; the box is still `cells·a`, so the rest "
          "stays empty (a liquid slab in its future vapour, a droplet). Ids are 1..N over the "
          "kept sites in the lattice's order (LAMMPS' one-process ids); types and velocities "
          "follow from them. Only the chosen style's keys may be given; the region must lie "
          "inside the box and hold at least one site. Not with `system.data_file`",
   .only_if_set = true,
   .sample = "\"slab\"", .sample_needs = "region.lo=1.0\nregion.hi=5.0",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.region.style = one_of<RegionStyle>(r, kRegionNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<RegionStyle>(kRegionNames, d.region.style)); }},
  {.section = "region", .key = "axis", .choices = names_in<kAxes>,
   .doc = "its normal",
   .when = {"region.style", "\"slab\""},
   .sample = "\"x\"", .sample_needs = "region.lo=1.0\nregion.hi=5.0",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.region.axis = static_cast<int>(one_of(r, kAxes)); },
   .value = [](const Deck& d) { return toml_quote(kAxes[d.region.axis]); }},
  {.section = "region", .key = "lo", .type = "float", .dimension = Dimension::Length,
   .doc = "the sites with `lo <= coordinate < hi` along the axis are kept; `0 <= lo < hi <= L`",
   .when = {"region.style", "\"slab\""},
   .default_text = "required",
   .sample = "1.0", .sample_needs = "region.hi=5.0",
   .read = [](Deck& d, const KeyReader& r) { d.region.lo = r.real(); },
   .value = [](const Deck& d) { return toml_float(d.region.lo); }},
  {.section = "region", .key = "hi", .type = "float", .dimension = Dimension::Length,
   .doc = "the upper bound of the slab (see `region.lo`)",
   .when = {"region.style", "\"slab\""},
   .default_text = "required",
   .sample = "5.0", .sample_needs = "region.lo=1.0",
   .read = [](Deck& d, const KeyReader& r) { d.region.hi = r.real(); },
   .value = [](const Deck& d) { return toml_float(d.region.hi); }},
  {.section = "region", .key = "center", .type = "[float, float, float], each ≥ 0",
   .dimension = Dimension::Length,
   .doc = "its centre",
   .when = {"region.style", "\"sphere\""},
   .default_text = "required",
   .sample = "[10.0, 11.0, 12.5]", .sample_needs = "region.radius=5.0",
   .read = [](Deck& d, const KeyReader& r) {
     const auto c = numbers(r, "an array of 3 coordinates", false, false);
     if (c.size() != 3) r.fail(fmt::format("expected an array of 3 coordinates, got {}", c.size()));
     d.region.center = {c[0], c[1], c[2]}; },
   .value = [](const Deck& d) {
     return toml_floats({d.region.center[0], d.region.center[1], d.region.center[2]}); }},
  {.section = "region", .key = "radius", .type = "float > 0", .dimension = Dimension::Length,
   .doc = "the sites closer than this to the centre are kept; the sphere must fit in the box",
   .when = {"region.style", "\"sphere\""},
   .default_text = "required",
   .sample = "5.0", .sample_needs = "region.center=[10.0, 11.0, 12.5]",
   .read = [](Deck& d, const KeyReader& r) { d.region.radius = positive(r); },
   .value = [](const Deck& d) { return toml_float(d.region.radius); }},

  // [potential]
  {.section = "potential", .key = "style", .choices = pair_style_choices,
   .doc = "the pair style, as LAMMPS `pair_style`: {styles}; or a many-body embedded-atom "
          "style, `\"eam\"` (`potential.files`), `\"eam/alloy\"` or `\"eam/fs\"` "
          "(`potential.file`, `potential.elements`), metal units only, see [EAM](eam.md). Each "
          "pair style's coefficients are keys "
          "of `[potential]` (one species) or of each `[[potential.pair]]` table; a coefficient "
          "of another style is an error naming it. See [Pair styles](#pair-styles) and "
          "[Adding a pair style](developing.md#adding-a-pair-style)",
   .sample = "\"lj/smooth/linear\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     const std::string v = r.string();
     if (v == "eam" || v == "eam/alloy" || v == "eam/fs") {
       d.potential.style = v;
       return;
     }
     const std::string_view style = canonical_pair_style(v);
     if (style.empty())
       r.fail(fmt::format("must be one of {}, \"eam\", \"eam/alloy\", \"eam/fs\" (got {})",
                          pair_style_names(), quoted_shown(v)));
     d.potential.style = std::string(style); },
   .value = [](const Deck& d) { return toml_quote(d.potential.style); }},
  // Every coefficient name of every style (physics/pair/styles.hpp) reads through this row; the
  // run's style checks which it needs (PairPotential::make).
  {.section = "potential", .key = kCoefficientKey, .type = "float",
   .doc = "the coefficients of the style, by name: see [Pair styles](#pair-styles)",
   .default_text = "the style's",
   .read = [](Deck& d, const KeyReader& r) { d.potential.coeffs[r.key()] = r.real(); },
   .lines = coefficient_lines},
  // Every string key of every style (the table style's file, keyword, table_style).
  {.section = "potential", .key = kStringKey, .type = "string",
   .doc = "the string keys of the style (a table file, its keyword), by name: see "
          "[Pair styles](#pair-styles)",
   .default_text = "the style's",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) { d.potential.strings[r.key()] = r.string(); },
   .lines = string_key_lines},
  {.section = "potential", .key = "files", .type = "[string, …], paths",
   .doc = "`potential.style = \"eam\"`: the DYNAMO funcfl file of each atom type (type 1 "
          "first), or one file for every type, as LAMMPS `pair_coeff i i file`; several files "
          "are put on one grid and mixed as LAMMPS mixes them. A relative path is looked up next "
          "to the deck, then in `$LAMMPS_POTENTIALS`, then in Debian's "
          "/usr/share/lammps/potentials. The cutoff is the largest of the files' (potential.cutoff "
          "is not used); the masses are the files' unless `system.mass` is given. See "
          "[EAM](eam.md)",
   .only_if_set = true,
   .sample = "[\"Cu_u3.eam\"]",
   .sample_needs = "potential.style=\"eam\"\nsystem.units=\"metal\"",
   .read = [](Deck& d, const KeyReader& r) {
     d.potential.files = string_list(r, "an array of EAM file paths, one per atom type"); },
   .value = [](const Deck& d) { return toml_strings(d.potential.files); }},
  {.section = "potential", .key = "elements", .type = "[string, …]",
   .doc = "`potential.style = \"eam/alloy\"` or `\"eam/fs\"`: the element of each atom type "
          "(type 1 first) among those of `potential.file` (a setfl or Finnis–Sinclair file), as "
          "the element list of LAMMPS `pair_coeff * * file el_1 .. el_T`; one per type. See "
          "[EAM](eam.md)",
   .only_if_set = true,
   .sample = "[\"Ni\"]",
   .sample_needs = "potential.style=\"eam/alloy\"\npotential.file=\"CuNi.eam.alloy\"\n"
                   "system.units=\"metal\"",
   .read = [](Deck& d, const KeyReader& r) {
     d.potential.elements = string_list(r, "an array of element names, one per atom type"); },
   .value = [](const Deck& d) { return toml_strings(d.potential.elements); }},
  {.section = "potential", .key = "cutoff", .type = "float > 0", .dimension = Dimension::Length,
   .doc = "r_c; with a pair table, the cutoff of listed pairs that give none",
   .sample = "3.0",
   .read = [](Deck& d, const KeyReader& r) { d.potential.cutoff = positive(r); },
   .value = [](const Deck& d) { return toml_float(d.potential.cutoff); }},
  {.section = "potential", .key = "shift", .type = "bool",
   .doc = "shift U so that U(r_c) = 0, per pair (LAMMPS `pair_modify shift yes`); for "
          "{styles:shift} (the others ignore it)",
   .sample = "true",
   .read = [](Deck& d, const KeyReader& r) { d.potential.shift = r.boolean(); },
   .value = [](const Deck& d) { return toml_bool(d.potential.shift); }},
  {.section = "potential", .key = "tail", .type = "bool",
   .doc = "long-range corrections to energy and pressure for the truncated (unshifted) "
          "potential, per pair of types (LAMMPS `pair_modify tail yes`): E += Σ_ij N_iN_j e_ij/V, "
          "P += Σ_ij N_iN_j p_ij/V², e_ij and p_ij the style's (those of `lj` are in "
          "[Pair styles](#pair-styles)); for {styles:tail} (the others ignore it)",
   .sample = "true",
   .read = [](Deck& d, const KeyReader& r) { d.potential.tail = r.boolean(); },
   .value = [](const Deck& d) { return toml_bool(d.potential.tail); }},
  {.section = "potential", .key = "mixing", .choices = names_in<kMixingNames>,
   .doc = "coefficients of unlisted unlike pairs i-j from the like pairs, as LAMMPS "
          "`pair_modify mix`: ε = √(ε_iε_j); σ and r_c geometric √(a_ia_j) or arithmetic "
          "(a_i+a_j)/2 (each style says how its own coefficients mix); `none`: every pair must "
          "be listed (a missing one is an error naming it). Styles that mix: {styles:mixing}; "
          "with the others every pair is listed",
   .sample = "\"arithmetic\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.potential.mixing = one_of<Mixing>(r, kMixingNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<Mixing>(kMixingNames, d.potential.mixing)); }},
  {.section = "potential", .key = "pair",
   .type = "tables `[[potential.pair]]`: `types = [i, j]`, the style's per-pair coefficients "
           "and string keys, `cutoff` (optional, > 0)",
   .doc = "the coefficients of one pair of types, as LAMMPS `pair_coeff i j ... r_c` (the "
          "per-pair coefficients of each style: [Pair styles](#pair-styles)); needed when there "
          "is more than one type, every like pair i-i listed. A pair listed twice, or a type the "
          "system does not have, is an error naming the table. The import cutoff R is the "
          "largest pair cutoff + skin",
   .default_text = "none",
   .sample = "[{types = [1, 1], epsilon = 0.5, sigma = 0.88, cutoff = 2.0}]",
   .read = read_pairs,
   .lines = pair_table_lines},


  // [bond]
  {.section = "bond", .key = "style", .choices = names_in<kBondStyleNames>,
   .doc = "the bond style, as LAMMPS `bond_style`: `fene` (FENE attraction plus the WCA "
          "repulsion of the bonded pair, Kremer–Grest; coefficients `k`, `r0`, `epsilon`, "
          "`sigma`) or `harmonic` (U = K (r − r0)²; `k`, `r0`). The bonds come from the data "
          "file (`atom_style bond`, `angle` or `molecular`: `Bonds` section); a data file with "
          "bonds needs a style, and every bond type needs a `[[bond.coeff]]`. Each bond is "
          "computed by exactly one rank under every decomposition method: the import cutoff R "
          "covers the longest bond (`max_length`) plus the skin; the pair neighbour list stays "
          "on the pair cutoff + skin",
   .sample = "\"harmonic\"",
   .sample_needs = "bond.coeff=[{type = 1, k = 100.0, r0 = 1.0}]\n"
                   "special_bonds.lj=[0.0, 1.0, 1.0]",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.bond.style = one_of<BondStyle>(r, kBondStyleNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<BondStyle>(kBondStyleNames, d.bond.style)); }},
  {.section = "bond", .key = "max_length", .type = "float ≥ 0", .dimension = Dimension::Length,
   .doc = "the longest a bond may grow; the import cutoff R is at least this plus the skin "
          "(twice it with angles: an angle's two ends; under `neutral-territory` once, and its "
          "bonded shell this plus the skin). 0: fene's largest `r0` (its bound), "
          "harmonic's largest `r0` × 1.5. A bond found longer than the import region allows is "
          "an error naming its atoms, the step and the rank",
   .sample = "2.0",
   .read = [](Deck& d, const KeyReader& r) { d.bond.max_length = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.bond.max_length); }},
  {.section = "bond", .key = "coeff",
   .type = "tables `[[bond.coeff]]`: `type = n` and the style's coefficients (float ≥ 0; "
           "`r0` > 0)",
   .doc = "the coefficients of one bond type, as LAMMPS `bond_coeff`: fene `k` (ε/σ²), `r0` "
          "(σ), `epsilon`, `sigma`; harmonic `k` (energy/length², no ½ as LAMMPS), `r0`. Each "
          "table gives exactly its style's coefficients; a type listed twice, a coefficient "
          "missing or one the style does not take is an error naming the table",
   .default_text = "none",
   .sample = "[{type = 1, k = 30.0, r0 = 1.5, epsilon = 1.0, sigma = 1.0}]",
   .sample_needs = "bond.style=\"fene\"\nspecial_bonds.lj=[0.0, 1.0, 1.0]",
   .read = [](Deck& d, const KeyReader& r) {
     d.bond.coeffs = read_coeff_tables<BondCoeffRow>(
         r, "bond.coeff", {"k", "r0", "epsilon", "sigma"},
         [](BondCoeffRow& c, std::string_view name, double v) {
           if (v < 0.0 || (name == "r0" && !(v > 0.0))) return false;
           (name == "k" ? c.k : name == "r0" ? c.r0 : name == "epsilon" ? c.epsilon : c.sigma) = v;
           return true;
         }); },
   .lines = bond_coeff_lines},
  // [angle]
  {.section = "angle", .key = "style", .choices = names_in<kAngleStyleNames>,
   .doc = "the angle style, as LAMMPS `angle_style`: `harmonic` (U = K (θ − θ0)², θ0 in "
          "degrees) or `cosine` (U = K (1 + cos θ)). The angles come from the data file's "
          "`Angles` section (`atom_style angle` or `molecular`); each is computed by one rank "
          "(full shell: every rank owning one of its atoms, its own atoms' shares; "
          "`neutral-territory`: the owner of its vertex, which also imports the atoms within "
          "`bond.max_length` + skin of its box that its tower and plate lack)",
   .sample = "\"cosine\"",
   .sample_needs = "angle.coeff=[{type = 1, k = 2.0}]\nbond.style=\"harmonic\"\n"
                   "bond.coeff=[{type = 1, k = 100.0, r0 = 1.0}]\nspecial_bonds.lj=[0.0, 1.0, 1.0]",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.angle.style = one_of<AngleStyle>(r, kAngleStyleNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<AngleStyle>(kAngleStyleNames, d.angle.style)); }},
  {.section = "angle", .key = "coeff",
   .type = "tables `[[angle.coeff]]`: `type = n`, `k` (float ≥ 0), `theta0` (degrees, 0 .. 180)",
   .doc = "the coefficients of one angle type, as LAMMPS `angle_coeff`: harmonic `k` "
          "(energy/rad², no ½), `theta0` (degrees); cosine `k`. Each table gives exactly its "
          "style's coefficients; a type listed twice, a coefficient missing or one the style "
          "does not take is an error naming the table",
   .default_text = "none",
   .sample = "[{type = 1, k = 25.0, theta0 = 109.5}]",
   .sample_needs = "angle.style=\"harmonic\"\nbond.style=\"harmonic\"\n"
                   "bond.coeff=[{type = 1, k = 100.0, r0 = 1.0}]\nspecial_bonds.lj=[0.0, 1.0, 1.0]",
   .read = [](Deck& d, const KeyReader& r) {
     d.angle.coeffs = read_coeff_tables<AngleCoeffRow>(
         r, "angle.coeff", {"k", "theta0"},
         [](AngleCoeffRow& c, std::string_view name, double v) {
           if (name == "k") {
             if (v < 0.0) return false;
             c.k = v;
           } else {
             if (v < 0.0 || v > 180.0) return false;
             c.theta0 = v;
           }
           return true;
         }); },
   .lines = angle_coeff_lines},

  // [special_bonds]
  {.section = "special_bonds", .key = "lj", .type = "[float, float, float], each 0 .. 1",
   .doc = "the weight of the pair force between 1-2, 1-3 and 1-4 neighbours along the bonds, "
          "as LAMMPS `special_bonds lj` (`fene`: [0, 1, 1]); a 1-2 weight other than 1 drops "
          "the pair from the neighbour list while it is built (by id, from the topology), and "
          "one between 0 and 1 adds that fraction of the pair style's force and energy to each "
          "bond (LAMMPS's factor_lj; not with eam or dpd). The default is LAMMPS's, but a run "
          "with bonds supports only 1-3 and 1-4 weights of 1 yet (e.g. `[0, 1, 1]`, "
          "`[0.5, 1, 1]`): other weights are an error naming this key",
   .sample = "[0.0, 1.0, 1.0]",
   .read = [](Deck& d, const KeyReader& r) {
     const std::vector<double> w = numbers(r, "3 weights [w12, w13, w14]", false, false);
     if (w.size() != 3)
       r.fail(fmt::format("expected 3 weights [w12, w13, w14], got {}", w.size()));
     for (int n = 0; n < 3; ++n)
       if (!(w[n] >= 0.0 && w[n] <= 1.0))
         r.fail(fmt::format("weight {} (1-{}) = {}: weights are 0 .. 1", n + 1, n + 2, w[n]));
     d.special_bonds.lj = {w[0], w[1], w[2]}; },
   .value = [](const Deck& d) {
     return toml_floats({d.special_bonds.lj[0], d.special_bonds.lj[1], d.special_bonds.lj[2]}); }},

  // [neighbor]
  {.section = "neighbor", .key = "skin", .type = "float ≥ 0", .dimension = Dimension::Length,
   .doc = "neighbour-list skin; import cutoff R = r_c + skin; lists are rebuilt when any "
          "particle moved more than skin/2",
   .sample = "0.5",
   .read = [](Deck& d, const KeyReader& r) { d.neighbor.skin = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.neighbor.skin); }},

  // [run]
  {.section = "run", .key = "dt", .type = "float > 0", .dimension = Dimension::Time,
   .doc = "time step (velocity Verlet; NVE unless a thermostat is set); at most the pair "
          "style's time unit of every pair (`lj`: τ = σ√(m/ε), m the lighter mass), and "
          "`run.steps · run.dt` finite",
   .sample = "0.002",
   .read = [](Deck& d, const KeyReader& r) { d.run.dt = positive(r); },
   .value = [](const Deck& d) { return toml_float(d.run.dt); }},
  {.section = "run", .key = "steps", .type = "int, 0 .. 2^53", .dimension = Dimension::Steps,
   .doc = "steps to run (the time of step n is n·dt, a double: exact to 2^53)",
   .sample = "7",
   .read = [](Deck& d, const KeyReader& r) {
     const std::int64_t n = non_negative_int(r);
     // The time of step n is n·dt in double precision: beyond 2^53 consecutive steps share one
     // time, and no run gets near it (2^53 steps at a million steps per second: 285 years).
     if (n > kMaxSteps)
       r.fail(fmt::format("must be at most 2^53 = {} (got {}): the time of step n, n·run.dt, "
                          "is a double, exact only up to 2^53 steps; no run reaches that many "
                          "(at a million steps per second: 285 years)", kMaxSteps, n));
     d.run.steps = n; },
   .value = [](const Deck& d) { return fmt::format("{}", d.run.steps); }},
  {.section = "run", .key = "backend", .choices = names_in<kBackendNames>,
   .doc = "where the time step runs: `cuda` keeps the particles on the GPU between steps (see "
          "[GPU](gpu.md)) and fails with a clear message (exit 1) when no GPU is "
          "usable; `auto` takes the GPU when one is usable, else the host, and the log says "
          "which and why. Both give the same bits (`state hash`)",
   .sample = "\"host\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) { d.run.backend = one_of<Backend>(r, kBackendNames); },
   .value = [](const Deck& d) { return toml_quote(backend_name(d.run.backend)); }},
  {.section = "run", .key = "precision", .choices = names_in<kPrecisionNames>,
   .doc = "the pair math: `double`, or `mixed`: each pair's r² (formed in double, as the cutoff "
          "test does) rounded once to float and the pair style's terms in float32 (16 pairs per "
          "AVX-512 vector), the forces still summed in 64-bit fixed point and integrated in "
          "double, so a mixed run has its own `state hash`, the same on any rank count, method, "
          "thread count, host kernel and backend. Pair styles `lj` (WCA too) and `morse`; other "
          "pair styles and EAM are refused; bonds, angles and `dpd/tstat` stay double (see "
          "[Performance](performance.md#mixed-precision))",
   .sample = "\"mixed\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.run.precision = one_of<Precision>(r, kPrecisionNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<Precision>(kPrecisionNames, d.run.precision)); }},

  // [decomposition]
  {.section = "decomposition", .key = "method", .choices = names_in<kMethodNames>,
   .doc = "which rank computes each pair, and so which particles each rank imports: see "
          "[Decompositions](design.md#decompositions-and-their-import-volumes); all give the same `state hash` on any "
          "rank count",
   .sample = "\"neutral-territory\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.decomposition.method = one_of<Method>(r, kMethodNames); },
   .value = [](const Deck& d) { return toml_quote(method_name(d.decomposition.method)); }},
  {.section = "decomposition", .key = "grid", .type = "[int, int, int], each ≥ 0",
   .doc = "rank grid px×py×pz; 0 = chosen to minimise the method's analytic import volume "
          "(non-zero entries are kept)",
   .sample = "[2, 3, 4]",
   .read = [](Deck& d, const KeyReader& r) {
     // 0 entries are chosen, non-zero ones kept ([2, 0, 0]: two boxes along x, the rest chosen).
     d.decomposition.grid = r.int3(0, "an array of 3 non-negative integers"); },
   .value = [](const Deck& d) { return toml_int3(d.decomposition.grid); }},
  {.section = "decomposition", .key = "balance", .choices = names_in<kBalanceNames>,
   .doc = "load balancing, as LAMMPS `balance shift` / `fix balance shift`: `\"none\"`, or "
          "the grid's cut planes move, per axis, so that every slab of boxes carries the same "
          "share of a cost: `\"particles\"` (1 per particle), `\"pairs\"` (the neighbour-list "
          "pairs) or `\"time\"` (each rank's force and list time since the last balance step). "
          "With `grid = [0, 0, 0]` a balanced run takes the least-import grid the start can "
          "balance. Every method stays exact: a balanced run has the same state hash. Each "
          "balance step is logged and stored in the H5MD run record; how it works: "
          "[Balance the load](howto.md#balance-the-load)",
   .sample = "\"pairs\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.decomposition.balance = one_of<Balance>(r, kBalanceNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<Balance>(kBalanceNames, d.decomposition.balance)); }},
  {.section = "decomposition", .key = "balance_every", .type = "int ≥ 0",
   .dimension = Dimension::Steps,
   .doc = "a balance step every N steps (a rebuild when the planes move); 0: only at setup (and "
          "at a restart, since checkpoints do not store the planes)",
   .sample = "500",
   .read = [](Deck& d, const KeyReader& r) {
     d.decomposition.balance_every = non_negative_int(r); },
   .value = [](const Deck& d) { return fmt::format("{}", d.decomposition.balance_every); }},
  {.section = "decomposition", .key = "balance_tolerance", .type = "float ≥ 1",
   .doc = "move the planes only when the cost's max/mean over ranks exceeds this",
   .sample = "1.2",
   .read = [](Deck& d, const KeyReader& r) {
     const double t = r.real();
     if (!(t >= 1.0)) r.fail(fmt::format("must be >= 1 (a max/mean ratio; got {})", t));
     d.decomposition.balance_tolerance = t; },
   .value = [](const Deck& d) { return toml_float(d.decomposition.balance_tolerance); }},

  // [thermostat]
  {.section = "thermostat", .key = "style", .choices = names_in<kThermostatNames>,
   .doc = "`langevin`: F = −(m/τ)v + √(24mT/(τ dt))(u−½) per axis, as LAMMPS `fix langevin T T "
          "τ seed`, with u from Random123's Philox4x64 keyed by (seed, id, step) — the same bits "
          "whatever the rank count, decomposition, backend or restart; the force acts in both "
          "half kicks with the velocity each starts from. `nose-hoover`: a Nosé–Hoover chain "
          "integrated as LAMMPS `fix nvt temp T T τ tchain M`, its state kept in the "
          "checkpoint. Either way the thermo table gains `econs` = etotal + the thermostat's "
          "coupling energy per particle (LAMMPS `ecouple`). `dpd/tstat`: the dissipative and "
          "random pair forces of DPD (LAMMPS `pair_style dpd/tstat T T rc seed`, `pair_coeff * * "
          "gamma`) on top of the pair style, with `gamma`, `cutoff`, `temperature` and `seed`: "
          "pairwise and momentum-conserving, its noise keyed by (seed, step, the pair's ids); no "
          "`econs` (see docs/dpd.md)",
   .sample = "\"langevin\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.thermostat.style = one_of<ThermostatStyle>(r, kThermostatNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<ThermostatStyle>(kThermostatNames, d.thermostat.style)); }},
  {.section = "thermostat", .key = "temperature", .type = "float ≥ 0",
   .dimension = Dimension::Temperature,
   .doc = "target temperature; > 0 for `nose-hoover`; √(3T/m)·`run.dt` below half the smallest "
          "σ",
   .sample = "0.7",
   .read = [](Deck& d, const KeyReader& r) { d.thermostat.temperature = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.thermostat.temperature); }},
  {.section = "thermostat", .key = "damping", .type = "float > 0", .dimension = Dimension::Time,
   .doc = "relaxation time τ (LAMMPS `damp` / `Tdamp`); at least 5 × `run.dt` for "
          "`nose-hoover`",
   .sample = "0.25",
   .read = [](Deck& d, const KeyReader& r) { d.thermostat.damping = positive(r); },
   .value = [](const Deck& d) { return toml_float(d.thermostat.damping); }},
  {.section = "thermostat", .key = "seed", .type = "int ≥ 0",
   .doc = "Langevin and dpd/tstat random numbers (dpd/tstat: below 2^53)",
   .sample = "99",
   .read = [](Deck& d, const KeyReader& r) {
     d.thermostat.seed = static_cast<std::uint64_t>(non_negative_int(r)); },
   .value = [](const Deck& d) { return fmt::format("{}", d.thermostat.seed); }},
  {.section = "thermostat", .key = "chain", .type = "int, 1 .. 32",
   .doc = "Nosé–Hoover chain length",
   .sample = "5",
   .read = [](Deck& d, const KeyReader& r) {
     const std::int64_t c = r.integer();
     if (c < 1 || c > 32) r.fail(fmt::format("must be 1..32 (got {})", c));
     d.thermostat.chain = static_cast<int>(c); },
   .value = [](const Deck& d) { return fmt::format("{}", d.thermostat.chain); }},
  {.section = "thermostat", .key = "gamma", .type = "float ≥ 0", .dimension = Dimension::Friction,
   .doc = "dpd/tstat: the friction γ of every pair of types (σ² = 2 γ k_B T)",
   .sample = "4.5",
   .read = [](Deck& d, const KeyReader& r) { d.thermostat.gamma = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.thermostat.gamma); }},
  {.section = "thermostat", .key = "cutoff", .type = "float ≥ 0", .dimension = Dimension::Length,
   .doc = "dpd/tstat: the reach r_c of its forces (w = 1 − r/r_c); at most the pair style's "
          "largest cutoff; 0: that cutoff",
   .sample = "1.0",
   .read = [](Deck& d, const KeyReader& r) { d.thermostat.cutoff = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.thermostat.cutoff); }},

  // [velocity]
  {.section = "velocity", .key = "create", .type = "bool",
   .doc = "draw velocities for any start, as LAMMPS `velocity all create T seed loop geom` (`mom "
          "yes rot no dist uniform`): each component uniform from (seed, particle id) only, so "
          "the rank count and decomposition do not change them; total momentum zero, scaled to "
          "`velocity.temperature` exactly (3N−3 degrees of freedom). Replaces a data file's "
          "`Velocities` (or its zero velocities) and, on a lattice, the velocities of "
          "`system.temperature` / `system.seed`; a `--restart` keeps the checkpoint's",
   .sample = "true",
   .read = [](Deck& d, const KeyReader& r) { d.velocity.create = r.boolean(); },
   .value = [](const Deck& d) { return toml_bool(d.velocity.create); }},
  {.section = "velocity", .key = "temperature", .type = "float ≥ 0",
   .dimension = Dimension::Temperature,
   .doc = "the temperature the drawn velocities are scaled to (LAMMPS `velocity create T`); "
          "used with `velocity.create = true`",
   .sample = "1.5",
   .read = [](Deck& d, const KeyReader& r) { d.velocity.temperature = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.velocity.temperature); }},
  {.section = "velocity", .key = "seed", .type = "int ≥ 0",
   .doc = "the random seed of the drawn velocities (LAMMPS `velocity create T seed`); used "
          "with `velocity.create = true`",
   .sample = "87287",
   .read = [](Deck& d, const KeyReader& r) {
     d.velocity.seed = static_cast<std::uint64_t>(non_negative_int(r)); },
   .value = [](const Deck& d) { return fmt::format("{}", d.velocity.seed); }},

  // [minimize]
  {.section = "minimize", .key = "style", .choices = names_in<kMinimizeNames>,
   .doc = "energy minimisation of the starting positions before the dynamics (not on a "
          "`--restart`): `fire` is FIRE (Bitzek et al. 2006) as LAMMPS `min_style fire` runs it "
          "(its 2020 variant and defaults: semi-implicit Euler, half step back, delayed time-step "
          "growth), with every pair style, EAM, every decomposition and rank count and both "
          "backends, the same bits on all. Not with DPD (`potential.style = \"dpd\"` or "
          "`thermostat.style = \"dpd/tstat\"`): their random and dissipative forces have no "
          "energy to minimise. Progress (iteration, energy, max force, force norm) and the stop "
          "reason go to the log; the dynamics then start at step 0 from the relaxed positions "
          "with the velocities of the start. See [Minimisation](minimize.md)",
   .sample = "\"fire\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) {
     d.minimize.style = one_of<MinimizeStyle>(r, kMinimizeNames); },
   .value = [](const Deck& d) {
     return toml_quote(name_of<MinimizeStyle>(kMinimizeNames, d.minimize.style)); }},
  {.section = "minimize", .key = "etol", .type = "float ≥ 0", .dimension = Dimension::None,
   .doc = "stop when the potential energy changes by less than etol relative between two iterations (LAMMPS `minimize etol ...`: |ΔE| < etol·½(|E_k| + |E_k−1| + 1e-8), E per particle in lj units); checked only `delay_steps` iterations after the last uphill step; 0: not checked",
   .when = {"minimize.style", "\"fire\""},
   .sample = "1e-8",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.etol = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.minimize.etol); }},
  {.section = "minimize", .key = "ftol", .type = "float ≥ 0", .dimension = Dimension::Force,
   .doc = "stop when the two-norm of the global force vector (√Σ|F_i|², all particles) falls below ftol (LAMMPS `minimize ... ftol`, `min_modify norm two`); 0: not checked",
   .when = {"minimize.style", "\"fire\""},
   .sample = "1e-4",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.ftol = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.minimize.ftol); }},
  {.section = "minimize", .key = "max_steps", .type = "int ≥ 1", .dimension = Dimension::Steps,
   .doc = "at most this many FIRE iterations (LAMMPS `minimize ... maxiter`); each takes one "
          "force evaluation, two after an uphill step",
   .when = {"minimize.style", "\"fire\""},
   .sample = "5000",
   .read = [](Deck& d, const KeyReader& r) {
     const std::int64_t n = r.integer();
     if (n < 1 || n > kMaxSteps) r.fail(fmt::format("must be 1 .. 2^53 (got {})", n));
     d.minimize.max_steps = n; },
   .value = [](const Deck& d) { return fmt::format("{}", d.minimize.max_steps); }},
  {.section = "minimize", .key = "dt_start", .type = "float ≥ 0", .dimension = Dimension::Time,
   .doc = "FIRE's first time step; 0: `run.dt` (LAMMPS starts from `timestep`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "0.002",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.dt_start = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.minimize.dt_start); }},
  {.section = "minimize", .key = "dt_max", .type = "float ≥ 0", .dimension = Dimension::Time,
   .doc = "FIRE's largest time step; 0: 10 × dt_start (LAMMPS `min_modify tmax 10.0`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "0.05",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.dt_max = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.minimize.dt_max); }},
  {.section = "minimize", .key = "dt_min", .type = "float ≥ 0", .dimension = Dimension::Time,
   .doc = "the time step is not shrunk below this; 0: 0.02 × dt_start (LAMMPS `tmin 0.02`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "0.0001",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.dt_min = non_negative(r); },
   .value = [](const Deck& d) { return toml_float(d.minimize.dt_min); }},
  {.section = "minimize", .key = "max_move", .type = "float > 0", .dimension = Dimension::Length,
   .doc = "no coordinate moves more than this in one iteration: the step is cut to max_move / max|v| (LAMMPS `min_modify dmax 0.1`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "0.05",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.max_move = positive(r); },
   .value = [](const Deck& d) { return toml_float(d.minimize.max_move); }},
  {.section = "minimize", .key = "delay_steps", .type = "int ≥ 0", .dimension = Dimension::Steps,
   .doc = "iterations after an uphill step (P = F·v ≤ 0) before the time step may grow and α shrink, and at the start before an uphill step may shrink the time step (LAMMPS `delaystep 20`, `initialdelay yes`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "10",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.delay_steps = non_negative_int(r); },
   .value = [](const Deck& d) { return fmt::format("{}", d.minimize.delay_steps); }},
  {.section = "minimize", .key = "dt_grow", .type = "float ≥ 1",
   .doc = "the time step's growth factor after `delay_steps` downhill iterations (LAMMPS "
          "`dtgrow 1.1`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "1.2",
   .read = [](Deck& d, const KeyReader& r) {
     const double v = r.real();
     if (!(v >= 1.0) || !std::isfinite(v)) r.fail(fmt::format("must be >= 1 (got {})", v));
     d.minimize.dt_grow = v; },
   .value = [](const Deck& d) { return toml_float(d.minimize.dt_grow); }},
  {.section = "minimize", .key = "dt_shrink", .type = "float, 0 < · ≤ 1",
   .doc = "the time step's factor on an uphill step (LAMMPS `dtshrink 0.5`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "0.6",
   .read = [](Deck& d, const KeyReader& r) {
     const double v = r.real();
     if (!(v > 0.0 && v <= 1.0)) r.fail(fmt::format("must be in (0, 1] (got {})", v));
     d.minimize.dt_shrink = v; },
   .value = [](const Deck& d) { return toml_float(d.minimize.dt_shrink); }},
  {.section = "minimize", .key = "alpha0", .type = "float, 0 ≤ · ≤ 1",
   .doc = "FIRE's mixing α at the start and after every uphill step: v ← (1 − α) v + α |v| F/|F| "
          "(LAMMPS `alpha0 0.25`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "0.1",
   .read = [](Deck& d, const KeyReader& r) {
     const double v = r.real();
     if (!(v >= 0.0 && v <= 1.0)) r.fail(fmt::format("must be in [0, 1] (got {})", v));
     d.minimize.alpha0 = v; },
   .value = [](const Deck& d) { return toml_float(d.minimize.alpha0); }},
  {.section = "minimize", .key = "alpha_shrink", .type = "float, 0 < · ≤ 1",
   .doc = "α's factor after `delay_steps` downhill iterations (LAMMPS `alphashrink 0.99`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "0.95",
   .read = [](Deck& d, const KeyReader& r) {
     const double v = r.real();
     if (!(v > 0.0 && v <= 1.0)) r.fail(fmt::format("must be in (0, 1] (got {})", v));
     d.minimize.alpha_shrink = v; },
   .value = [](const Deck& d) { return toml_float(d.minimize.alpha_shrink); }},
  {.section = "minimize", .key = "half_step_back", .type = "bool",
   .doc = "on an uphill step, move back half a step before zeroing the velocities (LAMMPS "
          "`halfstepback yes`)",
   .when = {"minimize.style", "\"fire\""},
   .sample = "false",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.half_step_back = r.boolean(); },
   .value = [](const Deck& d) { return toml_bool(d.minimize.half_step_back); }},
  {.section = "minimize", .key = "max_uphill", .type = "int ≥ 0", .dimension = Dimension::Steps,
   .doc = "stop after this many uphill steps in a row (stuck in a basin; LAMMPS `vdfmax 2000`); 0: never",
   .when = {"minimize.style", "\"fire\""},
   .sample = "100",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.max_uphill = non_negative_int(r); },
   .value = [](const Deck& d) { return fmt::format("{}", d.minimize.max_uphill); }},
  {.section = "minimize", .key = "progress_every", .type = "int ≥ 0", .dimension = Dimension::Steps,
   .doc = "a progress line in the log every N iterations (iteration, pe, max force component, force two-norm, FIRE's dt); 0: `output.thermo_every`",
   .when = {"minimize.style", "\"fire\""},
   .sample = "10",
   .read = [](Deck& d, const KeyReader& r) { d.minimize.progress_every = non_negative_int(r); },
   .value = [](const Deck& d) { return fmt::format("{}", d.minimize.progress_every); }},

  // [output]
  {.section = "output", .key = "thermo_every", .type = "int ≥ 0", .dimension = Dimension::Steps,
   .doc = "thermo row every N steps (0: only first and last)",
   .sample = "10",
   .read = [](Deck& d, const KeyReader& r) { d.output.thermo_every = non_negative_int(r); },
   .value = [](const Deck& d) { return fmt::format("{}", d.output.thermo_every); }},
  {.section = "output", .key = "thermo", .type = "[string, …]",
   .doc = "the thermo columns, LAMMPS `thermo_style custom` keywords: `step`, `time`, `temp`, "
          "`pe`, `ke`, `etotal`, `press`, `econs` (etotal + the thermostat's energy; = etotal "
          "in NVE), `ebond` (bond energy; 0: no bonds), `eangle` (angle energy), `evdwl` (pair energy: pe less ebond and eangle), `vol`, `density` (mass "
          "/ volume; g/cm³ in metal and real), `cpu` (seconds since the first step), `pstep/s` "
          "(particle-steps per second since the previous row), `eta` (time left). Default: "
          "`step temp pe ke etotal press`, `econs` with a thermostat, `pstep/s eta`. The "
          "trajectory's `scanmd/thermo` table has the same columns less `step`'s duplicates and "
          "the timing ones (cpu, pstep/s, eta)",
   .sample = "[\"step\", \"temp\", \"econs\", \"cpu\"]",
   .read = [](Deck& d, const KeyReader& r) {
     const toml::array* arr = r.node().as_array();
     if (!arr || arr->empty())
       r.fail(fmt::format("expected a non-empty array of thermo keywords (e.g. [\"step\", "
                          "\"temp\", \"pe\"]; output.thermo_every sets how often), got {}",
                          arr ? std::string("an empty array") : describe(r.node())));
     std::string known;
     for (const std::string_view k : kThermoKeywords) known += (known.empty() ? "" : ", ") + std::string(k);
     std::vector<std::string> columns;
     for (std::size_t i = 0; i < arr->size(); ++i) {
       const toml::node& e = *arr->get(i);
       const std::optional<std::string> v = e.value<std::string>();
       if (!v || !e.is_string())
         r.fail_at(e, fmt::format("expected a keyword string, got {} at index {}", describe(e), i));
       if (std::find(std::begin(kThermoKeywords), std::end(kThermoKeywords), *v) ==
           std::end(kThermoKeywords))
         r.fail_at(e, fmt::format("unknown thermo keyword {} at index {} (known: {})",
                                  quoted_shown(*v), i, known));
       if (std::find(columns.begin(), columns.end(), *v) != columns.end())
         r.fail_at(e, fmt::format("{} is listed twice", quoted_shown(*v)));
       columns.push_back(*v);
     }
     d.output.thermo = std::move(columns); },
   .value = [](const Deck& d) {
     std::string s;
     for (const std::string& c :
          thermo_columns(d.output.thermo, d.thermostat.style != ThermostatStyle::None))
       s += (s.empty() ? "" : ", ") + toml_quote(c);
     return "[" + s + "]"; }},
  {.section = "output", .key = "thermo_digits", .type = "int, 1 .. 17",
   .doc = "significant digits of the floating-point thermo columns on the terminal and in the "
          "log (LAMMPS `thermo_modify format float`); 17 shows every bit of a double. The "
          "trajectory's table holds full doubles whatever this is",
   .sample = "12",
   .read = [](Deck& d, const KeyReader& r) {
     const std::int64_t v = r.integer();
     if (v < 1 || v > 17) r.fail(fmt::format("must be 1..17 (got {})", v));
     d.output.thermo_digits = static_cast<int>(v); },
   .value = [](const Deck& d) { return fmt::format("{}", d.output.thermo_digits); }},
  {.section = "output", .key = "log", .type = "string, path",
   .doc = "log file (LAMMPS `log.lammps`): everything rank 0 prints, and the resolved deck "
          "(which the terminal shows only with `-v`); an existing one is backed up like the "
          "other outputs; empty: none",
   .sample = "\"run.log\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) { d.output.log = r.string(); },
   .value = [](const Deck& d) { return toml_quote(d.output.log); }},
  {.section = "output", .key = "backups", .type = "int, 1 .. 10000",
   .doc = "at most this many backups `#name.N#` of each output (GROMACS's GMX_MAXBACKUP, 99 by "
          "default): when a new backup would make more, the oldest go, and the log says which",
   .sample = "3",
   .read = [](Deck& d, const KeyReader& r) {
     const std::int64_t v = r.integer();
     if (v < 1 || v > 10000)
       r.fail(fmt::format("must be 1..10000 (got {}); output.overwrite = true keeps no backup",
                          v));
     d.output.backups = static_cast<int>(v); },
   .value = [](const Deck& d) { return fmt::format("{}", d.output.backups); }},
  {.section = "output", .key = "trajectory", .type = "string, path",
   .doc = "H5MD 1.1 trajectory (positions, velocities, images, box, observables; see "
          "[Output files](output.md)), written by all ranks with parallel "
          "HDF5; empty: none",
   .sample = "\"traj.h5\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) { d.output.trajectory = r.string(); },
   .value = [](const Deck& d) { return toml_quote(d.output.trajectory); }},
  {.section = "output", .key = "trajectory_every", .type = "int ≥ 0",
   .dimension = Dimension::Steps,
   .doc = "a frame at the run's first step and every N steps (0: the first and the last step); "
          "energy and pressure are computed on these steps for `/observables`",
   .sample = "10",
   .read = [](Deck& d, const KeyReader& r) { d.output.trajectory_every = non_negative_int(r); },
   .value = [](const Deck& d) { return fmt::format("{}", d.output.trajectory_every); }},
  {.section = "output", .key = "trajectory_force", .type = "bool",
   .doc = "forces in the trajectory too (`particles/trajectory/force`)",
   .sample = "true",
   .read = [](Deck& d, const KeyReader& r) { d.output.trajectory_force = r.boolean(); },
   .value = [](const Deck& d) { return toml_bool(d.output.trajectory_force); }},
  {.section = "output", .key = "trajectory_unwrapped", .type = "bool",
   .doc = "unwrapped positions in the trajectory too (`particles/trajectory/unwrapped_position` "
          "= position + image · L, LAMMPS dump `xu yu zu`), for mean-square displacements with "
          "readers that ignore the image flags (MDAnalysis)",
   .sample = "true",
   .read = [](Deck& d, const KeyReader& r) { d.output.trajectory_unwrapped = r.boolean(); },
   .value = [](const Deck& d) { return toml_bool(d.output.trajectory_unwrapped); }},
  {.section = "output", .key = "checkpoint", .type = "string, path",
   .doc = "checkpoint for `--restart` (H5MD, one frame), written to `<path>.tmp` and renamed, "
          "so a crash leaves the previous one intact; empty: none",
   .sample = "\"chk.h5\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) { d.output.checkpoint = r.string(); },
   .value = [](const Deck& d) { return toml_quote(d.output.checkpoint); }},
  {.section = "output", .key = "checkpoint_every", .type = "int ≥ 0",
   .dimension = Dimension::Steps,
   .doc = "a checkpoint every N steps and always at the last step (0: only at the last)",
   .sample = "1000",
   .read = [](Deck& d, const KeyReader& r) { d.output.checkpoint_every = non_negative_int(r); },
   .value = [](const Deck& d) { return fmt::format("{}", d.output.checkpoint_every); }},
  {.section = "output", .key = "overwrite", .type = "bool",
   .doc = "replace an existing trajectory / checkpoint / data file / imports CSV instead of "
          "renaming it to a backup `#name.1#`, `#name.2#`, … (GROMACS style; the log names the "
          "backup); also skips the copy a restart makes of the trajectory it appends to",
   .sample = "true",
   .read = [](Deck& d, const KeyReader& r) { d.output.overwrite = r.boolean(); },
   .value = [](const Deck& d) { return toml_bool(d.output.overwrite); }},
  {.section = "output", .key = "imports", .type = "string, path",
   .doc = "CSV of the import counts of every rank at every rebuild "
          "(`step,rank,ghosts,tower,plate,bytes_per_step,analytic,pairs`: analytic ρ·V for that "
          "rank's own box; pairs within the cutoff that rank computed at the force call after "
          "the rebuild); written at the end via a temporary name; checked (a folder or an "
          "unwritable path is an error) and an existing file backed up like the trajectory, "
          "before the first step; empty: none",
   .sample = "\"imports.csv\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) { d.output.imports = r.string(); },
   .value = [](const Deck& d) { return toml_quote(d.output.imports); }},
  {.section = "output", .key = "data_file", .type = "string, path",
   .doc = "LAMMPS data file of the final state as `write_data` writes it for `atom_style "
          "atomic` (box `0 L` per axis, `Masses`, `Atoms # atomic` with image flags, "
          "`Velocities`, by id; doubles to 17 digits), for LAMMPS `read_data` or as MDAnalysis "
          "topology (`atom_style=\"id type x y z\"`); gathered onto rank 0 at the end of the run "
          "and written via `<path>.tmp`; checked for writability and backed up like the "
          "trajectory before the first step; empty: none",
   .sample = "\"final.data\"",
   .is_string = true,
   .read = [](Deck& d, const KeyReader& r) { d.output.data_file = r.string(); },
   .value = [](const Deck& d) { return toml_quote(d.output.data_file); }},
};
// clang-format on

std::vector<std::string_view> sections_of_rows() {
  std::vector<std::string_view> s;
  for (const DeckKey& k : kKeys)
    if (std::find(s.begin(), s.end(), k.section) == s.end()) s.push_back(k.section);
  return s;
}

}  // namespace

std::span<const DeckKey> deck_keys() {
  return kKeys;
}

std::span<const std::string_view> deck_sections() {
  static const std::vector<std::string_view> sections = sections_of_rows();
  return sections;
}

std::string full_name(const DeckKey& k) {
  return fmt::format("{}.{}", k.section, k.key);
}

const DeckKey* find_deck_key(std::string_view section, std::string_view key) {
  if (section == "potential" && is_pair_coefficient(key)) key = kCoefficientKey;
  if (section == "potential" && is_pair_string_key(key)) key = kStringKey;
  for (const DeckKey& k : kKeys)
    if (k.section == section && k.key == key) return &k;
  return nullptr;
}

bool is_style_keys_row(const DeckKey& k) {
  return k.key == kCoefficientKey || k.key == kStringKey;
}

const DeckKey* find_deck_key(std::string_view full_name) {
  const auto dot = full_name.find('.');
  if (dot == std::string_view::npos) return nullptr;
  return find_deck_key(full_name.substr(0, dot), full_name.substr(dot + 1));
}

bool key_is_used(const DeckKey& k, const Deck& deck) {
  if (k.when.empty()) return true;
  const DeckKey* other = find_deck_key(k.when.key);
  return other && other->value && other->value(deck) == k.when.value;
}

bool key_is_printed(const DeckKey& k, const Deck& deck) {
  if (!key_is_used(k, deck)) return false;
  return !k.only_if_set || !k.value || k.value(deck) != default_value_text(k);
}

std::string default_value_text(const DeckKey& k) {
  if (!k.default_text.empty() || !k.value) return std::string(k.default_text);
  static const Deck defaults;
  return k.value(defaults);
}

}  // namespace scanmd::io
