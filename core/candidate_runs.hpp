// The inner loop of the host neighbour-list build for half and full shell (core/neighbor_list.cpp):
// stream compaction of one row's candidate runs. Candidates k of the runs [begin[r], end[r]) of
// the cell order are kept when |q_i − q_k|² < R² (binning positions, sorted by cell, as three
// arrays) and j = order[k] is a ghost or comes after i in the cell order (k > k_i) — the
// kGeneral = false rule of core/pair_candidate.hpp, with the same operations, so every version
// keeps the same candidates in the same order. The kept j are written to out; returns how many.
//
// Versions: scalar (branch-free: written unconditionally, advanced when kept) and AVX-512 (eight
// candidates per vector, compress-store of the kept ones), chosen by the pair kernel
// (core/pair_kernel.hpp; the AVX2 kernel uses the scalar one).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/vec3.hpp"

namespace scanmd {

struct CandidateRuns {
  const double *qx, *qy, *qz;  // binning positions in cell order
  const std::uint32_t* order;  // cell order → particle index
  const std::uint32_t *begin, *end;
  int runs;
};

inline std::size_t keep_candidates_scalar(const CandidateRuns& c, Vec3 qi, double r_sq,
                                          std::uint32_t k_i, std::uint32_t n_owned,
                                          std::uint32_t* out) {
  std::size_t at = 0;
  for (int r = 0; r < c.runs; ++r)
    for (std::uint32_t k = c.begin[r]; k < c.end[r]; ++k) {
      const std::uint32_t j = c.order[k];
      const double dx = qi.x - c.qx[k], dy = qi.y - c.qy[k], dz = qi.z - c.qz[k];
      const bool near = dx * dx + dy * dy + dz * dz < r_sq;
      out[at] = j;  // kept or not, advancing only when kept: compaction without branches
      at += near & ((j >= n_owned) | (k > k_i));
    }
  return at;
}

std::size_t keep_candidates_avx512(const CandidateRuns& c, Vec3 qi, double r_sq,
                                   std::uint32_t k_i, std::uint32_t n_owned, std::uint32_t* out);

}  // namespace scanmd
