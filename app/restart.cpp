// Restart from a checkpoint (see restart.hpp).
#include "app/restart.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "base/box.hpp"
#include "io/checkpoint.hpp"
#include "io/particle_rows.hpp"

namespace scanmd {

namespace {

bool same_length(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::abs(b);
}

// The wrap Simulation::setup applies, done early so the destination rank is the one that
// keeps the particle (a no-op for the wrapped positions checkpoints hold). A position that
// cannot be wrapped (not finite, or an image flag beyond 32 bits) is an error naming the file.
void wrap_into_box(io::ParticleRow& r, const Box& box, const std::string& path) {
  const double len[3] = {box.length.x, box.length.y, box.length.z};
  for (int k = 0; k < 3; ++k) {
    int image = r.image[k];
    if (!wrap_far_coordinate(r.x[k], image, len[k]))
      throw std::runtime_error(fmt::format(
          "{}: particle {}: {} = {:.17g} (image flag {}) cannot be wrapped into the box [0, "
          "{:.17g}): {}",
          path, r.id, "xyz"[k], r.x[k], r.image[k], len[k],
          std::isfinite(r.x[k]) ? "its image flag would leave the 32-bit range"
                                : "it is not finite"));
    r.image[k] = image;
  }
}

}  // namespace

RestartState load_restart(const Communicator& comm, const std::string& path, const Simulation& sim,
                          long long expected_particles) {
  const auto t0 = std::chrono::steady_clock::now();
  io::Checkpoint c = io::read_checkpoint(comm, path);
  const double read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Vec3 L = sim.box().length;
  if (c.particles != expected_particles)
    throw std::runtime_error(fmt::format(
        "{}: checkpoint of {} particles does not fit this deck ({} particles): restart with "
        "the deck that wrote it",
        path, c.particles, expected_particles));
  if (!same_length(c.box[0], L.x) || !same_length(c.box[1], L.y) || !same_length(c.box[2], L.z))
    throw std::runtime_error(
        fmt::format("{}: checkpoint box {:.10g} x {:.10g} x {:.10g} does not fit this deck's box "
                    "{:.10g} x {:.10g} x {:.10g}",
                    path, c.box[0], c.box[1], c.box[2], L.x, L.y, L.z));
  if (c.step > sim.config().run.steps)
    throw std::runtime_error(fmt::format(
        "{}: checkpoint is at step {}, beyond run.steps = {}: raise run.steps to continue", path,
        c.step, sim.config().run.steps));

  // Rows → the ranks whose boxes hold them.
  std::vector<std::uint32_t> dest(c.rows.size());
  all_or_none(comm, [&] {  // agreed before the collective redistribution below
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
      wrap_into_box(c.rows[i], sim.box(), path);
      const Vec3 x{c.rows[i].x[0], c.rows[i].x[1], c.rows[i].x[2]};
      dest[i] = static_cast<std::uint32_t>(sim.grid().rank_of(sim.grid().box_of(x)));
    }
  });
  const std::vector<io::ParticleRow> mine = io::redistribute(comm, c.rows, dest);

  RestartState r;
  r.path = path;
  r.step = c.step;
  r.particles = c.particles;
  r.thermostat = c.thermostat;
  r.checksum_verified = c.checksum == io::Checkpoint::Checksum::Verified;
  r.read_seconds = read_seconds;
  r.checksum_seconds = c.checksum_seconds;
  r.particles_here.reserve(mine.size());
  for (const io::ParticleRow& p : mine)
    r.particles_here.push_back(InitialParticle{p.id,
                                               {p.x[0], p.x[1], p.x[2]},
                                               {p.v[0], p.v[1], p.v[2]},
                                               {p.image[0], p.image[1], p.image[2]},
                                               static_cast<std::uint32_t>(p.type)});
  return r;
}

}  // namespace scanmd
