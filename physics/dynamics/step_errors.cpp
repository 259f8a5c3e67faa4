// The texts of the time step's errors (see step_errors.hpp).
#include "physics/dynamics/step_errors.hpp"

#include <cmath>

#include <fmt/format.h>

namespace scanmd {

std::string bad_position_message(std::uint64_t id, Vec3 x, Vec3 v) {
  const bool finite = std::isfinite(x.x) && std::isfinite(x.y) && std::isfinite(x.z) &&
                      std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
  const std::string state = fmt::format("x = {:.6g} {:.6g} {:.6g}, v = {:.6g} {:.6g} {:.6g}", x.x,
                                        x.y, x.z, v.x, v.y, v.z);
  if (!finite)
    return fmt::format(
        "particle {} has a non-finite position or velocity ({}): the time step is too large, "
        "or particles overlap",
        id, state);
  return fmt::format(
      "particle {} moved too far to be wrapped into the box ({}): more than 2^31 box lengths, "
      "beyond the 32-bit image counters; the time step is too large",
      id, state);
}

}  // namespace scanmd
