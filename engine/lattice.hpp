// FCC lattice initial positions, laid out as LAMMPS' `lattice fcc ρ` + `create_atoms`.
//
// Lattice constant a = (4/ρ)^(1/3); unit cell (i, j, k) holds the basis points
// (0,0,0), (½,½,0), (½,0,½), (0,½,½) at (i + b)·a. Ids follow LAMMPS' one-process order:
// id = 1 + m + 4·(i + nx·(j + ny·k)), basis index m innermost, k outermost.
// Each rank generates only the sites its box owns — a function of the site, never of the
// decomposition — so any rank count creates the same particles with the same ids and bits.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "base/box.hpp"

namespace scanmd {

struct FccLattice {
  double constant;           // a
  std::array<int, 3> cells;  // nx, ny, nz

  static FccLattice from_density(double density, std::array<int, 3> cells);
  Box box() const;
  std::uint64_t site_count() const { return 4ull * cells[0] * cells[1] * cells[2]; }

  // Calls emit(id, position) for every site whose position lies in [lo, hi) after passing
  // `keep`; only unit cells overlapping [lo, hi) are visited.
  void for_each_site(Vec3 lo, Vec3 hi, const std::function<bool(Vec3)>& keep,
                     const std::function<void(std::uint64_t, Vec3)>& emit) const;

  // The same over the sites inside a region only, numbered 1..count_in(region) in the
  // lattice's order (k, j, i, basis): the ids LAMMPS' create_atoms in that region gives. Each
  // call counts the region's sites row by row (O(sites)), so ids never depend on [lo, hi).
  void for_each_site_in(const std::function<bool(Vec3)>& region, Vec3 lo, Vec3 hi,
                        const std::function<bool(Vec3)>& keep,
                        const std::function<void(std::uint64_t, Vec3)>& emit) const;
  std::uint64_t count_in(const std::function<bool(Vec3)>& region) const;

  Vec3 site(int i, int j, int k, int m) const;
};

}  // namespace scanmd
