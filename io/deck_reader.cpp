// Reading one deck key from its TOML node, and writing values back as TOML text (see
// deck_reader.hpp).
#include "io/deck_reader.hpp"

#include <climits>
#include <cmath>

#include "engine/config.hpp"
#include "physics/pair/pair_potential.hpp"

namespace scanmd::io {

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

std::string KeyReader::where(const toml::node& n) const {
  if (!item_.set.empty()) return item_.set;
  const auto& b = n.source().begin;
  return fmt::format("{}:{}:{}", file_, b.line, b.column);
}

double KeyReader::real() const {
  const auto v = node().value<double>();  // integers convert (density = 1 is fine)
  if (!v || !(node().is_floating_point() || node().is_integer())) {
    fail(fmt::format("expected a number, got {}", describe(node())));
  }
  if (!std::isfinite(*v)) fail(fmt::format("must be a finite number (got {})", *v));
  return *v;
}

std::int64_t KeyReader::integer() const {
  if (!node().is_integer()) fail(fmt::format("expected an integer, got {}", describe(node())));
  return *node().value<std::int64_t>();
}

bool KeyReader::boolean() const {
  if (!node().is_boolean()) {
    fail(fmt::format("expected a boolean (true or false), got {}", describe(node())));
  }
  return *node().value<bool>();
}

std::string KeyReader::string() const {
  if (!node().is_string()) fail(fmt::format("expected a string, got {}", describe(node())));
  return *node().value<std::string>();
}

std::array<int, 3> KeyReader::int3(std::int64_t min, std::string_view expected) const {
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

double positive(const KeyReader& r) {
  const double v = r.real();
  if (!(v > 0)) r.fail(fmt::format("must be > 0 (got {})", v));
  return v;
}

double non_negative(const KeyReader& r) {
  const double v = r.real();
  if (!(v >= 0)) r.fail(fmt::format("must be >= 0 (got {})", v));
  return v;
}

std::int64_t non_negative_int(const KeyReader& r) {
  const std::int64_t v = r.integer();
  if (v < 0) r.fail(fmt::format("must be >= 0 (got {})", v));
  return v;
}

// An array of numbers (or, with `scalar_ok`, one number: a one-element list), each > 0 when
// `positive` else >= 0.
std::vector<double> numbers(const KeyReader& r, std::string_view expected, bool positive,
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
void read_pairs(Deck& d, const KeyReader& r) {
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

// Index of the string value in `allowed`.
std::size_t one_of(const KeyReader& r, std::span<const std::string_view> allowed) {
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

}  // namespace scanmd::io
