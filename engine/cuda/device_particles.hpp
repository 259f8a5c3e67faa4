// engine/cuda/device_particles.hpp — the particles of one rank in device memory, laid out as the
// host's ParticleStore: owned first, ghosts after them.
//
//   owned + ghosts   id, type, x (wrapped), home, shift, f (fixed point)
//   owned only       v, image, x_build (positions at the last build, for the skin/2 test)
//   owned + ghosts   fields: the optional per-particle fields the force computes asked for
//                    (device_fields.hpp; none in a plain pair run)
// Arrays are grow-only; n_owned and n say what is in use. Particle counts fit in uint32 with
// 25 stencil runs per particle (check_size).
#pragma once

#include <cstdint>

#include "base/particles.hpp"
#include "engine/cuda/device_fields.hpp"
#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/launch.hpp"

namespace scanmd::cuda_step {

struct DeviceParticles {
  std::uint32_t n_owned = 0, n = 0;
  DeviceBuffer<std::uint64_t> id;
  DeviceBuffer<std::uint32_t> type;
  DeviceBuffer<Vec3> x, v, x_build;
  DeviceBuffer<Int3> image, home, shift;
  DeviceBuffer<Fix3> f;
  DeviceFields fields;

  // Throws std::length_error when n particles (owned + ghosts) do not fit one rank's arrays.
  static void check_size(std::size_t n);

  // All of p (owned and ghosts), forces zeroed.
  void upload(const ParticleStore& p, cudaStream_t stream);
  // id, type, x, v, image, f and the fields of the owned particles into p, which is resized to
  // them (no ghosts). Synchronises.
  void download_owned(ParticleStore& p, cudaStream_t stream) const;
  // Room for m ghosts behind the owned particles, which stay where they are; forces zeroed.
  void resize_ghosts(std::uint32_t m, cudaStream_t stream);
  // Owned particles into the order `order` (new slot k takes old slot order[k]), as
  // ParticleStore::permute_owned does on the host.
  void permute_owned(const std::uint32_t* order, cudaStream_t stream) {
    keep_owned(order, n_owned, stream);
  }
  // Only `count` owned particles, slot k taking old slot order[k] (migration: the stayers);
  // ghost slots dropped.
  void keep_owned(const std::uint32_t* order, std::uint32_t count, cudaStream_t stream);
  // m owned particles from records appended behind the owned ones (migration: the arrivals);
  // ghost slots dropped.
  void append_owned(const MigrantRecord* records, std::uint32_t m, cudaStream_t stream);
  OwnedArrays owned_arrays() { return {id.data(), type.data(), x.data(), v.data(), image.data()}; }
  // x_build = x for the owned particles (after a build).
  void mark_built(cudaStream_t stream) { copy_d2d(x_build.data(), x.data(), n_owned, stream); }
  void zero_forces(cudaStream_t stream);

 private:
  // Scratch copies of permute_owned.
  DeviceBuffer<std::uint64_t> sorted_id_;
  DeviceBuffer<std::uint32_t> sorted_type_;
  DeviceBuffer<Vec3> sorted_x_, sorted_v_;
  DeviceBuffer<Int3> sorted_image_;
};

}  // namespace scanmd::cuda_step
