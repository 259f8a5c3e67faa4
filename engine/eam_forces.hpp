// The host side of the many-body EAM compute (potential.style eam, eam/alloy, eam/fs): two passes
// over the neighbour list with the halo's exchanges between them, every sum in 64-bit fixed point
// so that the result is the same bits whatever the rank count, the decomposition or the order.
//
//   1. density   every listed pair within the cutoff adds ρ_{t_j→t_i}(r) to i and ρ_{t_i→t_j}(r)
//                to j (to_fixed, units 2^-40, in the eam_rho field), whichever rank the
//                decomposition gave the pair to — possibly one that owns neither particle (neutral
//                territory, eighth shell, midpoint). The halo sums the ghosts' parts into their
//                owners (reverse_sum_words: integers, exact, order-free). Full shell lists a
//                cross-rank pair on both ranks and has no reverse exchange: each rank adds only
//                to its owned particles.
//   2. embedding the owners turn ρ into F(ρ) (the energy, fixed point) and F'(ρ) (eam_fp, a
//                double); the halo forwards F' to every ghost.
//   3. forces    every pair: F/r = −(F'_i ρ'_{j→i} + F'_j ρ'_{i→j} + φ')/r, added to i and subtracted
//                from j as the pair driver does (engine/fixed_terms.hpp); the backend's reverse()
//                sums the ghosts' forces into their owners. The pair energy φ and virial r·F
//                are split between the two particles as the pair driver splits them.
// A density outside the tables ([0, ρ_max]) is clamped as LAMMPS clamps it (eam.hpp); the compute
// counts such particles, and rank 0 says so once on standard error (on the first thermo step
// that finds one: the count is summed over the ranks there).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/host_force_computes.hpp"
#include "physics/manybody/eam_file.hpp"

namespace scanmd {

class HostEamCompute final : public HostForceCompute {
 public:
  explicit HostEamCompute(std::shared_ptr<const eam::Tables> tables)
      : tables_(std::move(tables)), view_(tables_->view()) {}
  ForceTotals compute(HostForceState& s, bool with_energy, bool first) override;
  // Its AVX-512 rows run whenever the resolved kernel is avx512 (measured faster than the
  // scalar loop, one type and alloys: docs/eam.md); the run does not time them against it.
  bool uses_kernel() const override { return false; }
  bool reads_rows_in_order(PairKernel kernel, PairImages images) const override {
    return !(uses_avx512(kernel) && images == PairImages::Minimum);
  }

 private:
  std::shared_ptr<const eam::Tables> tables_;
  EamView view_;
  bool told_outside_ = false;
  std::vector<std::vector<std::int64_t>> rho_parts_;  // threads after the first: their densities
};

}  // namespace scanmd
