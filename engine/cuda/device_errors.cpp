// engine/cuda/device_errors.cpp — see device_errors.hpp.
#include "engine/cuda/device_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "engine/step_backend.hpp"
#include "physics/dynamics/step_errors.hpp"

namespace scanmd::cuda_step {

void raise_device_errors(const DeviceFlags& h, const ErrorSources& at, cudaStream_t stream) {
  const DeviceParticles& p = at.particles;
  if (h.pair_overflow != kNone) {
    const std::uint64_t k = h.pair_overflow;
    std::vector<std::uint64_t> offsets(std::size_t{p.n} + 1);
    download(offsets, at.list.offsets(), offsets.size(), stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const auto row = std::upper_bound(offsets.begin(), offsets.end(), k) - offsets.begin() - 1;
    const std::uint32_t i = static_cast<std::uint32_t>(row);
    const std::uint32_t j = read_one(at.list.neighbors() + k, stream);
    const Vec3 xi = read_one(p.x.data() + i, stream), xj = read_one(p.x.data() + j, stream);
    const Vec3 d = at.images == PairImages::Explicit
                       ? image_displacement(xi, xj, read_one(p.shift.data() + i, stream),
                                            read_one(p.shift.data() + j, stream), at.box.length)
                       : pair_displacement(xi, xj, at.box.length, at.box.half_length);
    if (at.many_body)  // the host's words (engine/eam_forces.cpp), the distance added
      throw std::overflow_error(fmt::format(
          "{}: EAM density, force or energy of particles {} and {} (r = {:.6g}) left the 64-bit "
          "fixed point (|value| >= 2^62 units of 2^-40): particles too close, or moving too fast "
          "for run.dt",
          step_context(at.force_step, at.rank, at.ranks), read_one(p.id.data() + i, stream),
          read_one(p.id.data() + j, stream), std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z)));
    const bool typed = at.potential.types() > 1;
    const std::uint32_t ti = typed ? read_one(p.type.data() + i, stream) : 0;
    const std::uint32_t tj = typed ? read_one(p.type.data() + j, stream) : 0;
    throw std::overflow_error(step_context(at.force_step, at.rank, at.ranks) + ": " +
                              at.potential.overflow_message(read_one(p.id.data() + i, stream),
                                                            read_one(p.id.data() + j, stream),
                                                            d.x * d.x + d.y * d.y + d.z * d.z, ti,
                                                            tj));
  }
  if (h.sum_overflow != kNone) {
    const std::uint32_t i = read_one(at.export_index + h.sum_overflow, stream);
    throw std::overflow_error(fmt::format(
        "{}: fixed-point force sum overflow on particle {}: particles overlap or the time step "
        "is too large",
        step_context(at.force_step, at.rank, at.ranks), read_one(p.id.data() + i, stream)));
  }
  if (h.kinetic_overflow != kNone)
    throw std::overflow_error(fmt::format("kinetic energy overflow: particle {} moves too fast",
                                          read_one(p.id.data() + h.kinetic_overflow, stream)));
  if (h.bad_cell != kNone) {
    const Vec3 x = read_one(p.x.data() + h.bad_cell, stream);
    throw std::runtime_error(fmt::format(
        "particle {} (x = {:.17g} {:.17g} {:.17g}) lies outside the local domain of rank {} "
        "(its box padded by cutoff + skin) when binned",
        read_one(p.id.data() + h.bad_cell, stream), x.x, x.y, x.z, at.rank));
  }
  if (h.bad_position != kNone)
    throw std::runtime_error(bad_position_message(read_one(p.id.data() + h.bad_position, stream),
                                                  read_one(p.x.data() + h.bad_position, stream),
                                                  read_one(p.v.data() + h.bad_position, stream)));
}

}  // namespace scanmd::cuda_step
