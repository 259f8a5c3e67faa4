// A Nosé–Hoover chain thermostat, integrated as LAMMPS `fix nvt temp T T τ tchain M` does
// (FixNH::nhc_temp_integrate with tloop = 1 and no drag): before the first half kick and after
// the second, one chain half step of dt/2 that returns the factor every velocity is scaled by.
//
//   Q_0 = N_f T τ²,  Q_k = T τ² (k ≥ 1);  G_0 = (2K − N_f T)/Q_0,  G_k = (Q_{k−1} η̇²_{k−1} − T)/Q_k
//   η̇_k updated from the end of the chain inwards (exp(−η̇_{k+1} dt/8) around + G_k dt/4),
//   s = exp(−η̇_0 dt/2), 2K ← s² 2K, η_k += η̇_k dt/2, and outwards again.
//   Conserved: E + N_f T η_0 + Σ_{k≥1} T η_k + Σ_k Q_k η̇_k²/2   (LAMMPS ecouple)
// N_f = 3N − 3. T is k_B T and 2K is mvv2e Σ m v², both in energy units (engine/thermostat.cpp
// multiplies by system.units' constants, which are 1 in lj). Only global, exactly summed inputs (2K in fixed point) enter, so every rank count
// and backend gets the same bits. The state (η, η̇, G and the current 2K) goes into the checkpoint:
// a restart continues bit for bit.
#pragma once

#include <vector>

namespace scanmd {

class NoseHooverChain {
 public:
  NoseHooverChain(double temperature, double damping, int chain, double dt, double dof);

  // Before the first half kick: a chain half step with the 2K left by the last one (at the first
  // step: set_kinetic()); returns the velocity scale factor.
  double first_half();
  // After the second half kick, with the fresh 2K of the velocities.
  double second_half(double two_ke);
  void set_kinetic(double two_ke) { two_ke_ = two_ke; }

  double energy() const;  // the thermostat's energy (LAMMPS ecouple)

  // η[M], η̇[M+1], G[M], 2K: for checkpoints.
  std::vector<double> state() const;
  void restore(const std::vector<double>& s);  // throws std::invalid_argument on a size mismatch

 private:
  double half_step();

  double t_target_, t_freq_, dt_, dof_;
  std::vector<double> eta_, eta_dot_, eta_dotdot_, eta_mass_;
  double two_ke_ = 0.0;
};

}  // namespace scanmd
