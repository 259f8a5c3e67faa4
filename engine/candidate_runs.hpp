// The inner loop of the host neighbour-list build for half and full shell (engine/neighbor_list.cpp):
// stream compaction of one row's candidate runs. Candidates k of the runs [begin[r], end[r]) of
// the cell order are kept when they lie within the search sphere (engine/pair_candidate.hpp:
// search_distance_sq < r_sq in float, on the binning positions as SearchPoints, sorted by cell,
// as three arrays) and j = order[k] is a ghost or comes after i in the cell order (k > k_i) — the
// kGeneral = false rule of engine/pair_candidate.hpp, with the same operations, so every version
// keeps the same candidates in the same order. Kept j closer than the inner cutoff (squared, in
// float) go to `near`, the others to `far`, each in candidate order (the row order of
// neighbor_list.hpp, in the same pass); with inner_sq = r_sq all go to `near`.
//
// Versions (CandidateScan), chosen by the pair kernel (engine/pair_kernel.hpp): scalar
// (branch-free: written unconditionally, advanced when kept), AVX2 (eight candidates per vector,
// the kept ones packed by a table's permutation) and AVX-512 (sixteen per vector, compressed);
// the vector ones write whole vectors, so `near` and `far` need kCandidateSlack entries of room
// beyond what is kept.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/vec3.hpp"
#include "engine/pair_candidate.hpp"

