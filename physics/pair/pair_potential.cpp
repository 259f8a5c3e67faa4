// The pair potential of a run (see pair_potential.hpp).
#include "physics/pair/pair_potential.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <variant>

#include <fmt/format.h>

namespace scanmd {

namespace {

std::string pair_name(int i, int j) {
  return fmt::format("[{}, {}]", i, j);
}

std::size_t index_of_pair(int i, int j, int types) {
  return static_cast<std::size_t>(i * types + j);
}

template <class E>
bool names_style(std::string_view name) {
  if (name == E::kName) return true;
  for (const std::string_view a : E::kAliases)
    if (name == a) return true;
  return false;
}

// f.template operator()<E>() for the style named `name`; false when none is.
template <class F>
bool with_style(std::string_view name, F&& f) {
  bool found = false;
  for_each_pair_style([&]<class E>() {
    if (!found && names_style<E>(name)) {
      found = true;
      f.template operator()<E>();
    }
  });
  return found;
}

template <class E>
std::vector<std::string_view> names_of() {
  return {E::kCoefficients.begin(), E::kCoefficients.end()};
}

std::string joined(const std::vector<std::string_view>& names) {
  std::string s;
  for (const auto n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

double mix_distance(Mixing m, double a, double b) {
  return m == Mixing::Arithmetic ? 0.5 * (a + b) : std::sqrt(a * b);
}

// The pair tables of style E from the resolved coefficients. A tabulated style's blocks (one
// per unordered pair of types) go into one shared array; `blame(name, i, j)` is the deck key of
// a key the style cannot use.
template <class E, class Blame>
PairTables tables_of(const std::vector<Coefficients>& coeffs, const std::vector<double>& cutoffs,
                     const std::vector<StringValues>& strings, const std::string& base_dir,
                     int types, bool shift, MotionConstants motion, Blame&& blame) {
  StyleTable<E> t;
  t.types = static_cast<std::uint32_t>(types);
  if constexpr (TabulatedStyle<E>) {
    const std::size_t T = static_cast<std::size_t>(types);
    std::vector<double> all;
    std::vector<std::size_t> offset(coeffs.size(), 0);
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = i; j < T; ++j) {
        const std::size_t ij = i * T + j, ji = j * T + i;
        auto block = E::tabulate(coeffs[ij], strings[ij], cutoffs[ij], base_dir);
        if (const auto* problem = std::get_if<StyleKeyProblem>(&block))
          throw SpeciesError(blame(problem->key, static_cast<int>(i), static_cast<int>(j)),
                             problem->why);
        const auto& values = std::get<std::vector<double>>(block);
        offset[ij] = offset[ji] = all.size();
        all.insert(all.end(), values.begin(), values.end());
      }
    auto data = std::make_shared<const std::vector<double>>(std::move(all));
    for (std::size_t k = 0; k < coeffs.size(); ++k)
      t.params.push_back(
          E::make(coeffs[k], cutoffs[k], shift && E::kShift, data->data() + offset[k]));
    t.data = std::move(data);
  } else {
    for (std::size_t k = 0; k < coeffs.size(); ++k) {
      if constexpr (MotionStyle<E>)
        t.params.push_back(E::make(coeffs[k], cutoffs[k], shift && E::kShift, motion));
      else
        t.params.push_back(E::make(coeffs[k], cutoffs[k], shift && E::kShift));
    }
  }
  return t;
}

}  // namespace

std::string_view canonical_pair_style(std::string_view name) {
  std::string_view out;
  with_style(name, [&]<class E>() { out = E::kName; });
  return out;
}

std::string pair_style_names() {
  std::vector<std::string_view> names;
  for_each_pair_style([&]<class E>() {
    names.push_back(E::kName);
    for (const std::string_view a : E::kAliases) names.push_back(a);
  });
  std::string s;
  for (const std::string_view n : names) {
    if (!s.empty()) s += ", ";
    s += '"';
    s.append(n);
    s += '"';
  }
  return s;
}

std::string mixed_pair_style_names() {
  std::string s;
  for_each_pair_style([&]<class E>() {
    if constexpr (kHasMixed<E>) {
      s += (s.empty() ? "\"" : ", \"") + std::string(E::kName) + '"';
      for (const std::string_view a : E::kAliases) s += ", \"" + std::string(a) + '"';
    }
  });
  return s;
}

std::vector<std::string_view> pair_style_coefficients(std::string_view style) {
  std::vector<std::string_view> out;
  with_style(style, [&]<class E>() { out = names_of<E>(); });
  return out;
}

bool is_pair_coefficient(std::string_view name) {
  bool found = false;
  for_each_pair_style([&]<class E>() {
    for (const std::string_view n : E::kCoefficients) found = found || n == name;
    for (const std::string_view n : E::kGlobals) found = found || n == name;
  });
  return found;
}

std::vector<std::string_view> pair_style_globals(std::string_view style) {
  std::vector<std::string_view> out;
  with_style(style, [&]<class E>() { out.assign(E::kGlobals.begin(), E::kGlobals.end()); });
  return out;
}

std::vector<std::string_view> pair_style_strings(std::string_view style) {
  std::vector<std::string_view> out;
  with_style(style, [&]<class E>() { out.assign(E::kStrings.begin(), E::kStrings.end()); });
  return out;
}

std::vector<std::string_view> pair_style_string_globals(std::string_view style) {
  std::vector<std::string_view> out;
  with_style(style,
             [&]<class E>() { out.assign(E::kStringGlobals.begin(), E::kStringGlobals.end()); });
  return out;
}

bool is_pair_string_key(std::string_view name) {
  bool found = false;
  for_each_pair_style([&]<class E>() {
    for (const std::string_view n : E::kStrings) found = found || n == name;
    for (const std::string_view n : E::kStringGlobals) found = found || n == name;
  });
  return found;
}

std::string_view pair_string_default(std::string_view style, std::string_view name) {
  std::string_view out;
  with_style(style, [&]<class E>() {
    for (std::size_t g = 0; g < E::kStringGlobals.size(); ++g)
      if (E::kStringGlobals[g] == name) out = E::kStringGlobalDefaults[g];
  });
  return out;
}

double pair_coefficient_default(std::string_view style, std::string_view name) {
  double out = kRequired;
  with_style(style, [&]<class E>() {
    for (std::size_t k = 0; k < E::kCoefficients.size(); ++k)
      if (E::kCoefficients[k] == name) out = E::kDefaults[k];
    for (std::size_t g = 0; g < E::kGlobals.size(); ++g)
      if (E::kGlobals[g] == name) out = E::kGlobalDefaults[g];
  });
  return out;
}

bool pair_style_shifts(std::string_view style) {
  bool out = false;
  with_style(style, [&]<class E>() { out = E::kShift; });
  return out;
}
bool pair_style_has_tail(std::string_view style) {
  bool out = false;
  with_style(style, [&]<class E>() { out = E::kTail; });
  return out;
}
bool pair_style_mixes(std::string_view style) {
  bool out = false;
  with_style(style, [&]<class E>() { out = E::kMixing; });
  return out;
}

bool pair_style_reads_motion(std::string_view style) {
  bool out = false;
  with_style(style, [&]<class E>() { out = MotionStyle<E>; });
  return out;
}

std::string PairPotential::key_of(int ti, int tj, std::string_view name) const {
  if (one_species_) return fmt::format("potential.{}", name);
  const int k = listed_[index(ti, tj)];
  return k >= 0 ? fmt::format("potential.pair[{}]", k) : std::string("potential.pair");
}

PairPotential PairPotential::make(const PotentialSection& pot, int T) {
  PairPotential s;
  s.types_ = T;
  s.one_species_ = pot.pairs.empty();
  std::vector<std::string_view> globals, string_keys, string_globals;
  std::vector<CoefficientDomain> domains;
  bool known = with_style(pot.style, [&]<class E>() {
    s.style_ = std::string(E::kName);
    s.names_ = names_of<E>();
    globals.assign(E::kGlobals.begin(), E::kGlobals.end());
    string_keys.assign(E::kStrings.begin(), E::kStrings.end());
    string_globals.assign(E::kStringGlobals.begin(), E::kStringGlobals.end());
    domains.assign(E::kDomains.begin(), E::kDomains.end());
    domains.insert(domains.end(), E::kGlobalDomains.begin(), E::kGlobalDomains.end());
  });
  if (!known)
    throw SpeciesError("potential.style", fmt::format("unknown pair style \"{}\" (styles: {})",
                                                      pot.style, pair_style_names()));
  with_style(s.style_, [&]<class E>() {
    if (pot.mixed && !kHasMixed<E>)
      throw SpeciesError("run.precision",
                         fmt::format("run.precision = \"mixed\" supports pair styles {}; style "
                                     "\"{}\" is double only",
                                     mixed_pair_style_names(), s.style_));
  });
  s.mixed_ = pot.mixed;
  const std::vector<std::string_view>& names = s.names_;
  const std::size_t n_coeffs = names.size();
  auto index_of = [&](std::string_view name) -> int {
    for (std::size_t k = 0; k < n_coeffs; ++k)
      if (names[k] == name) return static_cast<int>(k);
    return -1;
  };
  auto is_global = [&](std::string_view name) {
    return std::find(globals.begin(), globals.end(), name) != globals.end();
  };
  // A value of coefficient k (per pair, or global at n_coeffs + g) in the style's domain.
  auto in_domain = [&](std::size_t k, double v, const std::string& key, const std::string& where,
                       std::string_view name, bool keyed_by_name) {
    const CoefficientDomain domain = domains[k];
    const bool ok = domain == CoefficientDomain::Positive      ? v > 0.0
                    : domain == CoefficientDomain::NonNegative ? v >= 0.0
                                                               : true;
    if (!ok || !std::isfinite(v))
      throw SpeciesError(key, fmt::format("{}{}must be {} (got {})", where,
                                          keyed_by_name ? "" : std::string(name) + " ",
                                          domain == CoefficientDomain::Positive      ? "> 0"
                                          : domain == CoefficientDomain::NonNegative ? ">= 0"
                                                                                     : "finite",
                                          v));
  };
  std::vector<std::string_view> all_globals = globals;  // for messages
  all_globals.insert(all_globals.end(), string_globals.begin(), string_globals.end());
  // The style-level keys, from [potential] whatever the tables.
  Coefficients global_values{};
  for (std::size_t g = 0; g < globals.size(); ++g) {
    const std::string key = fmt::format("potential.{}", globals[g]);
    const auto it = pot.coeffs.find(globals[g]);
    const double v =
        it != pot.coeffs.end() ? it->second : pair_coefficient_default(s.style_, globals[g]);
    if (std::isnan(v))
      throw SpeciesError("potential.style",
                         fmt::format("pair style \"{}\" needs {} (its style-level keys: {})",
                                     s.style_, key, joined(all_globals)));
    in_domain(n_coeffs + g, v, key, "", globals[g], true);
    global_values[n_coeffs + g] = v;
  }
  // The style-level string keys, from [potential]; and no string key of another style there.
  auto has = [](const std::vector<std::string_view>& v, std::string_view name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  StringValues global_strings;
  for (const std::string_view g : string_globals) {
    const auto it = pot.strings.find(g);
    const std::string v =
        it != pot.strings.end() ? it->second : std::string(pair_string_default(s.style_, g));
    if (v.empty())
      throw SpeciesError(
          it != pot.strings.end() ? fmt::format("potential.{}", g) : std::string("potential.style"),
          fmt::format("pair style \"{}\" needs potential.{} (its style-level "
                      "keys: {})",
                      s.style_, g, joined(all_globals)));
    global_strings[std::string(g)] = v;
  }
  for (const auto& [name, value] : pot.strings) {
    if (has(string_globals, name)) continue;
    if (!has(string_keys, name))
      throw SpeciesError(fmt::format("potential.{}", name),
                         fmt::format("{} is not a key of pair style \"{}\"", name, s.style_));
    if (!pot.pairs.empty())
      throw SpeciesError(fmt::format("potential.{}", name),
                         "is not used when [[potential.pair]] tables are given: give it per pair");
  }
  // The string keys of a deck entry with the style-level ones; `key` is blamed.
  auto read_strings = [&](const StringValues& values, const std::string& key, bool one,
                          const std::string& where) {
    StringValues out = global_strings;
    for (const auto& [name, value] : values) {
      if (has(string_globals, name) && !one)
        throw SpeciesError(key, fmt::format("{} is a key of the whole pair style \"{}\": give it "
                                            "in [potential], not per pair",
                                            name, s.style_));
      if (!has(string_keys, name) && !has(string_globals, name))
        throw SpeciesError(
            key, fmt::format("{}{} is not a key of pair style \"{}\"", where, name, s.style_));
      if (has(string_keys, name)) out[name] = value;
    }
    for (const std::string_view name : string_keys)
      if (!values.contains(name))
        throw SpeciesError(
            one ? std::string("potential.style") : key,
            fmt::format("{}pair style \"{}\" needs {} (its keys: {}, cutoff)", where, s.style_,
                        one ? "potential." + std::string(name) : std::string(name),
                        joined(string_keys)));
    return out;
  };

  // "epsilon, sigma, " / "file, keyword, ": the per-pair keys before the cutoff, for messages.
  std::string per_pair_keys;
  for (const std::string_view n : names) per_pair_keys += std::string(n) + ", ";
  for (const std::string_view n : string_keys) per_pair_keys += std::string(n) + ", ";

  // The coefficients of a deck entry in the style's order; `key` is blamed for what is wrong.
  auto read = [&](const CoefficientValues& values, const std::string& key, bool defaults,
                  const std::string& where) {
    Coefficients c = global_values;
    for (const auto& [name, value] : values) {
      if (is_global(name) && !defaults)
        throw SpeciesError(key, fmt::format("{} is a key of the whole pair style \"{}\": give it "
                                            "in [potential], not per pair",
                                            name, s.style_));
      if (index_of(name) < 0 && !is_global(name))
        throw SpeciesError(
            defaults ? fmt::format("potential.{}", name) : key,
            fmt::format("{} is not a coefficient of pair style \"{}\" (its "
                        "{}: {}cutoff)",
                        name, s.style_, names.empty() ? "keys" : "coefficients", per_pair_keys));
    }
    for (std::size_t k = 0; k < n_coeffs; ++k) {
      const auto it = values.find(names[k]);
      const double d = defaults ? pair_coefficient_default(s.style_, names[k]) : kRequired;
      if (it == values.end() && std::isnan(d))
        throw SpeciesError(
            defaults ? std::string("potential.style") : key,
            fmt::format("{}pair style \"{}\" needs {} (its coefficients: {}, cutoff)", where,
                        s.style_,
                        defaults ? "potential." + std::string(names[k]) : std::string(names[k]),
                        joined(names)));
      c[k] = it != values.end() ? it->second : d;
      // The style's domain of the coefficient (one species: the key names it).
      in_domain(k, c[k], defaults ? fmt::format("potential.{}", names[k]) : key, where, names[k],
                defaults);
    }
    return c;
  };

  const std::size_t TT = static_cast<std::size_t>(T) * static_cast<std::size_t>(T);
  std::vector<std::optional<Coefficients>> given(TT);
  std::vector<double> cut(TT, 0.0);
  std::vector<StringValues> strings(TT);
  s.listed_.assign(TT, -1);
  s.own_cutoff_.assign(TT, false);
  // The style's check of the coefficients of pair (i, j), blaming the key of what it refuses.
  auto check = [&](const Coefficients& c, double cutoff, int i, int j) {
    with_style(s.style_, [&]<class E>() {
      const std::string types =
          T == 1 ? std::string() : fmt::format(" (types {}-{})", i + 1, j + 1);
      if (const auto problem = E::check(c, cutoff, types)) {
        const std::size_t k = static_cast<std::size_t>(problem->coefficient);
        const bool global = problem->coefficient != kCutoffIndex && k >= n_coeffs;
        const std::string name = problem->coefficient == kCutoffIndex ? std::string("cutoff")
                                 : global ? std::string(globals[k - n_coeffs])
                                          : std::string(names[k]);
        std::string key = global ? fmt::format("potential.{}", name) : s.key_of(i, j, name);
        if (s.one_species_ && problem->coefficient == kCutoffIndex) key = "potential.cutoff";
        throw SpeciesError(key, problem->why);
      }
    });
  };

  if (pot.pairs.empty()) {
    // Several types with one set of coefficients is more likely a forgotten table than meant.
    if (T > 1)
      throw SpeciesError("potential.pair",
                         fmt::format("no coefficients for types [2, 2] and the other pairs of {} "
                                     "atom types: list them as [[potential.pair]] tables "
                                     "(types = [i, j], {}, cutoff)",
                                     T, joined(names)));
    given[0] = read(pot.coeffs, "potential", true, "");
    strings[0] = read_strings(pot.strings, "potential", true, "");
    cut[0] = pot.cutoff;
    check(*given[0], cut[0], 0, 0);
  }
  for (std::size_t k = 0; k < pot.pairs.size(); ++k) {
    const PairCoeffs& c = pot.pairs[k];
    const std::string key = fmt::format("potential.pair[{}]", k);
    for (const int t : c.types)
      if (t < 1 || t > T)
        throw SpeciesError(key, fmt::format("types {}: type {} does not exist (types are 1..{})",
                                            pair_name(c.types[0], c.types[1]), t, T));
    const int i = c.types[0] - 1, j = c.types[1] - 1;
    const Coefficients values =
        read(c.values, key, false, fmt::format("types {}: ", pair_name(c.types[0], c.types[1])));
    if (given[index_of_pair(i, j, T)])
      throw SpeciesError(
          key, fmt::format("types {} are given twice", pair_name(c.types[0], c.types[1])));
    const std::size_t ij = index_of_pair(i, j, T), ji = index_of_pair(j, i, T);
    given[ij] = given[ji] = values;
    strings[ij] = strings[ji] = read_strings(
        c.strings, key, false, fmt::format("types {}: ", pair_name(c.types[0], c.types[1])));
    cut[ij] = cut[ji] = c.cutoff.value_or(pot.cutoff);
    s.listed_[ij] = s.listed_[ji] = static_cast<int>(k);
    s.own_cutoff_[ij] = s.own_cutoff_[ji] = c.cutoff.has_value();
    check(values, cut[ij], i, j);
  }
  for (int i = 0; i < T; ++i)
    if (!given[index_of_pair(i, i, T)])
      throw SpeciesError(
          "potential.pair",
          fmt::format("no coefficients for types {} (every like pair is listed: "
                      "add [[potential.pair]] types = {}, {})",
                      pair_name(i + 1, i + 1), pair_name(i + 1, i + 1), joined(names)));
  for (int i = 0; i < T; ++i)
    for (int j = i + 1; j < T; ++j) {
      const std::size_t ij = index_of_pair(i, j, T), ji = index_of_pair(j, i, T);
      if (given[ij]) continue;
      if (pot.mixing == Mixing::None)
        throw SpeciesError("potential.pair",
                           fmt::format("no coefficients for types {} (potential.mixing = \"none\" "
                                       "needs every pair listed)",
                                       pair_name(i + 1, j + 1)));
      if (!pair_style_mixes(s.style_))
        throw SpeciesError("potential.pair",
                           fmt::format("no coefficients for types {} (pair style \"{}\" has no "
                                       "mixing rule: list every pair)",
                                       pair_name(i + 1, j + 1), s.style_));
      const Coefficients& a = *given[index_of_pair(i, i, T)];
      const Coefficients& b = *given[index_of_pair(j, j, T)];
      with_style(s.style_, [&]<class E>() {
        if constexpr (E::kMixing) {
          Coefficients m = E::mix(pot.mixing, a, b);
          for (std::size_t k = n_coeffs; k < kMaxCoefficients; ++k) m[k] = global_values[k];
          given[ij] = given[ji] = m;
        }
      });
      cut[ij] = cut[ji] =
          mix_distance(pot.mixing, cut[index_of_pair(i, i, T)], cut[index_of_pair(j, j, T)]);
      check(*given[ij], cut[ij], i, j);
    }
  for (std::size_t k = 0; k < TT; ++k) {
    s.coeffs_.push_back(*given[k]);
    s.cutoffs_.push_back(cut[k]);
    s.max_cutoff_ = std::max(s.max_cutoff_, cut[k]);
  }
  // The deck key of a key a tabulated style cannot use, for the pair of types i, j.
  auto blame = [&](const std::string& name, int i, int j) {
    if (has(globals, name) || has(string_globals, name)) return fmt::format("potential.{}", name);
    if (name == "cutoff" && (s.one_species_ || !s.own_cutoff_[index_of_pair(i, j, T)]))
      return std::string("potential.cutoff");
    return s.key_of(i, j, name);
  };
  with_style(s.style_, [&]<class E>() {
    if constexpr (kHasMixed<E>)
      if (pot.mixed) {
        s.tables_ = tables_of<Mixed<E>>(s.coeffs_, s.cutoffs_, strings, pot.base_dir, T, pot.shift,
                                        MotionConstants{pot.dt, pot.boltz}, blame);
        return;
      }
    s.tables_ = tables_of<E>(s.coeffs_, s.cutoffs_, strings, pot.base_dir, T, pot.shift,
                             MotionConstants{pot.dt, pot.boltz}, blame);
  });
  return s;
}

TailCorrection PairPotential::tail(const std::vector<long long>& count) const {
  TailCorrection t;
  with_style(style_, [&]<class E>() {
    if constexpr (E::kTail)
      for (int i = 0; i < types_; ++i)
        for (int j = 0; j < types_; ++j) {
          const TailTerms e = E::tail(coefficients(i, j), cutoff(i, j),
                                      static_cast<double>(count[i]), static_cast<double>(count[j]));
          t.energy += e.energy;
          t.pressure += e.pressure;
        }
  });
  return t;
}

std::string PairPotential::overflow_message(std::uint64_t id_i, std::uint64_t id_j, double r2,
                                            std::uint32_t ti, std::uint32_t tj) const {
  const double r = std::sqrt(r2);
  std::string out = fmt::format("force or energy overflow between particles {} and {} (r = {:.6g})",
                                id_i, id_j, r);
  visit([&]<class E>(const StyleTable<E>& table) {
    const typename E::Params& params = table.view().of(ti, tj);
    const PairTerms<double> t = E::eval(r2, params);
    const std::string terms =
        fmt::format("|F| = {:.3g}, U = {:.3g}", std::fabs(t.fpair) * r, t.energy);
    if constexpr (TabulatedStyle<E>)
      out += E::overflow_cause(r, params, terms);
    else
      out += E::overflow_cause(r, coefficients(static_cast<int>(ti), static_cast<int>(tj)), terms);
  });
  return out;
}

double PairPotential::min_core_size() const {
  double out = INFINITY;
  with_style(style_, [&]<class E>() {
    for (const Coefficients& c : coeffs_) out = std::min(out, E::core_size(c));
  });
  return out;
}

void PairPotential::check_time_step(double dt, const std::vector<double>& mass,
                                    double ftm2v) const {
  // Like pairs first (the ones a deck lists), then the unlike ones.
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < types_; ++i) pairs.emplace_back(i, i);
  for (int i = 0; i < types_; ++i)
    for (int j = i + 1; j < types_; ++j) pairs.emplace_back(i, j);
  with_style(style_, [&]<class E>() {
    for (const auto& [i, j] : pairs) {
      const double m = std::min(mass[i], mass[j]) / ftm2v;
      const Coefficients& c = coefficients(i, j);
      const auto unit = E::time_unit(c, m);
      if (!(dt > unit.tau)) continue;
      // Blame the value furthest from the style's units in the direction that shortens its
      // time unit or lengthens the step: dt (typically 0.005), the mass, a coefficient.
      std::vector<std::pair<double, std::string>> scores{{std::log10(dt / 0.005), "run.dt"},
                                                         {-std::log10(m), "system.mass"}};
      for (std::size_t k = 0; k < unit.blame.size(); ++k)
        scores.emplace_back(unit.blame[k], key_of(i, j, E::kCoefficients[k]));
      const auto worst =
          std::max_element(scores.begin(), scores.end(),
                           [](const auto& a, const auto& b) { return a.first < b.first; });
      throw SpeciesError(
          worst->second,
          fmt::format(
              "run.dt = {} is {:.3g} times {} of types {}-{} ({}): particles would cross "
              "the repulsive core within one step, so the run can only end in "
              "overlapping particles or non-finite positions; run.dt must be at most "
              "tau (runs use about 0.005 tau)",
              dt, dt / unit.tau, unit.words, i + 1, j + 1,
              E::time_unit_values(c, m) +
                  (ftm2v == 1.0 ? std::string()
                                : fmt::format("; m = the mass {} / ftm2v {:.10g} of system.units",
                                              m * ftm2v, ftm2v))));
    }
  });
}

double pair_constants_bytes(const PotentialSection& potential, int types) {
  double bytes = 0.0;
  with_style(potential.style, [&]<class E>() {
    const double t = types;
    bytes = t * t * static_cast<double>(sizeof(typename E::Params));
    if constexpr (TabulatedStyle<E>) bytes += t * (t + 1) / 2 * E::data_bytes(potential.coeffs);
  });
  return bytes;
}

}  // namespace scanmd
