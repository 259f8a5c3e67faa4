// Nosé–Hoover chain (see nose_hoover.hpp); follows LAMMPS FixNH::nhc_temp_integrate line by line.
#include "physics/dynamics/nose_hoover.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace scanmd {

NoseHooverChain::NoseHooverChain(double temperature, double damping, int chain, double dt,
                                 double dof)
    : t_target_(temperature), t_freq_(1.0 / damping), dt_(dt), dof_(dof) {
  const std::size_t M = static_cast<std::size_t>(chain);
  eta_.assign(M, 0.0);
  eta_dot_.assign(M + 1, 0.0);  // η̇_M = 0 closes the chain
  eta_dotdot_.assign(M, 0.0);
  eta_mass_.assign(M, 0.0);
  eta_mass_[0] = dof_ * t_target_ / (t_freq_ * t_freq_);
  for (std::size_t k = 1; k < M; ++k) eta_mass_[k] = t_target_ / (t_freq_ * t_freq_);
  for (std::size_t k = 1; k < M; ++k)
    eta_dotdot_[k] =
        (eta_mass_[k - 1] * eta_dot_[k - 1] * eta_dot_[k - 1] - t_target_) / eta_mass_[k];
}

double NoseHooverChain::first_half() {
  return half_step();
}

double NoseHooverChain::second_half(double two_ke) {
  two_ke_ = two_ke;
  return half_step();
}

double NoseHooverChain::half_step() {
  const std::size_t M = eta_.size();
  const double dthalf = 0.5 * dt_, dt4 = 0.25 * dt_, dt8 = 0.125 * dt_;
  const double ke_target = dof_ * t_target_;
  double kecurrent = two_ke_;

  eta_dotdot_[0] = eta_mass_[0] > 0.0 ? (kecurrent - ke_target) / eta_mass_[0] : 0.0;
  for (std::size_t k = M - 1; k > 0; --k) {
    const double expfac = std::exp(-dt8 * eta_dot_[k + 1]);
    eta_dot_[k] *= expfac;
    eta_dot_[k] += eta_dotdot_[k] * dt4;
    eta_dot_[k] *= expfac;
  }
  double expfac = std::exp(-dt8 * eta_dot_[1]);
  eta_dot_[0] *= expfac;
  eta_dot_[0] += eta_dotdot_[0] * dt4;
  eta_dot_[0] *= expfac;

  const double factor = std::exp(-dthalf * eta_dot_[0]);
  two_ke_ *= factor * factor;  // the scaled velocities' 2K, as LAMMPS rescales t_current
  kecurrent = two_ke_;
  eta_dotdot_[0] = eta_mass_[0] > 0.0 ? (kecurrent - ke_target) / eta_mass_[0] : 0.0;
  for (std::size_t k = 0; k < M; ++k) eta_[k] += dthalf * eta_dot_[k];

  eta_dot_[0] *= expfac;
  eta_dot_[0] += eta_dotdot_[0] * dt4;
  eta_dot_[0] *= expfac;
  for (std::size_t k = 1; k < M; ++k) {
    expfac = std::exp(-dt8 * eta_dot_[k + 1]);
    eta_dot_[k] *= expfac;
    eta_dotdot_[k] =
        (eta_mass_[k - 1] * eta_dot_[k - 1] * eta_dot_[k - 1] - t_target_) / eta_mass_[k];
    eta_dot_[k] += eta_dotdot_[k] * dt4;
    eta_dot_[k] *= expfac;
  }
  return factor;
}

double NoseHooverChain::energy() const {
  double e = dof_ * t_target_ * eta_[0] + 0.5 * eta_mass_[0] * eta_dot_[0] * eta_dot_[0];
  for (std::size_t k = 1; k < eta_.size(); ++k)
    e += t_target_ * eta_[k] + 0.5 * eta_mass_[k] * eta_dot_[k] * eta_dot_[k];
  return e;
}

std::vector<double> NoseHooverChain::state() const {
  std::vector<double> s(eta_);
  s.insert(s.end(), eta_dot_.begin(), eta_dot_.end());
  s.insert(s.end(), eta_dotdot_.begin(), eta_dotdot_.end());
  s.push_back(two_ke_);
  return s;
}

void NoseHooverChain::restore(const std::vector<double>& s) {
  const std::size_t M = eta_.size();
  if (s.size() != 3 * M + 2)
    throw std::invalid_argument("Nosé–Hoover state has " + std::to_string(s.size()) +
                                " values, a chain of " + std::to_string(M) + " needs " +
                                std::to_string(3 * M + 2) + " (was the chain length changed?)");
  std::size_t k = 0;
  for (double& x : eta_) x = s[k++];
  for (double& x : eta_dot_) x = s[k++];
  for (double& x : eta_dotdot_) x = s[k++];
  two_ke_ = s[k];
}

}  // namespace scanmd
