// Enumerations spelled as words (deck values, command-line flags, log lines): one table of
// (value, name) pairs per enum, and the two lookups every user of such a table needs.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace scanmd {

template <class E>
struct NamedValue {
  E value;
  std::string_view name;
};

template <class E>
constexpr std::string_view name_of(std::span<const NamedValue<E>> table, E value) {
  for (const NamedValue<E>& n : table)
    if (n.value == value) return n.name;
  return "?";
}

template <class E>
constexpr std::optional<E> value_of(std::span<const NamedValue<E>> table, std::string_view name) {
  for (const NamedValue<E>& n : table)
    if (n.name == name) return n.value;
  return std::nullopt;
}

// "a", "b", "c" — the names of a table, quoted, for "must be one of ..." messages.
template <class E>
std::string quoted_names(std::span<const NamedValue<E>> table) {
  std::string out;
  for (const NamedValue<E>& n : table) {
    if (!out.empty()) out += ", ";
    out += '"';
    out += n.name;
    out += '"';
  }
  return out;
}

}  // namespace scanmd
