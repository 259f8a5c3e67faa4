// The texts of the time step's errors, written once for both backends (the host loops raise
// them at once; the CUDA backend from its flags at the next synchronisation), so that a run
// stops with the same words on either:
//   bad_position_message    a particle that cannot be wrapped into the box after its drift
// (a pair whose force or energy leaves the 64-bit fixed point: PairPotential::overflow_message,
// whose style reads the cause off the pair.)
// The caller prefixes the step (and the rank): step_context in engine/step_backend.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "base/vec3.hpp"

namespace scanmd {

// x as the wrap left it (a coordinate that could not be wrapped keeps its value), v its velocity.
std::string bad_position_message(std::uint64_t id, Vec3 x, Vec3 v);

}  // namespace scanmd
