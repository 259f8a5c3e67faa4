#include "decomposition/rank_grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include <fmt/format.h>

namespace scanmd {

RankGrid::RankGrid(Int3 dims, const Box& box)
    : dims_(dims), cuts_(GridCuts::equal_boxes(dims, box.length)) {}

std::string RankGrid::to_string() const {
  return fmt::format("{}x{}x{}", dims_.x, dims_.y, dims_.z);
}

double analytic_import_volume(Method m, Vec3 b, double R) {
  constexpr double pi = std::numbers::pi;
  const double faces = b.x * b.y + b.y * b.z + b.z * b.x;
  const double edges = b.x + b.y + b.z;
  switch (m) {
    case Method::HalfShell:
      return R * faces + 0.5 * pi * R * R * edges + (2.0 / 3.0) * pi * R * R * R;
    case Method::NeutralTerritory:
      return 2.0 * R * b.x * b.y + R * (b.x + b.y) * b.z + 0.5 * pi * R * R * b.z;
    case Method::FullShell:
      return 2.0 * R * faces + pi * R * R * edges + (4.0 / 3.0) * pi * R * R * R;
    case Method::EighthShell:  // upper octant: 3 faces, 3 quarter cylinders, 1/8 sphere
    case Method::Midpoint:     // full shell of thickness R/2: the same volume
      return R * faces + 0.25 * pi * R * R * edges + (1.0 / 6.0) * pi * R * R * R;
  }
  return 0.0;
}

std::vector<Int3> candidate_grids(int ranks, Int3 requested, const Box& box, Method m, double R) {
  if (ranks < 1) throw std::invalid_argument("rank count must be positive");
  const bool any_fixed = requested.x != 0 || requested.y != 0 || requested.z != 0;
  if (requested.x < 0 || requested.y < 0 || requested.z < 0)
    throw std::invalid_argument("decomposition.grid entries must be >= 0");
  if (requested.x != 0 && requested.y != 0 && requested.z != 0) {
    const long long prod = 1LL * requested.x * requested.y * requested.z;
    if (prod != ranks)
      throw GridError(
          fmt::format("decomposition.grid = [{}, {}, {}] has {} boxes but the run has {} ranks",
                      requested.x, requested.y, requested.z, prod, ranks));
    return {requested};
  }
  struct Candidate {
    Int3 dims;
    double volume, spread;
  };
  std::vector<Candidate> all;
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px != 0 || (requested.x != 0 && px != requested.x)) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py != 0 || (requested.y != 0 && py != requested.y)) continue;
      const int pz = ranks / px / py;
      if (requested.z != 0 && pz != requested.z) continue;
      const Vec3 b{box.length.x / px, box.length.y / py, box.length.z / pz};
      all.push_back({{px, py, pz},
                     analytic_import_volume(m, b, R),
                     std::max({b.x, b.y, b.z}) / std::min({b.x, b.y, b.z})});
    }
  }
  if (all.empty())
    throw GridError(
        fmt::format("no {}-rank grid matches decomposition.grid = [{}, {}, {}]{}", ranks,
                    requested.x, requested.y, requested.z,
                    any_fixed ? " (its non-zero entries must divide the rank count)" : ""));
  // Lower volume first; (numerically) equal volumes: the most cubic boxes, then enumeration
  // order (stable).
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    if (a.volume < b.volume * (1.0 - 1e-12)) return true;
    if (b.volume < a.volume * (1.0 - 1e-12)) return false;
    return a.spread < b.spread;
  });
  std::vector<Int3> out;
  for (const Candidate& c : all) out.push_back(c.dims);
  return out;
}

Int3 choose_grid(int ranks, Int3 requested, const Box& box, Method m, double R) {
  return candidate_grids(ranks, requested, box, m, R).front();
}

}  // namespace scanmd
