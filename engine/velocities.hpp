// Initial velocities: a function of (seed, global id) only, never of the decomposition.
//
// Each component is uniform in [−½, ½) from a counter-based hash of (seed, id, component)
// (SplitMix64 finaliser chain), like LAMMPS' `velocity create ... dist uniform`. The net
// momentum (Σ m v) is removed and the velocities scaled to the target temperature with 3N − 3
// degrees of freedom; both global sums are taken in fixed point (the momentum at a scale that
// follows the masses, the total mass from the particle count of each type), so every rank count
// gets the same bits and any positive normal mass gets the temperature asked for.
#pragma once

#include <cstdint>
#include <vector>

#include "base/communicator.hpp"
#include "base/particles.hpp"
#include "base/units.hpp"

namespace scanmd {

// Uniform in [0, 1) from (seed, id, stream): 53 random bits.
double counter_uniform(std::uint64_t seed, std::uint64_t id, std::uint64_t stream);

void create_velocities(ParticleStore& p, const Communicator& comm, std::uint64_t seed,
                       double temperature, const std::vector<double>& mass, long long n_total,
                       const UnitConstants& units = {});

}  // namespace scanmd
