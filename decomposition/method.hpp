// The spatial decomposition methods scanmd offers (DESIGN.md §4), and their names: the deck's
// `decomposition.method` values, `scanmd model --methods`, log lines and files all use this
// table.
#pragma once

#include <array>
#include <cstddef>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>

#include "base/names.hpp"

namespace scanmd {

enum class Method {
  HalfShell,         // pair computed in the home box of one of its particles (x, then y, then z)
  NeutralTerritory,  // pair computed in the box at (x_tower, y_tower, z_plate)
  FullShell,         // baseline: whole shell imported, cross-rank pairs computed twice
  EighthShell,       // GROMACS: pair computed in the box at the component-wise lower corner
  Midpoint,          // Desmond: pair computed in the box holding its midpoint
};

inline constexpr NamedValue<Method> kMethodNames[] = {
    {Method::HalfShell, "half-shell"}, {Method::NeutralTerritory, "neutral-territory"},
    {Method::FullShell, "full-shell"}, {Method::EighthShell, "eighth-shell"},
    {Method::Midpoint, "midpoint"},
};

inline constexpr auto kAllMethods = [] {
  std::array<Method, std::size(kMethodNames)> all{};
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = kMethodNames[i].value;
  return all;
}();

constexpr std::string_view method_name(Method m) {
  return name_of<Method>(kMethodNames, m);
}

constexpr std::optional<Method> method_from_name(std::string_view s) {
  return value_of<Method>(kMethodNames, s);
}

// Does the method send forces on ghosts back to their owners?
constexpr bool has_reverse_exchange(Method m) {
  return m != Method::FullShell;
}

}  // namespace scanmd
