// The deck reference as Markdown (see deck_reference.hpp): an introduction, the units of each
// dimension, one table per section in the key table's order, then one part per pair style.
#include "io/deck_reference.hpp"

#include <cmath>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "io/deck_keys.hpp"
#include "io/deck_reader.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd::io {

namespace {

// Text inside a table cell: '|' would end the cell.
std::string cell(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string code(std::string_view s) {
  return fmt::format("`{}`", s);
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// `lj`, `morse`, ... : the styles for which `flag` holds.
template <class Flag>
std::string styles_where(Flag flag) {
  std::vector<std::string> names;
  for_each_pair_style([&]<class E>() {
    if (flag.template operator()<E>()) names.push_back(code(E::kName));
  });
  return joined(names);
}

// `"lj"` (alias `"lj/cut"`), `"morse"`, ...
std::string all_styles() {
  std::vector<std::string> names;
  for_each_pair_style([&]<class E>() {
    std::string s = code(fmt::format("\"{}\"", E::kName));
    std::vector<std::string> aliases;
    for (const std::string_view a : E::kAliases) aliases.push_back(code(fmt::format("\"{}\"", a)));
    if (!aliases.empty())
      s += fmt::format(" (alias{} {})", aliases.size() == 1 ? "" : "es", joined(aliases));
    names.push_back(s);
  });
  return joined(names);
}

// The doc text with its placeholders filled in (deck_keys.hpp).
std::string expanded(std::string_view doc) {
  struct Placeholder {
    std::string_view name;
    std::string text;
  };
  const Placeholder placeholders[] = {
      {"{styles}", all_styles()},
      {"{styles:shift}", styles_where([]<class E>() { return E::kShift; })},
      {"{styles:tail}", styles_where([]<class E>() { return E::kTail; })},
      {"{styles:mixing}", styles_where([]<class E>() { return E::kMixing; })},
  };
  std::string s(doc);
  for (const Placeholder& p : placeholders)
    for (std::size_t at = s.find(p.name); at != std::string::npos; at = s.find(p.name, at))
      s.replace(at, p.name.size(), p.text);
  return s;
}

// The three unit columns of a dimension.
std::string unit_cells(Dimension d) {
  const DimensionUnits& u = units_of(d);
  return fmt::format("{} | {} | {}", u.lj, u.metal, u.real);
}

constexpr std::string_view kUnitHeader = "lj | metal | real";

std::string type_of(const DeckKey& k) {
  if (!k.choices) return cell(k.type);
  std::vector<std::string> names;
  for (const std::string_view c : k.choices()) names.push_back(code(fmt::format("\"{}\"", c)));
  return joined(names);
}

std::string default_of(const DeckKey& k) {
  if (!k.default_text.empty()) return std::string(k.default_text);
  return code(default_value_text(k));
}

std::string meaning_of(const DeckKey& k) {
  std::string s = cell(expanded(k.doc));
  if (!k.when.empty()) s = fmt::format("with `{} = {}`: {}", k.when.key, k.when.value, s);
  return s;
}

std::string domain_text(CoefficientDomain d) {
  switch (d) {
    case CoefficientDomain::Any:
      return "float";
    case CoefficientDomain::NonNegative:
      return "float ≥ 0";
    case CoefficientDomain::Positive:
      return "float > 0";
  }
  return "float";
}

std::string coefficient_default(double v) {
  return std::isnan(v) ? std::string("required") : code(toml_float(v));
}

template <class E>
std::string pair_style_part() {
  static_assert(E::kDimensions.size() == E::kCoefficients.size() &&
                    E::kExample.size() == E::kCoefficients.size(),
                "a dimension and an example value per coefficient");
  static_assert(E::kGlobalDimensions.size() == E::kGlobals.size() &&
                    E::kGlobalExample.size() == E::kGlobals.size(),
                "a dimension and an example value per style-level key");
  static_assert(E::kStringTypes.size() == E::kStrings.size() &&
                    E::kStringExample.size() == E::kStrings.size(),
                "a type and an example value per string key");
  static_assert(E::kStringGlobalTypes.size() == E::kStringGlobals.size() &&
                    E::kStringGlobalExample.size() == E::kStringGlobals.size() &&
                    E::kStringGlobalDefaults.size() == E::kStringGlobals.size(),
                "a type, a default and an example value per style-level string key");
  std::string s = fmt::format("\n### `{}`", E::kName);
  std::vector<std::string> aliases;
  for (const std::string_view a : E::kAliases) aliases.push_back(code(a));
  if (!aliases.empty()) s += fmt::format(" (alias {})", joined(aliases));
  s += fmt::format("\n\n{}\n\n", E::kDoc);
  s += fmt::format("Unlike pairs: {}. `potential.shift`: {}. `potential.tail`: {}.\n\n",
                   E::kMixing ? "mixed from the like pairs by `potential.mixing` unless listed"
                              : "not mixed, every pair of types is listed",
                   E::kShift ? "applies" : "ignored", E::kTail ? "applies" : "ignored");
  s += fmt::format("| key | type | default | {} |\n", kUnitHeader);
  s += "| --- | --- | --- | --- | --- | --- |\n";
  std::string example = fmt::format("[potential]\nstyle = \"{}\"\n", E::kName);
  for (std::size_t i = 0; i < E::kCoefficients.size(); ++i) {
    s += fmt::format("| `{}` | {} | {} | {} |\n", E::kCoefficients[i], domain_text(E::kDomains[i]),
                     coefficient_default(E::kDefaults[i]), unit_cells(E::kDimensions[i]));
    example += fmt::format("{} = {}\n", E::kCoefficients[i], toml_float(E::kExample[i]));
  }
  for (std::size_t g = 0; g < E::kGlobals.size(); ++g) {
    s += fmt::format("| `{}` (style-level) | {} | {} | {} |\n", E::kGlobals[g],
                     domain_text(E::kGlobalDomains[g]), coefficient_default(E::kGlobalDefaults[g]),
                     unit_cells(E::kGlobalDimensions[g]));
    example += fmt::format("{} = {}\n", E::kGlobals[g], toml_float(E::kGlobalExample[g]));
  }
  for (std::size_t i = 0; i < E::kStrings.size(); ++i) {
    s += fmt::format("| `{}` | {} | required | {} |\n", E::kStrings[i], cell(E::kStringTypes[i]),
                     unit_cells(Dimension::None));
    example += fmt::format("{} = {}\n", E::kStrings[i], toml_quote(E::kStringExample[i]));
  }
  for (std::size_t g = 0; g < E::kStringGlobals.size(); ++g) {
    const std::string_view d = E::kStringGlobalDefaults[g];
    s += fmt::format("| `{}` (style-level) | {} | {} | {} |\n", E::kStringGlobals[g],
                     cell(E::kStringGlobalTypes[g]),
                     d.empty() ? std::string("required") : code(toml_quote(d)),
                     unit_cells(Dimension::None));
    example +=
        fmt::format("{} = {}\n", E::kStringGlobals[g], toml_quote(E::kStringGlobalExample[g]));
  }
  s += fmt::format("\nExample, one species:\n\n```toml\n{}```\n", example);
  return s;
}

constexpr std::string_view kIntroduction =
    "<!-- Generated by `scanmd deck-reference` from the key table (io/deck_keys.cpp) and the\n"
    "     pair styles' headers (physics/pair/*.hpp): edit those, then run\n"
    "     `build/app/scanmd deck-reference > docs/deck.md`. The test deck.reference fails while\n"
    "     this file differs from the command's output. -->\n"
    "# Deck reference\n"
    "\n"
    "A deck is a TOML file (`scanmd run DECK`); any key can also be given on the command line, "
    "after the\n"
    "file, as `--set section.key=value` (the value read as TOML, a bare word as a string). "
    "Unknown keys,\n"
    "wrong types and out-of-range values are errors naming the file, line, column and key. "
    "Defaults\n"
    "reproduce LAMMPS `bench/in.lj`. The resolved deck, every key with its value (defaults "
    "included), is\n"
    "printed in the log and stored in the trajectory and checkpoint (`scanmd/runs/<k>/deck`).\n"
    "\n"
    "## Units\n"
    "\n"
    "`system.units` picks the unit system, as LAMMPS's `units` command, with LAMMPS's "
    "constants:\n"
    "**lj** (reduced: σ, ε, m, τ = σ√(m/ε); k_B = 1; the default), **metal** and **real**. "
    "Thermo energies are\n"
    "per particle in lj and totals in metal and real (LAMMPS's `thermo_modify norm` defaults); "
    "`system.density`\n"
    "is a number density in every system.\n"
    "\n";

}  // namespace

std::string deck_reference() {
  std::string s(kIntroduction);
  s += fmt::format("| dimension | {} |\n| --- | --- | --- | --- |\n", kUnitHeader);
  for (const DimensionUnits& u : kDimensionUnits)
    s += fmt::format("| {} | {} | {} | {} |\n", u.name, u.lj, u.metal, u.real);

  for (const std::string_view section : deck_sections()) {
    s += fmt::format("\n## [{}]\n\n", section);
    s += fmt::format("| key | type | default | {} | meaning |\n", kUnitHeader);
    s += "| --- | --- | --- | --- | --- | --- | --- |\n";
    for (const DeckKey& k : deck_keys()) {
      if (k.section != section) continue;
      const std::string name =
          k.key == kCoefficientKey ? fmt::format("`{}.<coefficient>`", k.section)
          : k.key == kStringKey
              ? fmt::format("`{}.<string key>`", k.section)
              : (k.lines ? fmt::format("`[[{}]]`", full_name(k)) : code(full_name(k)));
      s += fmt::format("| {} | {} | {} | {} | {} |\n", name, type_of(k), default_of(k),
                       unit_cells(k.dimension), meaning_of(k));
    }
  }

  s += "\n## Pair styles\n\n"
       "A style's coefficients are keys of `[potential]` with one species (one left out takes "
       "its default;\n"
       "one without a default is required), or of each `[[potential.pair]]` table with several "
       "(then not of\n"
       "`[potential]`: giving both is an error). Style-level keys are given once in "
       "`[potential]`, even with\n"
       "pair tables, and shared by every pair.\n";
  for_each_pair_style([&]<class E>() { s += pair_style_part<E>(); });
  return s;
}

}  // namespace scanmd::io
