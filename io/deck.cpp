// scanmd input deck: parsing (toml++), validation and `--set` overrides, and the resolved deck
// written back as TOML. Every error names where the value came from, compiler-style
// (`deck.toml:LINE:COL: section.key: what is wrong`, or `--set section.key=value: ...`), so a user
// can jump straight to it. Only the first problem is reported. No MPI in here.
#include "io/deck.hpp"

#include "engine/lattice.hpp"
#include "engine/species.hpp"

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

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>  // Debian ships the header under this name only
#endif

namespace scanmd::io {

namespace {

// ---------------------------------------------------------------------------------------------
// TOML writing helpers

std::string toml_quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

// Text from the user as it goes into a message: at most kShownChars characters, the rest
// summarised, so that a megabyte-long key or value is not echoed whole.
constexpr std::size_t kShownChars = 64;
std::string shown(std::string_view s) {
  if (s.size() <= kShownChars) return std::string(s);
  return fmt::format("{}... ({} characters)", s.substr(0, kShownChars - 16), s.size());
}
std::string quoted_shown(std::string_view s) {
  return s.size() <= kShownChars ? toml_quote(s)
                                 : fmt::format("{}... ({} characters)",
                                               toml_quote(s.substr(0, kShownChars - 16)), s.size());
}

// Shortest representation that reads back to the same double, always a TOML float ("1.0", not "1").
std::string toml_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // 'n': inf / nan
  return s;
}

std::string toml_bool(bool b) {
  return b ? "true" : "false";
}

std::string toml_floats(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + toml_float(v[i]);
  return s + "]";
}

template <typename T>
std::string toml_int3(const std::array<T, 3>& a) {
  return fmt::format("[{}, {}, {}]", a[0], a[1], a[2]);
}

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

// ---------------------------------------------------------------------------------------------
// Reading one key

std::string describe(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return fmt::format("string {}", quoted_shown(*n.value<std::string>()));
    case toml::node_type::integer:
      return fmt::format("integer {}", *n.value<std::int64_t>());
    case toml::node_type::floating_point:
      return fmt::format("float {}", toml_float(*n.value<double>()));
    case toml::node_type::boolean:
      return fmt::format("boolean {}", toml_bool(*n.value<bool>()));
    case toml::node_type::array:
      return fmt::format("array of {}", n.as_array()->size());
    case toml::node_type::table:
      return "table";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// One key as given: in the file (set empty) or by a --set override (set = "--set a.b=v").
struct Item {
  const toml::node* node = nullptr;
  std::string name;  // "run.dt"
  std::string set;
  std::size_t spec = 0;  // index into kKeys
};

class Reader {
 public:
  Reader(const std::string& file, const Item& item) : file_(file), item_(item) {}

  [[noreturn]] void fail(std::string_view what) const { fail_at(*item_.node, what); }
  [[noreturn]] void fail_at(const toml::node& n, std::string_view what) const {
    throw DeckError(fmt::format("{}: {}: {}", where(n), item_.name, what));
  }
  std::string where(const toml::node& n) const {
    if (!item_.set.empty()) return item_.set;
    const auto& b = n.source().begin;
    return fmt::format("{}:{}:{}", file_, b.line, b.column);
  }

  const toml::node& node() const { return *item_.node; }
  // The key without its section ("dt" of "run.dt").
  std::string key() const { return item_.name.substr(item_.name.find('.') + 1); }

  double real() const {
    const auto v = node().value<double>();  // integers convert (density = 1 is fine)
    if (!v || !(node().is_floating_point() || node().is_integer())) {
      fail(fmt::format("expected a number, got {}", describe(node())));
    }
    if (!std::isfinite(*v)) fail(fmt::format("must be a finite number (got {})", *v));
    return *v;
  }
  std::int64_t integer() const {
    if (!node().is_integer()) fail(fmt::format("expected an integer, got {}", describe(node())));
    return *node().value<std::int64_t>();
  }
  bool boolean() const {
    if (!node().is_boolean()) {
      fail(fmt::format("expected a boolean (true or false), got {}", describe(node())));
    }
    return *node().value<bool>();
  }
  std::string string() const {
    if (!node().is_string()) fail(fmt::format("expected a string, got {}", describe(node())));
    return *node().value<std::string>();
  }
  // An array of exactly 3 integers, each >= min.
  std::array<int, 3> int3(std::int64_t min, std::string_view expected) const {
    const auto* arr = node().as_array();
    if (!arr) fail(fmt::format("expected {}, got {}", expected, describe(node())));
    if (arr->size() != 3) {
      fail(fmt::format("expected {}, got an array of {} element{}", expected, arr->size(),
                       arr->size() == 1 ? "" : "s"));
    }
    std::array<int, 3> out{};
    for (std::size_t i = 0; i < 3; ++i) {
      const toml::node& e = *arr->get(i);
      if (!e.is_integer()) {
        fail_at(e, fmt::format("expected {}, got {} at index {}", expected, describe(e), i));
      }
      const std::int64_t v = *e.value<std::int64_t>();
      if (v < min) fail_at(e, fmt::format("entries must be >= {} (got {} at index {})", min, v, i));
      if (v > INT_MAX) {
        fail_at(e, fmt::format("entries must be <= {} (got {} at index {})", INT_MAX, v, i));
      }
      out[i] = static_cast<int>(v);
    }
    return out;
  }

 private:
  const std::string& file_;
  const Item& item_;
};

double positive(const Reader& r) {
  const double v = r.real();
  if (!(v > 0)) r.fail(fmt::format("must be > 0 (got {})", v));
  return v;
}

double non_negative(const Reader& r) {
  const double v = r.real();
  if (!(v >= 0)) r.fail(fmt::format("must be >= 0 (got {})", v));
  return v;
}

std::int64_t non_negative_int(const Reader& r) {
  const std::int64_t v = r.integer();
  if (v < 0) r.fail(fmt::format("must be >= 0 (got {})", v));
  return v;
}

// An array of numbers (or, with `scalar_ok`, one number: a one-element list), each > 0 when
// `positive` else >= 0.
std::vector<double> numbers(const Reader& r, std::string_view expected, bool positive,
                            bool scalar_ok) {
  const toml::node& n = r.node();
  if (scalar_ok && (n.is_floating_point() || n.is_integer())) {
    const double v = r.real();
    if (positive ? !(v > 0) : !(v >= 0))
      r.fail(fmt::format("must be {} 0 (got {})", positive ? ">" : ">=", v));
    return {v};
  }
  const auto* arr = n.as_array();
  if (!arr || arr->empty())
    r.fail(fmt::format("expected {}, got {}", expected, arr ? "an empty array" : describe(n)));
  std::vector<double> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const toml::node& e = *arr->get(i);
    const auto v = e.value<double>();
    if (!v || !(e.is_floating_point() || e.is_integer()) || !std::isfinite(*v))
      r.fail_at(e, fmt::format("expected {}, got {} at index {}", expected, describe(e), i));
    if (positive ? !(*v > 0) : !(*v >= 0))
      r.fail_at(e, fmt::format("entries must be {} 0 (got {} at index {})",
                               positive ? ">" : ">=", *v, i));
    out.push_back(*v);
  }
  return out;
}

// The row of kKeys that reads any pair coefficient ("epsilon", "d0", ...: find_key).
constexpr std::string_view kCoefficientRow = "<coefficient>";
// The row that reads any string key of a pair style ("file", "keyword", "table_style").
constexpr std::string_view kStringRow = "<string key>";

// "epsilon, sigma (lj); ..." for messages.
std::string coefficients_by_style() {
  std::string s;
  for_each_pair_style([&]<class E>() {
    std::string names;
    for (const std::string_view c : E::kCoefficients)
      names += (names.empty() ? "" : ", ") + std::string(c);
    for (const std::string_view c : E::kStrings)
      names += (names.empty() ? "" : ", ") + std::string(c);
    s += fmt::format("{}{} ({})", s.empty() ? "" : "; ", names, E::kName);
  });
  return s;
}

// [[potential.pair]]: an array of tables {types = [i, j], <the style's coefficients>[, cutoff]}.
// Which coefficients the style needs, and their ranges, are checked by PairPotential::make (the
// style may be given after the tables); here: known names, finite numbers, types.
void read_pairs(Deck& d, const Reader& r) {
  const auto* arr = r.node().as_array();
  if (!arr)
    r.fail(
        fmt::format("expected [[potential.pair]] tables (types, the style's coefficients, "
                    "cutoff), got {}",
                    describe(r.node())));
  d.potential.pairs.clear();
  std::vector<std::string> at;
  for (std::size_t k = 0; k < arr->size(); ++k) {
    const toml::node& e = *arr->get(k);
    const auto* t = e.as_table();
    if (!t) r.fail_at(e, fmt::format("entry {}: expected a table, got {}", k, describe(e)));
    const auto entry = [&](std::string_view what) {
      return fmt::format("entry {} ({}): {}", k, r.where(e), what);
    };
    PairCoeffs c;
    bool has_types = false;
    for (const auto& entry_kv : *t) {
      // (named, not a structured binding: clang 14, the fuzz build's compiler, cannot capture
      // those in the lambda below)
      const toml::key& key = entry_kv.first;
      const toml::node& v = entry_kv.second;
      const auto number = [&](bool strictly_positive) {
        const auto x = v.value<double>();
        if (!x || !(v.is_floating_point() || v.is_integer()) || !std::isfinite(*x))
          r.fail_at(v, fmt::format("{}: expected a number, got {}", key.str(), describe(v)));
        if (strictly_positive && !(*x > 0))
          r.fail_at(v, fmt::format("{}: must be > 0 (got {})", key.str(), *x));
        return *x;
      };
      if (key == "types") {
        const auto* ta = v.as_array();
        if (!ta || ta->size() != 2 || !ta->get(0)->is_integer() || !ta->get(1)->is_integer())
          r.fail_at(v, fmt::format("types: expected 2 atom types [i, j], got {}", describe(v)));
        for (int m = 0; m < 2; ++m) {
          const std::int64_t ty = *ta->get(m)->value<std::int64_t>();
          if (ty < 1 || ty > kMaxAtomTypes)
            r.fail_at(v, fmt::format("types: atom types are 1..{} (got {})", kMaxAtomTypes, ty));
          c.types[m] = static_cast<int>(ty);
        }
        has_types = true;
      } else if (key == "cutoff") {
        c.cutoff = number(true);
      } else if (is_pair_coefficient(key.str())) {
        c.values[std::string(key.str())] = number(false);
      } else if (is_pair_string_key(key.str())) {
        if (!v.is_string())
          r.fail_at(v, fmt::format("{}: expected a string, got {}", key.str(), describe(v)));
        c.strings[std::string(key.str())] = *v.value<std::string>();
      } else {
        r.fail_at(v, fmt::format("unknown key '{}' in a [[potential.pair]] table (keys: types, "
                                 "cutoff, and the coefficients of the pair style: {})",
                                 key.str(), coefficients_by_style()));
      }
    }
    if (!has_types) r.fail_at(e, entry("needs types = [i, j]"));
    for (std::size_t m = 0; m < d.potential.pairs.size(); ++m) {
      const auto& o = d.potential.pairs[m].types;
      if ((o[0] == c.types[0] && o[1] == c.types[1]) || (o[0] == c.types[1] && o[1] == c.types[0]))
        r.fail_at(e, fmt::format("types [{}, {}] given twice (also at {})", c.types[0], c.types[1],
                                 at[m]));
    }
    d.potential.pairs.push_back(c);
    at.push_back(r.where(e));
    d.where[fmt::format("potential.pair[{}]", k)] = r.where(e);
  }
}

// The enum value named by the string value.
template <class E>
E one_of(const Reader& r, std::span<const NamedValue<E>> names) {
  const std::string v = r.string();
  if (const std::optional<E> e = value_of<E>(names, v)) return *e;
  r.fail(fmt::format("must be one of {} (got {})", quoted_names<E>(names), quoted_shown(v)));
}

// Index of the string value in `allowed`.
std::size_t one_of(const Reader& r, std::initializer_list<std::string_view> allowed) {
  const std::string v = r.string();
  std::size_t i = 0;
  for (const auto a : allowed) {
    if (v == a) return i;
    ++i;
  }
  std::string list;
  for (const auto a : allowed) list += (list.empty() ? "" : ", ") + toml_quote(a);
  r.fail(fmt::format("must be one of {} (got {})", list, quoted_shown(v)));
}

// ---------------------------------------------------------------------------------------------
// The keys: section, key, whether the value is a string (a --set value that does not parse as a
// TOML string is then taken as written), and how to apply it.

struct KeySpec {
  std::string_view section;
  std::string_view key;
  bool is_string;
  void (*apply)(Deck&, const Reader&);
};

constexpr std::int64_t kMaxSteps = std::int64_t{1} << 53;

// clang-format off
const KeySpec kKeys[] = {
  {"system", "lattice", true, [](Deck& d, const Reader& r) {
     one_of(r, {"fcc"});
     d.system.lattice = "fcc"; }},
  {"system", "density", false, [](Deck& d, const Reader& r) { d.system.density = positive(r); }},
  {"system", "cells", false, [](Deck& d, const Reader& r) {
     d.system.cells = r.int3(1, "an array of 3 positive integers"); }},
  {"system", "temperature", false, [](Deck& d, const Reader& r) {
     d.system.temperature = non_negative(r); }},
  {"system", "seed", false, [](Deck& d, const Reader& r) {
     d.system.seed = static_cast<std::uint64_t>(non_negative_int(r)); }},
  {"system", "mass", false, [](Deck& d, const Reader& r) {
     d.system.mass = numbers(r, "a mass or an array of masses (one per atom type)", true, true);
     if (d.system.mass.size() > static_cast<std::size_t>(kMaxAtomTypes))
       r.fail(fmt::format("{} masses: a run has at most {} atom types", d.system.mass.size(),
                          kMaxAtomTypes)); }},
  {"system", "type_fractions", false, [](Deck& d, const Reader& r) {
     const auto f = numbers(r, "an array of fractions, one per atom type", false, false);
     if (f.size() > static_cast<std::size_t>(kMaxAtomTypes))
       r.fail(fmt::format("{} fractions: a run has at most {} atom types", f.size(),
                          kMaxAtomTypes));
     double sum = 0;
     for (const double x : f) sum += x;
     if (std::abs(sum - 1.0) > 1e-9)
       r.fail(fmt::format("the fractions must sum to 1 (they sum to {:.9g})", sum));
     d.system.type_fractions = f; }},
  {"system", "data_file", true, [](Deck& d, const Reader& r) {
     d.system.data_file = r.string(); }},

  {"region", "style", true, [](Deck& d, const Reader& r) {
     d.region.style = one_of<RegionStyle>(r, kRegionNames); }},
  {"region", "axis", true, [](Deck& d, const Reader& r) {
     d.region.axis = static_cast<int>(one_of(r, {"x", "y", "z"})); }},
  {"region", "lo", false, [](Deck& d, const Reader& r) { d.region.lo = r.real(); }},
  {"region", "hi", false, [](Deck& d, const Reader& r) { d.region.hi = r.real(); }},
  {"region", "center", false, [](Deck& d, const Reader& r) {
     const auto c = numbers(r, "an array of 3 coordinates", false, false);
     if (c.size() != 3) r.fail(fmt::format("expected an array of 3 coordinates, got {}", c.size()));
     d.region.center = {c[0], c[1], c[2]}; }},
  {"region", "radius", false, [](Deck& d, const Reader& r) { d.region.radius = positive(r); }},

  {"potential", "style", true, [](Deck& d, const Reader& r) {
     const std::string v = r.string();
     const std::string_view style = canonical_pair_style(v);
     if (style.empty())
       r.fail(fmt::format("must be one of {} (got {})", pair_style_names(), quoted_shown(v)));
     d.potential.style = std::string(style); }},
  // Every coefficient name of every style (physics/pair/styles.hpp) reads through this row; the
  // run's style checks which it needs (PairPotential::make).
  {"potential", kCoefficientRow, false, [](Deck& d, const Reader& r) {
     d.potential.coeffs[r.key()] = r.real(); }},
  // Every string key of every style (the table style's file, keyword, table_style).
  {"potential", kStringRow, true, [](Deck& d, const Reader& r) {
     d.potential.strings[r.key()] = r.string(); }},
  {"potential", "cutoff", false, [](Deck& d, const Reader& r) { d.potential.cutoff = positive(r); }},
  {"potential", "shift", false, [](Deck& d, const Reader& r) { d.potential.shift = r.boolean(); }},
  {"potential", "tail", false, [](Deck& d, const Reader& r) { d.potential.tail = r.boolean(); }},
  {"potential", "mixing", true, [](Deck& d, const Reader& r) {
     d.potential.mixing = one_of<Mixing>(r, kMixingNames); }},
  {"potential", "pair", false, read_pairs},

  {"neighbor", "skin", false, [](Deck& d, const Reader& r) { d.neighbor.skin = non_negative(r); }},

  {"run", "dt", false, [](Deck& d, const Reader& r) { d.run.dt = positive(r); }},
  {"run", "steps", false, [](Deck& d, const Reader& r) {
     const std::int64_t n = non_negative_int(r);
     // The time of step n is n·dt in double precision: beyond 2^53 consecutive steps share one
     // time, and no run gets near it (2^53 steps at a million steps per second: 285 years).
     if (n > kMaxSteps)
       r.fail(fmt::format("must be at most 2^53 = {} (got {}): the time of step n, n·run.dt, "
                          "is a double, exact only up to 2^53 steps; no run reaches that many "
                          "(at a million steps per second: 285 years)", kMaxSteps, n));
     d.run.steps = n; }},
  {"run", "backend", true, [](Deck& d, const Reader& r) {
     d.run.backend = one_of<Backend>(r, kBackendNames); }},

  {"decomposition", "method", true, [](Deck& d, const Reader& r) {
     d.decomposition.method = one_of<Method>(r, kMethodNames); }},
  {"decomposition", "grid", false, [](Deck& d, const Reader& r) {
     // 0 entries are chosen, non-zero ones kept ([2, 0, 0]: two boxes along x, the rest chosen).
     d.decomposition.grid = r.int3(0, "an array of 3 non-negative integers"); }},
  {"decomposition", "balance", true, [](Deck& d, const Reader& r) {
     d.decomposition.balance = one_of<Balance>(r, kBalanceNames); }},
  {"decomposition", "balance_every", false, [](Deck& d, const Reader& r) {
     d.decomposition.balance_every = non_negative_int(r); }},
  {"decomposition", "balance_tolerance", false, [](Deck& d, const Reader& r) {
     const double t = r.real();
     if (!(t >= 1.0)) r.fail(fmt::format("must be >= 1 (a max/mean ratio; got {})", t));
     d.decomposition.balance_tolerance = t; }},

  {"thermostat", "style", true, [](Deck& d, const Reader& r) {
     d.thermostat.style = one_of<ThermostatStyle>(r, kThermostatNames); }},
  {"thermostat", "temperature", false, [](Deck& d, const Reader& r) {
     d.thermostat.temperature = non_negative(r); }},
  {"thermostat", "damping", false, [](Deck& d, const Reader& r) {
     d.thermostat.damping = positive(r); }},
  {"thermostat", "seed", false, [](Deck& d, const Reader& r) {
     d.thermostat.seed = static_cast<std::uint64_t>(non_negative_int(r)); }},
  {"thermostat", "chain", false, [](Deck& d, const Reader& r) {
     const std::int64_t c = r.integer();
     if (c < 1 || c > 32) r.fail(fmt::format("must be 1..32 (got {})", c));
     d.thermostat.chain = static_cast<int>(c); }},

  {"output", "thermo_every", false, [](Deck& d, const Reader& r) {
     d.output.thermo_every = non_negative_int(r); }},
  {"output", "trajectory", true, [](Deck& d, const Reader& r) { d.output.trajectory = r.string(); }},
  {"output", "trajectory_every", false, [](Deck& d, const Reader& r) {
     d.output.trajectory_every = non_negative_int(r); }},
  {"output", "trajectory_force", false, [](Deck& d, const Reader& r) {
     d.output.trajectory_force = r.boolean(); }},
  {"output", "checkpoint", true, [](Deck& d, const Reader& r) { d.output.checkpoint = r.string(); }},
  {"output", "checkpoint_every", false, [](Deck& d, const Reader& r) {
     d.output.checkpoint_every = non_negative_int(r); }},
  {"output", "overwrite", false, [](Deck& d, const Reader& r) { d.output.overwrite = r.boolean(); }},
  {"output", "imports", true, [](Deck& d, const Reader& r) { d.output.imports = r.string(); }},
  {"output", "data_file", true, [](Deck& d, const Reader& r) { d.output.data_file = r.string(); }},
};
// clang-format on

constexpr std::string_view kSections[] = {"system", "region",        "neighbor",   "potential",
                                          "run",    "decomposition", "thermostat", "output"};

std::string full_name(const KeySpec& k) {
  return fmt::format("{}.{}", k.section, k.key);
}

// Index into kKeys of "section.key", or -1. A pair coefficient of any style is a [potential] key.
int find_key(std::string_view section, std::string_view key) {
  if (section == "potential" && is_pair_coefficient(key)) key = kCoefficientRow;
  if (section == "potential" && is_pair_string_key(key)) key = kStringRow;
  for (std::size_t i = 0; i < std::size(kKeys); ++i) {
    if (kKeys[i].section == section && kKeys[i].key == key) return static_cast<int>(i);
  }
  return -1;
}

bool is_section(std::string_view s) {
  return std::find(std::begin(kSections), std::end(kSections), s) != std::end(kSections);
}

std::string unknown_key_message(std::string_view name) {
  std::vector<std::string> all;
  for (const auto& k : kKeys)
    if (k.key != kCoefficientRow && k.key != kStringRow) all.push_back(full_name(k));
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
    for (const auto& k : kKeys) {
      if (k.section == section && k.key != kCoefficientRow && k.key != kStringRow)
        keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k.key);
    }
    if (section == "potential")
      keys += ", and the coefficients of the pair style: " + coefficients_by_style();
    if (!keys.empty()) msg += fmt::format(" (keys of [{}]: {})", section, keys);
  }
  return msg;
}

