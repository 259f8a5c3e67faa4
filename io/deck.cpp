// scanmd input deck: parsing (toml++), validation and `--set` overrides, and the resolved deck
// written back as TOML. Every error names where the value came from, compiler-style
// (`deck.toml:LINE:COL: section.key: what is wrong`, or `--set section.key=value: ...`), so a user
// can jump straight to it. Only the first problem is reported. No MPI in here.
#include "io/deck.hpp"

#include "engine/lattice.hpp"
#include "engine/species.hpp"
#include "io/deck_keys.hpp"
#include "io/deck_reader.hpp"
#include "physics/manybody/eam_file.hpp"
#include "physics/pair/pair_potential.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

namespace scanmd::io {

namespace {

// ---------------------------------------------------------------------------------------------
// Suggestions for misspelt keys

// Optimal string alignment distance (Levenshtein plus adjacent transpositions: "stpes" -> "steps"
// costs 1).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string_view leaf(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::string_view stem(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

// The closest candidate to `given`, or "" when nothing is close. A candidate whose last component
// equals the last component of `given` (a key put in the wrong section) wins outright; one that
// `given` abbreviates in the same section ("output.thermo" for "output.thermo_every") comes next.
std::string closest(std::string_view given, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  const std::size_t limit = std::max<std::size_t>(2, given.size() / 4);
  for (const auto& c : candidates) {
    // The edit distance is at least the difference in length: beyond the limit it is not
    // computed (a megabyte-long key would take seconds against every candidate).
    const std::size_t gap =
        given.size() > c.size() ? given.size() - c.size() : c.size() - given.size();
    std::size_t d = gap > limit ? gap : edit_distance(given, c);
    if (leaf(c) == leaf(given)) {
      d = 0;
    } else if (stem(c) == stem(given) && leaf(given).size() >= 3 &&
               leaf(c).starts_with(leaf(given))) {
      d = std::min<std::size_t>(d, 1);
    }
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best_d <= limit ? best : std::string{};
}

// Index into deck_keys() of "section.key", or -1. A pair coefficient of any style is a
// [potential] key.
int find_key(std::string_view section, std::string_view key) {
  const DeckKey* k = find_deck_key(section, key);
  return k ? static_cast<int>(k - deck_keys().data()) : -1;
}

bool is_section(std::string_view s) {
  const auto sections = deck_sections();
  return std::find(sections.begin(), sections.end(), s) != sections.end();
}

std::string unknown_key_message(std::string_view name) {
  std::vector<std::string> all;
  for (const DeckKey& k : deck_keys())
    if (!is_style_keys_row(k)) all.push_back(full_name(k));
  for_each_pair_style([&]<class E>() {
    for (const std::string_view c : E::kCoefficients) all.push_back(fmt::format("potential.{}", c));
    for (const std::string_view c : E::kGlobals) all.push_back(fmt::format("potential.{}", c));
    for (const std::string_view c : E::kStrings) all.push_back(fmt::format("potential.{}", c));
    for (const std::string_view c : E::kStringGlobals)
      all.push_back(fmt::format("potential.{}", c));
  });
  std::string msg = fmt::format("unknown key '{}'", shown(name));
  if (const auto s = closest(name, all); !s.empty()) {
    msg += fmt::format("; did you mean '{}'?", s);
  } else if (const auto dot = name.find('.'); dot != std::string_view::npos) {
    const auto section = name.substr(0, dot);
    std::string keys;  // (an unknown section has none: nothing long is echoed)
    for (const DeckKey& k : deck_keys()) {
      if (k.section == section && !is_style_keys_row(k))
        keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k.key);
    }
    if (section == "potential")
      keys += ", and the coefficients of the pair style: " + coefficients_by_style();
    if (!keys.empty()) msg += fmt::format(" (keys of [{}]: {})", section, keys);
  }
  return msg;
}

std::string unknown_section_message(std::string_view name) {
  const std::vector<std::string> sections(deck_sections().begin(), deck_sections().end());
  std::string msg = fmt::format("unknown section '{}'", shown(name));
  if (const auto s = closest(name, sections); !s.empty()) {
    msg += fmt::format("; did you mean '{}'?", s);
  } else {
    std::string list;
    for (const std::string& section : sections) list += (list.empty() ? "" : ", ") + section;
    msg += fmt::format(" (sections: {})", list);
  }
  return msg;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

struct ParseOutcome {
  toml::table table;
  bool ok = true;
  std::string error;
  toml::source_position at{};
};

// Inputs on which Debian's toml++ 3.3 reaches undefined behaviour (found by fuzzing; each kept
// in tests/fuzz/regressions/deck/), refused here as the syntax errors they are before toml++
// sees the text:
//   - a non-ASCII character outside strings and comments (TOML allows them only there):
//     is_non_ascii_horizontal_whitespace hits __builtin_unreachable on U+00A1..U+0499,
//     U+2D6E..U+3167, U+FBB6..U+FEFE wherever the parser asks whether one is whitespace: where
//     a key or whitespace is expected, and inside a bare value ("38.x"é"" is scanned as one
//     value, its quote included);
//   - a table header whose name starts with something other than a key character or a quote
//     ("[#", "[=", "[[."): parse_key() assumes (__builtin_assume) that it cannot;
//   - a '}' inside an array where a value belongs ("[5, }"): parse_value() assumes it cannot.
// A small lexer with toml++'s notion of tokens: comments run to the end of the line; in a key
// (a line's start, after '{' or an inline table's ',') quotes open strings; in a value (after
// '=', '[' or an array's ',') a token that starts with a quote is a string, any other runs to
// the next whitespace, ',', ']', '}' or '#' whatever it holds. Basic strings ("...", """...""")
// take backslash escapes, literal ones ('...', '''...''') none; one that does not end is
// reported too. Returns where (1-based line, column in code points) and what, or nothing.
struct TomlPitfall {
  toml::source_position at;
  std::string what;
};
std::optional<TomlPitfall> toml_pitfall(std::string_view t) {
  toml::source_position at{1, 1};
  std::size_t i = 0;
  std::string open;        // the open arrays ('[') and inline tables ('{') of a value
  bool value = false;      // in a value (else in a key or between lines)
  bool line_start = true;  // only spaces and tabs so far on this line
  auto step = [&] {  // past t[i], counting lines and code points (UTF-8 continuation bytes not)
    if (t[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else if ((static_cast<unsigned char>(t[i]) & 0xC0) != 0x80) {
      ++at.column;
    }
    ++i;
  };
  auto starts = [&](std::string_view s) { return t.substr(i).starts_with(s); };
  const TomlPitfall non_ascii{{},
                              "a non-ASCII character outside a string or comment (TOML "
                              "allows them only there)"};
  // Skips the string opened at i; a pitfall when it does not end.
  auto skip_string = [&]() -> std::optional<TomlPitfall> {
    const char q = t[i];
    const bool multi = starts(std::string(3, q)), escapes = q == '"';
    const toml::source_position begin = at;
    for (int k = 0; k < (multi ? 3 : 1); ++k) step();
    while (i < t.size()) {
      if (!multi && t[i] == '\n') break;
      if (escapes && t[i] == '\\') {
        step();
        if (i < t.size()) step();
        continue;
      }
      if (t[i] == q && (!multi || starts(std::string(3, q)))) {
        for (int k = 0; k < (multi ? 3 : 1); ++k) step();
        while (multi && i < t.size() && t[i] == q) step();  // up to two quotes inside the end
        return std::nullopt;
      }
      step();
    }
    return TomlPitfall{begin, multi ? "a multi-line string that does not end"
                                    : "a string that does not end on its line"};
  };
  auto key_start = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '"' ||
           c == '\'' || c == ']';
  };
  auto terminator = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' ||
           c == '#';
  };
  while (i < t.size()) {
    const char c = t[i];
    if (c == '\n') {
      step();
      line_start = true;
      if (open.empty()) value = false;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      step();
      continue;
    }
    if (c == '#') {
      while (i < t.size() && t[i] != '\n') step();
      continue;
    }
    const bool first_on_line = line_start;
    line_start = false;
    if (c == '"' || c == '\'') {
      if (auto p = skip_string()) return p;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) return TomlPitfall{at, non_ascii.what};
    if (!value) {  // a key, or a table header
      if (c == '[' && first_on_line && open.empty()) {
        step();
        if (i < t.size() && t[i] == '[') {
          step();
        } else {
          while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) step();
        }
        if (i < t.size() && !key_start(t[i]))
          return TomlPitfall{at, "expected a table name (a bare key or a quoted one) after '['"};
        continue;
      }
      if (c == '=') value = true;
      if (c == '}' && !open.empty()) {  // an empty inline table closes
        open.pop_back();
        value = true;
      }
      step();
      continue;
    }
    // In a value.
    if (c == '[' || c == '{') {
      open.push_back(c);
      value = c == '[';  // an array holds values, an inline table keys
      step();
      continue;
    }
    if (c == ']' || c == '}') {
      if (c == '}' && !open.empty() && open.back() == '[')
        return TomlPitfall{at, "'}' inside an array (it closes no inline table)"};
      if (!open.empty()) open.pop_back();
      step();
      continue;
    }
    if (c == ',') {
      value = open.empty() || open.back() == '[';  // next: an array's value, a table's key
      step();
      continue;
    }
    // A bare value (number, boolean, date, or garbage) up to the next terminator.
    while (i < t.size() && !terminator(t[i])) {
      if (static_cast<unsigned char>(t[i]) >= 0x80) return TomlPitfall{at, non_ascii.what};
      step();
    }
  }
  return std::nullopt;
}

ParseOutcome parse_toml(std::string_view text, std::string_view path) {
  ParseOutcome out;
  // A UTF-8 byte order mark (editors on Windows write one) is no part of the TOML: read as
  // blanks, so that positions keep their columns (issue 31: such decks were refused, while data
  // files accept it).
  std::string unmarked;
  if (text.starts_with("\xEF\xBB\xBF")) {
    unmarked = "   ";
    unmarked.append(text.substr(3));
    text = unmarked;
  }
  if (auto pitfall = toml_pitfall(text)) {
    out.ok = false;
    out.error = std::move(pitfall->what);
    out.at = pitfall->at;
    return out;
  }
#if TOML_EXCEPTIONS
  try {
    out.table = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    out.ok = false;
    out.error = std::string(e.description());
    out.at = e.source().begin;
  }
#else
  auto r = toml::parse(text, path);
  if (r) {
    out.table = std::move(r).table();
  } else {
    out.ok = false;
    out.error = std::string(r.error().description());
    out.at = r.error().source().begin;
  }
#endif
  return out;
}

bool before(const toml::source_position& a, const toml::source_position& b) {
  return a.line != b.line ? a.line < b.line : a.column < b.column;
}

// Box longer than the skin along each axis. The message names the key most likely to fix it:
// the last --set override among cells/skin/density, else system.cells if the file gives it,
// else whichever of the others the file gives last, else system.cells from the defaults.
void check_box(const Deck& deck, const std::vector<Item>& items, const std::string& file) {
  const Vec3 box = initial_box_length(deck.system);
  const std::optional<int> axis = short_box_axis(box, deck.neighbor.skin);
  if (!axis) return;

  auto relevant = [](const Item& it) {
    return it.name == "system.cells" || it.name == "neighbor.skin" || it.name == "system.density";
  };
  const Item* blame = nullptr;
  for (const auto& it : items) {
    if (relevant(it) && !it.set.empty()) blame = &it;
  }
  if (!blame) {
    for (const auto& it : items) {
      if (it.name == "system.cells") blame = &it;
    }
  }
  if (!blame) {
    for (const auto& it : items) {
      if (relevant(it)) blame = &it;  // items from the file are in file order
    }
  }
  const std::string what =
      short_box_message(box, deck.neighbor.skin, *axis) + "; use more cells or a shorter skin";
  if (!blame) throw DeckError(fmt::format("{}: system.cells: {}", file, what));
  KeyReader(file, *blame).fail(what);
}

// The time of the last step, run.steps · run.dt, must be a finite double (it is written with
// every frame, and the thermostats integrate over it). Blames run.dt unless only run.steps is
// given.
void check_run_time(const Deck& deck, const std::vector<Item>& items, const std::string& file) {
  const double t = static_cast<double>(deck.run.steps) * deck.run.dt;
  if (std::isfinite(t)) return;
  const std::string what = fmt::format(
      "run.steps · run.dt = {} · {} is not a finite time (the time of the last "
      "step overflows a double)",
      deck.run.steps, deck.run.dt);
  const Item* blame = nullptr;
  for (const auto& it : items)
    if (it.name == "run.dt" || (it.name == "run.steps" && !blame)) blame = &it;
  if (!blame) throw DeckError(fmt::format("{}: run.dt: {}", file, what));
  KeyReader(file, *blame).fail(what);
}

// [thermostat] nose-hoover (issue 31): the chain's thermostat masses are N_f·T·τ², so T = 0
// makes them 0 and the run NaN (LAMMPS refuses T = 0 for fix nvt); and a damping τ of a few
// time steps cannot be integrated (τ = run.dt: econs from -4.6 to +50 in 2000 steps, τ = 1.5 dt
// drifts; 2 dt and more hold): at least kMinDampingSteps steps. Blames the key given (damping or
// run.dt, the later one), else thermostat.damping.
constexpr double kMinDampingSteps = 5.0;
void check_thermostat(const Deck& deck, const std::vector<Item>& items, const std::string& file) {
  const ThermostatSection& t = deck.thermostat;
  if (t.style != ThermostatStyle::NoseHoover) return;
  auto fail = [&](std::initializer_list<std::string_view> keys, const std::string& what) {
    const Item* blame = nullptr;
    for (const auto& it : items)
      for (const std::string_view k : keys)
        if (it.name == k) blame = &it;
    if (!blame) throw DeckError(fmt::format("{}: {}: {}", file, *keys.begin(), what));
    KeyReader(file, *blame).fail(what);
  };
  if (!(t.temperature > 0.0))
    fail({"thermostat.temperature"},
         "must be > 0 with thermostat.style = \"nose-hoover\" (the chain's masses are "
         "proportional to it, T = 0 gives NaN); to quench to T = 0 use \"langevin\"");
  if (t.damping < kMinDampingSteps * deck.run.dt)
    fail({"thermostat.damping", "run.dt"},
         fmt::format("thermostat.damping = {} is only {:.3g} × run.dt (run.dt = {}): the "
                     "Nosé–Hoover chain cannot be integrated over so few steps (econs drifts "
                     "off); it must be at least {} × run.dt (LAMMPS suggests about 100 × run.dt)",
                     t.damping, t.damping / deck.run.dt, deck.run.dt, kMinDampingSteps));
}

// [[bond.coeff]] / [[angle.coeff]]: each table gives exactly the coefficients of the style (as
// LAMMPS's bond_coeff / angle_coeff take a fixed count). A missing one would be a silent 0 (a FENE
// r0 of 0 divides by zero; a harmonic angle's theta0 would be 0) and one the style does not use
// would be dropped unsaid. Checked once both the style and the tables are read (either order).
void check_bonded_coefficients(const Deck& deck, const std::vector<Item>& items,
                               const std::string& file) {
  auto check = [&](std::string_view name, std::string_view style,
                   std::initializer_list<std::string_view> wanted) {
    for (const Item& it : items) {
      if (it.name != name) continue;
      const KeyReader r(file, it);
      const auto* arr = r.node().as_array();
      if (!arr) return;  // the reader took only arrays of tables
      std::string list;
      for (const std::string_view w : wanted) list += fmt::format(", {}", w);
      for (std::size_t n = 0; n < arr->size(); ++n) {
        const toml::table& t = *arr->get(n)->as_table();
        for (const auto& [key, v] : t)
          if (key != "type" && std::find(wanted.begin(), wanted.end(), key.str()) == wanted.end())
            r.fail_at(v, fmt::format("entry {}: '{}' is not a coefficient of style \"{}\" "
                                     "(it takes type{})",
                                     n, key.str(), style, list));
        for (const std::string_view w : wanted)
          if (!t.contains(w))
            r.fail_at(*arr->get(n), fmt::format("entry {}: style \"{}\" needs {} (it takes "
                                                "type{})",
                                                n, style, w, list));
      }
    }
  };
  // Tables without a style (LAMMPS: "bond_coeff command before bond_style is defined").
  auto unused = [&](std::string_view name, std::string_view style_key) {
    for (const Item& it : items)
      if (it.name == name)
        KeyReader(file, it).fail(
            fmt::format("is given but {} is \"none\" (its default): give "
                        "the style the coefficients are for",
                        style_key));
  };
  switch (deck.bond.style) {
    case BondStyle::Fene:
      check("bond.coeff", "fene", {"k", "r0", "epsilon", "sigma"});
      break;
    case BondStyle::Harmonic:
      check("bond.coeff", "harmonic", {"k", "r0"});
      break;
    case BondStyle::None:
      unused("bond.coeff", "bond.style");
      break;
  }
  switch (deck.angle.style) {
    case AngleStyle::Harmonic:
      check("angle.coeff", "harmonic", {"k", "theta0"});
      break;
    case AngleStyle::Cosine:
      check("angle.coeff", "cosine", {"k"});
      break;
    case AngleStyle::None:
      unused("angle.coeff", "angle.style");
      break;
  }
}

// Keys whose row has a condition (`when`: region.lo only with region.style = "slab") given
// while it does not hold: the first in the order of the rows.
void check_conditions(const Deck& deck, const std::vector<Item>& items, const std::string& file) {
  for (const DeckKey& k : deck_keys()) {
    if (k.when.empty() || key_is_used(k, deck)) continue;
    const std::string name = full_name(k);
    for (const Item& it : items)
      if (it.name == name)
        KeyReader(file, it).fail(fmt::format("is not used with {} = {}", k.when.key,
                                             find_deck_key(k.when.key)->value(deck)));
  }
}

// Whether a slab or sphere inside the box holds a lattice site, without visiting every site
// (the lattice may be far too large for that: the memory check comes later). Along any axis the
// fcc sites lie on planes (c + b)·a, b ∈ {0, ½}: a slab needs one of the planes near its lower
// face. A sphere of radius r > a/2, the fcc covering radius, always holds a site (every point
// has one within a/2, inside the box since the sphere is); a smaller one is searched for among
// the few sites of its bounding box.
bool region_has_site(const FccLattice& lattice, const RegionSection& g) {
  const double a = lattice.constant;
  if (g.style == RegionStyle::Slab) {
    const int n = lattice.cells[g.axis];
    const int c0 = static_cast<int>(std::max(-1.0, std::min(std::floor(g.lo / a), double(n)))) - 1;
    for (int c = std::max(0, c0); c <= std::min(n - 1, c0 + 3); ++c)
      for (const int m : {0, 1}) {  // basis points 0 and 1 lie on planes c·a and (c + ½)·a
        const Vec3 q = lattice.site(g.axis == 0 ? c : 0, g.axis == 1 ? c : 0, g.axis == 2 ? c : 0,
                                    g.axis == 2 ? (m ? 2 : 0) : m);
        if (g.contains(q)) return true;
      }
    return false;
  }
  if (g.radius > 0.5 * a) return true;
  bool found = false;
  const Vec3 lo{g.center[0] - g.radius, g.center[1] - g.radius, g.center[2] - g.radius};
  const Vec3 hi{g.center[0] + g.radius, g.center[1] + g.radius, g.center[2] + g.radius};
  lattice.for_each_site(
      lo, hi, [&](Vec3 x) { return g.contains(x); }, [&](std::uint64_t, Vec3) { found = true; });
  return found;
}

// [region] (only its style's keys were given: check_conditions): a slab within the box along
// its axis with lo < hi, a sphere inside the box; at least one lattice site inside; lattice
// sites at least 0.5σ apart.
void check_region(const Deck& deck, const std::vector<Item>& items, const std::string& file) {
  auto item = [&](std::string_view name) -> const Item* {
    for (const auto& it : items)
      if (it.name == name) return &it;
    return nullptr;
  };
  auto fail = [&](std::string_view name, const std::string& what) {
    if (const Item* it = item(name)) KeyReader(file, *it).fail(what);
    throw DeckError(fmt::format("{}: {}: {}", file, name, what));
  };
  const RegionSection& g = deck.region;
  const std::string_view style = name_of<RegionStyle>(kRegionNames, g.style);
  const bool slab = g.style == RegionStyle::Slab;
  const FccLattice lattice = FccLattice::from_density(deck.system.density, deck.system.cells);
  const double nearest = lattice.constant / std::sqrt(2.0);
  if (nearest < 0.5)
    fail("system.density", fmt::format("fcc neighbours would be {:.4g} sigma apart, closer than "
                                       "0.5 sigma",
                                       nearest));
  if (g.style == RegionStyle::Box) return;
  const Vec3 L = lattice.box().length;
  const double len[3] = {L.x, L.y, L.z};
  if (slab) {
    for (const char* k : {"region.lo", "region.hi"})  // region.axis: "z" unless given
      if (!item(k)) fail("region.style", fmt::format("a slab needs {}", k));
    const double l = len[g.axis];
    const char ax = "xyz"[g.axis];
    if (!(g.lo < g.hi))
      fail("region.hi", fmt::format("must be greater than region.lo = {:.6g}", g.lo));
    if (g.lo < 0.0 || g.lo >= l)
      fail("region.lo", fmt::format("{:.6g} is outside the box [0, {:.6g}) along {}", g.lo, l, ax));
    if (g.hi > l)
      fail("region.hi", fmt::format("{:.6g} is outside the box [0, {:.6g}] along {}", g.hi, l, ax));
  } else {
    for (const char* k : {"region.center", "region.radius"})
      if (!item(k)) fail("region.style", fmt::format("a sphere needs {}", k));
    for (int a = 0; a < 3; ++a)
      if (g.center[a] - g.radius < 0.0 || g.center[a] + g.radius > len[a])
        fail(item("region.radius") && !(g.center[a] >= 0.0 && g.center[a] <= len[a])
                 ? "region.center"
                 : "region.radius",
             fmt::format("the sphere (center {:.6g}, radius {:.6g} along {}) reaches outside "
                         "the box [0, {:.6g}]",
                         g.center[a], g.radius, "xyz"[a], len[a]));
  }
  if (!region_has_site(lattice, g))
    fail("region.style", fmt::format("the {} holds no lattice site (lattice constant {:.6g})",
                                     style, lattice.constant));
}

}  // namespace

std::string Deck::to_toml() const {
  std::string s;
  bool printable_path = std::none_of(path.begin(), path.end(),
                                     [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  s += "# scanmd input deck, resolved: every key, defaults included";
  if (!path.empty() && printable_path) s += fmt::format(" (from {})", path);
  s += "\n";
  // Section by section, each key its row says is printed; a section none of whose keys is
  // printed ([region] of the whole box) is left out.
  for (const std::string_view section : deck_sections()) {
    std::string body;
    for (const DeckKey& k : deck_keys()) {
      if (k.section != section || !key_is_printed(k, *this)) continue;
      body += k.lines ? k.lines(*this) : fmt::format("{} = {}\n", k.key, k.value(*this));
    }
    if (!body.empty()) s += fmt::format("\n[{}]\n{}", section, body);
  }
  return s;
}

Deck parse_deck(std::string_view text, const std::string& path,
                const std::vector<std::string>& overrides) {
  ParseOutcome parsed = parse_toml(text, path);
  if (!parsed.ok) {
    throw DeckError(fmt::format("{}:{}:{}: syntax error: {}", path, parsed.at.line,
                                parsed.at.column, parsed.error));
  }
  auto loc = [&](const toml::source_position& p) {
    return fmt::format("{}:{}:{}", path, p.line, p.column);
  };

  // Collect the file's keys; report the first unknown one in file order.
  std::vector<Item> items;
  std::vector<std::pair<toml::source_position, std::string>> problems;
  for (const auto& [sk, sv] : parsed.table) {
    const std::string_view section = sk.str();
    if (!is_section(section)) {
      problems.emplace_back(sk.source().begin, sv.is_table() ? unknown_section_message(section)
                                                             : unknown_key_message(section));
      continue;
    }
    const toml::table* tbl = sv.as_table();
    if (!tbl) {
      problems.emplace_back(sv.source().begin,
                            fmt::format("{}: expected a table (a [{}] section), got {}", section,
                                        section, describe(sv)));
      continue;
    }
    for (const auto& [k, v] : *tbl) {
      const std::string name = fmt::format("{}.{}", section, k.str());
      const int spec = find_key(section, k.str());
      if (spec < 0) {
        problems.emplace_back(k.source().begin, unknown_key_message(name));
        continue;
      }
      items.push_back(Item{&v, name, {}, static_cast<std::size_t>(spec)});
    }
  }
  if (!problems.empty()) {
    const auto first =
        std::min_element(problems.begin(), problems.end(),
                         [](const auto& a, const auto& b) { return before(a.first, b.first); });
    throw DeckError(fmt::format("{}: {}", loc(first->first), first->second));
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return before(a.node->source().begin, b.node->source().begin);
  });

  // Overrides replace the file's value (which is then not checked) or add the key.
  std::deque<toml::table> storage;  // owns the override values; a deque keeps them in place
  for (const auto& ov : overrides) {
    const std::string set = fmt::format("--set {}", shown(ov));
    const auto eq = ov.find('=');
    if (eq == std::string::npos) {
      throw DeckError(fmt::format("{}: expected section.key=value", set));
    }
    const std::string name = trim(std::string_view(ov).substr(0, eq));
    const std::string value = trim(std::string_view(ov).substr(eq + 1));
    const auto dot = name.find('.');
    const int spec =
        dot == std::string::npos ? -1 : find_key(name.substr(0, dot), name.substr(dot + 1));
    if (spec < 0) throw DeckError(fmt::format("{}: {}", set, unknown_key_message(name)));

    ParseOutcome v = parse_toml("v = " + value, set);
    // A whole number TOML cannot hold is no bare word (issue 31: "expected an integer, got
    // string"): said as what it is.
    if (!v.ok && value.size() > 1 &&
        value.find_first_not_of("0123456789_", value[0] == '-' || value[0] == '+' ? 1 : 0) ==
            std::string::npos)
      throw DeckError(
          fmt::format("{}: {}: {} is beyond the range of a 64-bit integer "
                      "(-9223372036854775808 .. 9223372036854775807)",
                      set, name, value));
    const bool as_toml = v.ok && v.table.size() == 1 && v.table.contains("v") &&
                         !(deck_keys()[spec].is_string && !v.table.get("v")->is_string());
    if (as_toml) {
      storage.push_back(std::move(v.table));
    } else {
      storage.emplace_back();
      storage.back().insert("v", value);  // a bare word: out.h5, neutral-territory, ...
    }
    std::erase_if(items, [&](const Item& it) { return it.name == name; });
    items.push_back(Item{storage.back().get("v"), name, set, static_cast<std::size_t>(spec)});
  }

  Deck deck;
  deck.path = path;
  // Files a pair style reads (the table style's `file`) are relative to the deck's directory.
  deck.potential.base_dir = std::filesystem::path(path).parent_path().string();
  for (const auto& it : items) {
    const KeyReader r(path, it);
    deck_keys()[it.spec].read(deck, r);
    deck.where[it.name] = r.where(*it.node);
  }
  if (!deck.potential.pairs.empty()) {
    std::vector<std::string_view> globals = pair_style_globals(deck.potential.style);
    for (const std::string_view g : pair_style_string_globals(deck.potential.style))
      globals.push_back(g);
    for (const auto& it : items)
      if (is_style_keys_row(deck_keys()[it.spec]) &&
          std::find(globals.begin(), globals.end(), KeyReader(path, it).key()) == globals.end())
        KeyReader(path, it).fail(
            "is not used when [[potential.pair]] tables are given: give it "
            "per pair");
  }
  {
    // The style's defaults written out (the resolved deck): its style-level keys, and the one
    // pair's coefficients when there is no pair table.
    std::vector<std::string_view> names = pair_style_globals(deck.potential.style);
    if (deck.potential.pairs.empty())
      for (const std::string_view name : pair_style_coefficients(deck.potential.style))
        names.push_back(name);
    for (const std::string_view name : names) {
      const double d = pair_coefficient_default(deck.potential.style, name);
      if (!std::isnan(d)) deck.potential.coeffs.try_emplace(std::string(name), d);
    }
  }
  if (eam::is_eam_style(deck.potential.style)) load_eam(deck);
  // A data file brings its own box and types: checked by the run once the file is read.
  if (deck.system.data_file.empty()) {
    check_species(deck);
    check_box(deck, items, path);
    check_conditions(deck, items, path);
    check_region(deck, items, path);
  } else {
    for (const auto& it : items)
      if (it.name.starts_with("region."))
        KeyReader(path, it).fail(
            "is for lattice starts: system.data_file brings its own positions");
    check_conditions(deck, items, path);
  }
  check_run_time(deck, items, path);
  check_thermostat(deck, items, path);
  check_bonded_coefficients(deck, items, path);
  return deck;
}

void load_eam(Deck& deck) {
  PotentialSection& pot = deck.potential;
  // The types: one per file or element; eam with one file for all: the lattice's (a data file's
  // types are checked when it is read, make_species reading the tables again if they differ).
  const int types = pot.style == "eam" ? (pot.files.size() > 1 ? static_cast<int>(pot.files.size())
                                                               : deck.system.type_count())
                                       : std::max(1, static_cast<int>(pot.elements.size()));
  auto fail = [&](std::string key, const std::string& what) {
    auto w = deck.where.find(key);
    if (w == deck.where.end()) {
      key = "potential.style";
      w = deck.where.find(key);
    }
    const std::string at = w != deck.where.end() ? w->second : deck.path;
    return DeckError(fmt::format("{}: {}: {}", at, key, what));
  };
  if (deck.system.units != UnitSystem::Metal)
    throw fail("system.units", fmt::format("potential.style = \"{}\" needs system.units = "
                                           "\"metal\" (its files are in eV, Å and g/mol)",
                                           pot.style));
  try {
    pot.eam = eam::load(pot, types);
  } catch (const eam::KeyError& e) {
    throw fail(e.key(), e.what());
  } catch (const eam::FileError& e) {
    throw fail(pot.style == "eam" ? "potential.files" : "potential.file", e.what());
  }
  // The masses are the files' unless the deck gives them (LAMMPS's pair_coeff sets them).
  if (!deck.where.contains("system.mass")) deck.system.mass = pot.eam->mass;
}

void check_species(const Deck& deck, const std::string& types_from,
                   const std::string& masses_from) {
  try {
    // The style's own checks of its coefficients run in make_species; then run.dt against the
    // style's time unit of every pair (a longer step carries particles through the repulsive
    // core in one step: the run can only end in overlapping particles or non-finite positions).
    const Species s = make_species(deck);
    if (!s.eam) s.pair.check_time_step(deck.run.dt, s.mass, deck.system.constants().ftm2v);
  } catch (const SpeciesError& e) {
    std::string key = e.key();
    auto w = deck.where.find(key);
    if (w == deck.where.end() && key.starts_with("potential.pair")) {
      key = "potential.pair";
      w = deck.where.find(key);
    }
    std::string note;
    if (key == "system.mass" && !masses_from.empty()) {  // the masses came from a file
      key = "system.data_file";
      w = deck.where.find(key);
      note = fmt::format(" (the masses of {})", masses_from);
    }
    const std::string at = w != deck.where.end() ? w->second : deck.path;
    const int T = deck.system.type_count();
    const std::string from =
        types_from.empty()
            ? (deck.system.type_fractions.empty()
                   ? std::string()
                   : fmt::format(" ({} atom types, from system.type_fractions)", T))
            : fmt::format(" ({} atom type{} from {})", T, T == 1 ? "" : "s", types_from);
    throw DeckError(fmt::format("{}: {}: {}{}{}", at, key, e.what(), note, from));
  }
}

Deck load_deck(const std::string& path, const std::vector<std::string>& overrides) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  auto cannot_open = [&](int err) {
    return DeckError(fmt::format("{}: cannot open deck: {}", path,
                                 std::error_code(err, std::generic_category()).message()));
  };
  // A deck is a regular file of at most kMaxDeckBytes: /dev/zero, a FIFO (opened without
  // waiting for a writer) or a trajectory given by mistake is refused by what it is, not read
  // until memory runs out.
  errno = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw cannot_open(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    ::close(fd);
    if (S_ISDIR(st.st_mode)) throw cannot_open(EISDIR);
    if (!S_ISREG(st.st_mode) && st.st_mode != 0)
      throw DeckError(
          fmt::format("{}: cannot read deck: not a regular file (a deck is a TOML "
                      "file)",
                      path));
    throw cannot_open(err);
  }
  std::unique_ptr<std::FILE, Closer> f(::fdopen(fd, "rb"));
  if (!f) {
    const int err = errno;
    ::close(fd);
    throw cannot_open(err);
  }
  auto too_large = [&](std::uintmax_t bytes) {
    return DeckError(
        fmt::format("{}: cannot read deck: {} bytes, more than the {} MiB a deck may "
                    "have (is it a deck?)",
                    path, bytes, kMaxDeckBytes >> 20));
  };
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxDeckBytes) throw too_large(st.st_size);
  std::string text;
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxDeckBytes) throw too_large(text.size());  // it grew meanwhile
  }
  if (std::ferror(f.get())) throw cannot_open(errno != 0 ? errno : EIO);
  return parse_deck(text, path, overrides);
}

}  // namespace scanmd::io
