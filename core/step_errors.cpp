// The texts of the time step's errors (see step_errors.hpp).
#include "core/step_errors.hpp"

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

std::string pair_overflow_message(std::uint64_t id_i, std::uint64_t id_j, double r2,
                                  const LJParams& lj) {
  const double r = std::sqrt(r2);
  const PairTerms t = lj_pair(r2, lj);
  const std::string what = fmt::format(
      "force or energy overflow between particles {} and {} (r = {:.6g})", id_i, id_j, r);
  const std::string terms =
      fmt::format("|F| = {:.3g}, U = {:.3g}", std::fabs(t.fpair) * r, t.energy);
  // σ and ε back from lj1 = 48εσ^12, lj2 = 24εσ^6 (lj2 = 0: ε = 0, nothing could overflow).
  if (!(lj.lj2 > 0.0))
    return what + ": " + terms + ": particles overlap or the time step is too large";
  const double sigma6 = lj.lj1 / (2.0 * lj.lj2);
  const double sigma = std::pow(sigma6, 1.0 / 6.0), epsilon = lj.lj2 / (24.0 * sigma6);
  // Below 0.8σ the repulsion exceeds ~1000 ε/σ: the particles overlap.
  if (r < 0.8 * sigma)
    return what + fmt::format(
                      ": the particles overlap (r = {:.3g} σ, {}); the time step is too "
                      "large, or the start puts them too close",
                      r / sigma, terms);
  return what + fmt::format(
                    ": at r = {:.3g} σ the particles do not overlap, yet {}: ε = {:.6g} "
                    "(σ = {:.6g}) is too large for the 64-bit fixed point of forces and "
                    "energies (LJ units want ε and σ of order 1)",
                    r / sigma, terms, epsilon, sigma);
}

}  // namespace scanmd