std::string unknown_section_message(std::string_view name) {
  std::vector<std::string> sections(std::begin(kSections), std::end(kSections));
  std::string msg = fmt::format("unknown section '{}'", shown(name));
  if (const auto s = closest(name, sections); !s.empty()) {
    msg += fmt::format("; did you mean '{}'?", s);
  } else {
    msg += " (sections: system, potential, neighbor, run, decomposition, thermostat, output)";
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
  Reader(file, *blame).fail(what);
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
  Reader(file, *blame).fail(what);
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
    Reader(file, *blame).fail(what);
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

// [region]: keys of its style only; a slab within the box along its axis with lo < hi, a sphere
// inside the box; at least one lattice site inside; lattice sites at least 0.5σ apart.
void check_region(const Deck& deck, const std::vector<Item>& items, const std::string& file) {
  auto item = [&](std::string_view name) -> const Item* {
    for (const auto& it : items)
      if (it.name == name) return &it;
    return nullptr;
  };
  auto fail = [&](std::string_view name, const std::string& what) {
    if (const Item* it = item(name)) Reader(file, *it).fail(what);
    throw DeckError(fmt::format("{}: {}: {}", file, name, what));
  };
  const RegionSection& g = deck.region;
  const std::string_view style = name_of<RegionStyle>(kRegionNames, g.style);
  const bool slab = g.style == RegionStyle::Slab, sphere = g.style == RegionStyle::Sphere;
  for (const auto& [name, used] : {std::pair<std::string_view, bool>{"region.axis", slab},
                                   {"region.lo", slab},
                                   {"region.hi", slab},
                                   {"region.center", sphere},
                                   {"region.radius", sphere}})
    if (!used && item(name))
      fail(name, fmt::format("is not used with region.style = \"{}\"", style));
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
  s += "\n\n[system]\n";
  s += fmt::format("lattice = {}\n", toml_quote(system.lattice));
  s += fmt::format("density = {}\n", toml_float(system.density));
  s += fmt::format("cells = {}\n", toml_int3(system.cells));
  s += fmt::format("temperature = {}\n", toml_float(system.temperature));
  s += fmt::format("seed = {}\n", system.seed);
  if (system.mass.size() == 1) {
    s += fmt::format("mass = {}\n", toml_float(system.mass[0]));
  } else {
    s += fmt::format("mass = {}\n", toml_floats(system.mass));
  }
  if (!system.type_fractions.empty())
    s += fmt::format("type_fractions = {}\n", toml_floats(system.type_fractions));
  s += fmt::format("data_file = {}\n", toml_quote(system.data_file));
  if (region.style != RegionStyle::Box) {  // only its style's keys (others are errors)
    s += "\n[region]\n";
    s += fmt::format("style = {}\n", toml_quote(name_of<RegionStyle>(kRegionNames, region.style)));
    if (region.style == RegionStyle::Slab) {
      s += fmt::format("axis = \"{}\"\n", "xyz"[region.axis]);
      s += fmt::format("lo = {}\n", toml_float(region.lo));
      s += fmt::format("hi = {}\n", toml_float(region.hi));
    } else {
      s += fmt::format("center = {}\n",
                       toml_floats({region.center[0], region.center[1], region.center[2]}));
      s += fmt::format("radius = {}\n", toml_float(region.radius));
    }
  }
  s += "\n[potential]\n";
  s += fmt::format("style = {}\n", toml_quote(potential.style));
  {
    // The one pair's coefficients (with a pair table they are not used: an error if given) and
    // the style-level keys, defaults written out.
    std::vector<std::string_view> names = pair_style_globals(potential.style);
    if (potential.pairs.empty()) {
      const std::vector<std::string_view> per_pair = pair_style_coefficients(potential.style);
      names.insert(names.begin(), per_pair.begin(), per_pair.end());
    }
    CoefficientValues one = potential.coeffs;
    for (const std::string_view name : names) {
      const double d = pair_coefficient_default(potential.style, name);
      if (!std::isnan(d)) one.try_emplace(std::string(name), d);
    }
    for (const std::string_view name : names)
      if (const auto it = one.find(name); it != one.end())
        s += fmt::format("{} = {}\n", name, toml_float(it->second));
    // The string keys: style-level ones always (defaults written out), the one pair's with no
    // pair table.
    std::vector<std::string_view> strings = pair_style_string_globals(potential.style);
    if (potential.pairs.empty()) {
      const std::vector<std::string_view> per_pair = pair_style_strings(potential.style);
      strings.insert(strings.begin(), per_pair.begin(), per_pair.end());
    }
    for (const std::string_view name : strings) {
      const auto it = potential.strings.find(name);
      const std::string_view d = pair_string_default(potential.style, name);
      if (it != potential.strings.end())
        s += fmt::format("{} = {}\n", name, toml_quote(it->second));
      else if (!d.empty())
        s += fmt::format("{} = {}\n", name, toml_quote(d));
    }
  }
  s += fmt::format("cutoff = {}\n", toml_float(potential.cutoff));
  s += fmt::format("shift = {}\n", toml_bool(potential.shift));
  s += fmt::format("tail = {}\n", toml_bool(potential.tail));
  s += fmt::format("mixing = {}\n", toml_quote(name_of<Mixing>(kMixingNames, potential.mixing)));
  for (const PairCoeffs& c : potential.pairs) {
    s += fmt::format("\n[[potential.pair]]\ntypes = [{}, {}]\n", c.types[0], c.types[1]);
    for (const auto& [name, value] : c.values)
      s += fmt::format("{} = {}\n", name, toml_float(value));
    for (const auto& [name, value] : c.strings)
      s += fmt::format("{} = {}\n", name, toml_quote(value));
    if (c.cutoff) s += fmt::format("cutoff = {}\n", toml_float(*c.cutoff));
  }
  s += "\n[neighbor]\n";
  s += fmt::format("skin = {}\n", toml_float(neighbor.skin));
  s += "\n[run]\n";
  s += fmt::format("dt = {}\n", toml_float(run.dt));
  s += fmt::format("steps = {}\n", run.steps);
  s += fmt::format("backend = {}\n", toml_quote(backend_name(run.backend)));
  s += "\n[decomposition]\n";
  s += fmt::format("method = {}\n", toml_quote(method_name(decomposition.method)));
  s += fmt::format("grid = {}\n", toml_int3(decomposition.grid));
  s += fmt::format("balance = {}\n",
                   toml_quote(name_of<Balance>(kBalanceNames, decomposition.balance)));
  s += fmt::format("balance_every = {}\n", decomposition.balance_every);
  s += fmt::format("balance_tolerance = {}\n", toml_float(decomposition.balance_tolerance));
  s += "\n[thermostat]\n";
  s += fmt::format("style = {}\n",
                   toml_quote(name_of<ThermostatStyle>(kThermostatNames, thermostat.style)));
  s += fmt::format("temperature = {}\n", toml_float(thermostat.temperature));
  s += fmt::format("damping = {}\n", toml_float(thermostat.damping));
  s += fmt::format("seed = {}\n", thermostat.seed);
  s += fmt::format("chain = {}\n", thermostat.chain);
  s += "\n[output]\n";
  s += fmt::format("thermo_every = {}\n", output.thermo_every);
  s += fmt::format("trajectory = {}\n", toml_quote(output.trajectory));
  s += fmt::format("trajectory_every = {}\n", output.trajectory_every);
  s += fmt::format("trajectory_force = {}\n", toml_bool(output.trajectory_force));
  s += fmt::format("checkpoint = {}\n", toml_quote(output.checkpoint));
  s += fmt::format("checkpoint_every = {}\n", output.checkpoint_every);
  s += fmt::format("overwrite = {}\n", toml_bool(output.overwrite));
  s += fmt::format("imports = {}\n", toml_quote(output.imports));
  s += fmt::format("data_file = {}\n", toml_quote(output.data_file));
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
                         !(kKeys[spec].is_string && !v.table.get("v")->is_string());
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
    const Reader r(path, it);
    kKeys[it.spec].apply(deck, r);
    deck.where[it.name] = r.where(*it.node);
  }
  if (!deck.potential.pairs.empty()) {
    std::vector<std::string_view> globals = pair_style_globals(deck.potential.style);
    for (const std::string_view g : pair_style_string_globals(deck.potential.style))
      globals.push_back(g);
    for (const auto& it : items)
      if ((kKeys[it.spec].key == kCoefficientRow || kKeys[it.spec].key == kStringRow) &&
          std::find(globals.begin(), globals.end(), Reader(path, it).key()) == globals.end())
        Reader(path, it).fail(
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
  // A data file brings its own box and types: checked by the run once the file is read.
  if (deck.system.data_file.empty()) {
    check_species(deck);
    check_box(deck, items, path);
    check_region(deck, items, path);
  } else {
    for (const auto& it : items)
      if (it.name.starts_with("region."))
        Reader(path, it).fail("is for lattice starts: system.data_file brings its own positions");
  }
  check_run_time(deck, items, path);
  check_thermostat(deck, items, path);
  return deck;
}

void check_species(const Deck& deck, const std::string& types_from,
                   const std::string& masses_from) {
  try {
    // The style's own checks of its coefficients run in make_species; then run.dt against the
    // style's time unit of every pair (a longer step carries particles through the repulsive
    // core in one step: the run can only end in overlapping particles or non-finite positions).
    const Species s = make_species(deck);
    s.pair.check_time_step(deck.run.dt, s.mass);
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
