// The spatial decomposition methods scanmd offers (DESIGN.md §4).
#pragma once

#include <optional>
#include <string_view>

namespace scanmd {

enum class Method {
  HalfShell,         // pair computed in the home box of one of its particles (x, then y, then z)
  NeutralTerritory,  // pair computed in the box at (x_tower, y_tower, z_plate)
  FullShell,         // baseline: whole shell imported, cross-rank pairs computed twice
  EighthShell,       // GROMACS: pair computed in the box at the component-wise lower corner
  Midpoint,          // Desmond: pair computed in the box holding its midpoint
};

inline constexpr Method kAllMethods[] = {Method::HalfShell, Method::NeutralTerritory,
                                         Method::FullShell, Method::EighthShell,
                                         Method::Midpoint};

constexpr std::string_view method_name(Method m) {
  switch (m) {
    case Method::HalfShell: return "half-shell";
    case Method::NeutralTerritory: return "neutral-territory";
    case Method::FullShell: return "full-shell";
    case Method::EighthShell: return "eighth-shell";
    case Method::Midpoint: return "midpoint";
  }
  return "?";
}

inline std::optional<Method> method_from_name(std::string_view s) {
  for (Method m : kAllMethods)
    if (method_name(m) == s) return m;
  return std::nullopt;
}

// Does the method send forces on ghosts back to their owners?
constexpr bool has_reverse_exchange(Method m) { return m != Method::FullShell; }

}  // namespace scanmd
