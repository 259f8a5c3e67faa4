// Reading and writing one deck key, for the key table (io/deck_keys.cpp) and the deck reader
// (io/deck.cpp); not for use outside io/. A KeyReader holds one given key — its TOML node, its
// name and where it came from (the file, or a --set override) — and turns its value into a typed
// one or a DeckError that names the place and the key (`deck.toml:12:5: run.dt: must be > 0 (got
// -0.001)`). The toml_* functions write values back as the resolved deck (Deck::to_toml) prints
// them: the shortest text that reads back to the same value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>  // Debian ships the header under this name only
#endif

#include "base/names.hpp"
#include "io/deck.hpp"

namespace scanmd::io {

// ---------------------------------------------------------------------------------------------
// Values as TOML text

// A TOML basic string, every control character escaped.
std::string toml_quote(std::string_view s);
// Shortest representation that reads back to the same double, always a TOML float ("1.0", not
// "1").
std::string toml_float(double v);
std::string toml_bool(bool b);
std::string toml_floats(const std::vector<double>& v);
template <typename T>
std::string toml_int3(const std::array<T, 3>& a) {
  return fmt::format("[{}, {}, {}]", a[0], a[1], a[2]);
}

// Text from the user as it goes into a message: at most 64 characters, the rest summarised, so
// that a megabyte-long key or value is not echoed whole (quoted_shown: as a TOML string).
std::string shown(std::string_view s);
std::string quoted_shown(std::string_view s);
// "float 1.5", "string \"abc\"", "array of 3", ... for "expected X, got Y" messages.
std::string describe(const toml::node& n);

// ---------------------------------------------------------------------------------------------
// One key as given

// In the file (set empty) or by a --set override (set = "--set a.b=v").
struct Item {
  const toml::node* node = nullptr;
  std::string name;  // "run.dt"
  std::string set;
  std::size_t spec = 0;  // index into deck_keys()
};

class KeyReader {
 public:
  KeyReader(const std::string& file, const Item& item) : file_(file), item_(item) {}

  [[noreturn]] void fail(std::string_view what) const { fail_at(*item_.node, what); }
  [[noreturn]] void fail_at(const toml::node& n, std::string_view what) const {
    throw DeckError(fmt::format("{}: {}: {}", where(n), item_.name, what));
  }
  std::string where(const toml::node& n) const;

  const toml::node& node() const { return *item_.node; }
  // The key without its section ("dt" of "run.dt").
  std::string key() const { return item_.name.substr(item_.name.find('.') + 1); }

  double real() const;  // a finite number (an integer converts: density = 1 is fine)
  std::int64_t integer() const;
  bool boolean() const;
  std::string string() const;
  // An array of exactly 3 integers, each >= min and <= INT_MAX.
  std::array<int, 3> int3(std::int64_t min, std::string_view expected) const;

 private:
  const std::string& file_;
  const Item& item_;
};

double positive(const KeyReader& r);
double non_negative(const KeyReader& r);
std::int64_t non_negative_int(const KeyReader& r);

// An array of numbers (or, with `scalar_ok`, one number: a one-element list), each > 0 when
// `positive` else >= 0.
std::vector<double> numbers(const KeyReader& r, std::string_view expected, bool positive,
                            bool scalar_ok);

// The index of the string value in `allowed`, or a DeckError listing them.
std::size_t one_of(const KeyReader& r, std::span<const std::string_view> allowed);

// The enum value named by the string value.
template <class E>
E one_of(const KeyReader& r, std::span<const NamedValue<E>> names) {
  const std::string v = r.string();
  if (const std::optional<E> e = value_of<E>(names, v)) return *e;
  r.fail(fmt::format("must be one of {} (got {})", quoted_names<E>(names), quoted_shown(v)));
}

// "epsilon, sigma (lj); ..." for messages.
std::string coefficients_by_style();

// [[potential.pair]]: an array of tables {types = [i, j], <the style's coefficients>[, cutoff]}.
void read_pairs(Deck& d, const KeyReader& r);

}  // namespace scanmd::io