namespace scanmd {

// Entries the vector scan may write past the kept ones.
inline constexpr std::size_t kCandidateSlack = 16;

struct CandidateRuns {
  const float *qx, *qy, *qz;   // binning positions in cell order, as SearchPoints
  const std::uint32_t* order;  // cell order → particle index
  const std::uint32_t *begin, *end;
  int runs;
};

struct KeptCandidates {
  std::size_t near = 0, far = 0;
};

// The scalar scan, for a rule keep_rule(k, j) of the candidate at cell-order position k
// (particle j) beside the distance test.
template <class Rule>
inline KeptCandidates keep_candidates_scalar_by(const CandidateRuns& c, SearchPoint qi, float r_sq,
                                                float inner_sq, std::uint32_t* near,
                                                std::uint32_t* far, Rule keep_rule) {
  KeptCandidates n;
  for (int r = 0; r < c.runs; ++r)
    for (std::uint32_t k = c.begin[r]; k < c.end[r]; ++k) {
      const std::uint32_t j = c.order[k];
      const float d2 = search_distance_sq(qi, SearchPoint{c.qx[k], c.qy[k], c.qz[k]});
      const bool keep = (d2 < r_sq) & keep_rule(k, j);
      const bool inside = d2 < inner_sq;
      // Written unconditionally, advanced only when kept: compaction without branches.
      near[n.near] = j;
      n.near += keep & inside;
      far[n.far] = j;
      n.far += keep & !inside;
    }
  return n;
}

inline KeptCandidates keep_candidates_scalar(const CandidateRuns& c, SearchPoint qi, float r_sq,
                                             float inner_sq, std::uint32_t k_i,
                                             std::uint32_t n_owned, std::uint32_t* near,
                                             std::uint32_t* far) {
  return keep_candidates_scalar_by(
      c, qi, r_sq, inner_sq, near, far,
      [=](std::uint32_t k, std::uint32_t j) { return (j >= n_owned) | (k > k_i); });
}

KeptCandidates keep_candidates_avx2(const CandidateRuns& c, SearchPoint qi, float r_sq,
                                    float inner_sq, std::uint32_t k_i, std::uint32_t n_owned,
                                    std::uint32_t* near, std::uint32_t* far);
KeptCandidates keep_candidates_avx512(const CandidateRuns& c, SearchPoint qi, float r_sq,
                                      float inner_sq, std::uint32_t k_i, std::uint32_t n_owned,
                                      std::uint32_t* near, std::uint32_t* far);

// Rows of one or two neighbouring cells scanned together (half and full shell's rule, or neutral
// territory's by classes for rows of one home box; inner = R; AVX-512 only: each vector of
// candidates is loaded once for all the rows). Row m is the point q[m] at cell-order position
// k[m]; its kept candidates are written to out[m] (kCandidateSlack
// entries of room beyond them) and counted in kept[m]. The runs are the union of the rows' own
// runs, which for rows of two cells along x is one cell longer: row m leaves out the candidates
// of run r before first_end[r] (the run's first cell) when skip[m] & kSkipFirst, and from
// last_begin[r] on (its last cell) when skip[m] & kSkipLast (arrays per run; null when no row
// skips). So each row keeps exactly what keep_candidates keeps on its own runs, in the same
// order. The runs need only be clipped for the row with the least k (the rule masks the rest).
inline constexpr int kCellRows = 8;
inline constexpr std::uint8_t kSkipFirst = 1, kSkipLast = 2;
struct CellRows {
  int rows = 0;  // 1 to kCellRows
  SearchPoint q[kCellRows];
  std::uint32_t k[kCellRows];
  std::uint8_t skip[kCellRows] = {};
  const std::uint32_t* first_end = nullptr;
  const std::uint32_t* last_begin = nullptr;
  // Neutral territory's rule by classes (RowRuleClasses: the same any and after for every row),
  // null cls: half and full shell's rule (ghosts, and owned particles after the row).
  const std::uint32_t* cls = nullptr;
  std::uint32_t any = 0, after = 0;
  std::uint32_t* out[kCellRows];
  std::size_t kept[kCellRows];
};
void keep_candidate_rows_avx512(const CandidateRuns& c, float r_sq, std::uint32_t n_owned,
                                CellRows& rows);

// The same scan with the rule by classes (neutral territory: PairRule::nt_row_classes): a
// candidate within R is kept when cls[k] & any, or cls[k] & after and k > k_i (cls: one class
// bit per cell-order position).
struct RowRuleClasses {
  const std::uint32_t* cls;
  std::uint32_t any, after;
};

inline KeptCandidates keep_candidates_classes_scalar(const CandidateRuns& c,
                                                     const RowRuleClasses& rule, SearchPoint qi,
                                                     float r_sq, float inner_sq, std::uint32_t k_i,
                                                     std::uint32_t* near, std::uint32_t* far) {
  return keep_candidates_scalar_by(
      c, qi, r_sq, inner_sq, near, far, [&](std::uint32_t k, std::uint32_t) {
        const std::uint32_t cls = rule.cls[k];
        return ((cls & rule.any) != 0) | (((cls & rule.after) != 0) & (k > k_i));
      });
}

KeptCandidates keep_candidates_classes_avx2(const CandidateRuns& c, const RowRuleClasses& rule,
                                            SearchPoint qi, float r_sq, float inner_sq,
                                            std::uint32_t k_i, std::uint32_t* near,
                                            std::uint32_t* far);
KeptCandidates keep_candidates_classes_avx512(const CandidateRuns& c, const RowRuleClasses& rule,
                                              SearchPoint qi, float r_sq, float inner_sq,
                                              std::uint32_t k_i, std::uint32_t* near,
                                              std::uint32_t* far);

// The version `scan`, for each rule.
enum class CandidateScan { Scalar, Avx2, Avx512 };

inline KeptCandidates keep_candidates(CandidateScan scan, const CandidateRuns& c, SearchPoint qi,
                                      float r_sq, float inner_sq, std::uint32_t k_i,
                                      std::uint32_t n_owned, std::uint32_t* near,
                                      std::uint32_t* far) {
  switch (scan) {
    case CandidateScan::Avx512:
      return keep_candidates_avx512(c, qi, r_sq, inner_sq, k_i, n_owned, near, far);
    case CandidateScan::Avx2:
      return keep_candidates_avx2(c, qi, r_sq, inner_sq, k_i, n_owned, near, far);
    case CandidateScan::Scalar:
      break;
  }
  return keep_candidates_scalar(c, qi, r_sq, inner_sq, k_i, n_owned, near, far);
}

inline KeptCandidates keep_candidates_classes(CandidateScan scan, const CandidateRuns& c,
                                              const RowRuleClasses& rule, SearchPoint qi,
                                              float r_sq, float inner_sq, std::uint32_t k_i,
                                              std::uint32_t* near, std::uint32_t* far) {
  switch (scan) {
    case CandidateScan::Avx512:
      return keep_candidates_classes_avx512(c, rule, qi, r_sq, inner_sq, k_i, near, far);
    case CandidateScan::Avx2:
      return keep_candidates_classes_avx2(c, rule, qi, r_sq, inner_sq, k_i, near, far);
    case CandidateScan::Scalar:
      break;
  }
  return keep_candidates_classes_scalar(c, rule, qi, r_sq, inner_sq, k_i, near, far);
}

}  // namespace scanmd
