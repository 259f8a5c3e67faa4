// engine/cuda/device_particles.cpp — see device_particles.hpp.
#include "engine/cuda/device_particles.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "engine/cuda/launch.hpp"
#include "engine/cuda/neighbor_runs.hpp"

namespace scanmd::cuda_step {

void DeviceParticles::check_size(std::size_t count) {
  if (count >= (std::size_t{1} << 31) || count * kRunsPerRow >= (std::size_t{1} << 32))
    throw std::length_error(fmt::format(
        "backend cuda: {} particles (owned + ghosts) on one rank are more than this version "
        "supports (2^32 / 25); use more ranks",
        count));
}

void DeviceParticles::upload(const ParticleStore& p, cudaStream_t stream) {
  check_size(p.size());
  n_owned = static_cast<std::uint32_t>(p.n_owned);
  n = static_cast<std::uint32_t>(p.size());
  ensure(id, n);
  ensure(type, n);
  ensure(x, n);
  ensure(home, n);
  ensure(shift, n);
  ensure(f, n);
  ensure(v, n_owned);
  ensure(image, n_owned);
  ensure(x_build, n_owned);
  cuda_step::upload(id.data(), p.id, n, stream);
  cuda_step::upload(type.data(), p.type, n, stream);
  cuda_step::upload(x.data(), p.x, n, stream);
  cuda_step::upload(home.data(), p.home, n, stream);
  cuda_step::upload(shift.data(), p.shift, n, stream);
  cuda_step::upload(v.data(), p.v, n_owned, stream);
  cuda_step::upload(image.data(), p.image, n_owned, stream);
  cuda_step::upload(x_build.data(), p.x_build, n_owned, stream);
  fields.upload(p.fields, n, stream);
  zero_forces(stream);
}

void DeviceParticles::download_owned(ParticleStore& p, cudaStream_t stream) const {
  p.resize(n_owned, n_owned);
  download(p.id, id.data(), n_owned, stream);
  download(p.type, type.data(), n_owned, stream);
  download(p.x, x.data(), n_owned, stream);
  download(p.v, v.data(), n_owned, stream);
  download(p.image, image.data(), n_owned, stream);
  download(p.f, f.data(), n_owned, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (download)");
  fields.download_owned(p.fields, n_owned, stream);
}

void DeviceParticles::resize_ghosts(std::uint32_t m, cudaStream_t stream) {
  const std::size_t total = std::size_t{n_owned} + m;
  check_size(total);
  grow_keeping(id, total, n_owned, stream);
  grow_keeping(type, total, n_owned, stream);
  grow_keeping(x, total, n_owned, stream);
  grow_keeping(home, total, n_owned, stream);
  grow_keeping(shift, total, n_owned, stream);
  fields.grow_keeping(total, n_owned, stream);
  ensure(f, total);
  n = static_cast<std::uint32_t>(total);
  zero_forces(stream);
}

void DeviceParticles::keep_owned(const std::uint32_t* order, std::uint32_t count,
                                 cudaStream_t stream) {
  ensure(sorted_id_, count);
  ensure(sorted_type_, count);
  ensure(sorted_x_, count);
  ensure(sorted_v_, count);
  ensure(sorted_image_, count);
  const OwnedArrays sorted{sorted_id_.data(), sorted_type_.data(), sorted_x_.data(),
                           sorted_v_.data(), sorted_image_.data()};
  launch_gather_owned(order, count, owned_arrays(), sorted, stream);
  copy_d2d(id.data(), sorted_id_.data(), count, stream);
  copy_d2d(type.data(), sorted_type_.data(), count, stream);
  copy_d2d(x.data(), sorted_x_.data(), count, stream);
  copy_d2d(v.data(), sorted_v_.data(), count, stream);
  copy_d2d(image.data(), sorted_image_.data(), count, stream);
  fields.keep(order, count, stream);
  n_owned = n = count;
}

void DeviceParticles::append_owned(const MigrantRecord* records, std::uint32_t m,
                                   cudaStream_t stream) {
  const std::size_t total = std::size_t{n_owned} + m;
  check_size(total);
  grow_keeping(id, total, n_owned, stream);
  grow_keeping(type, total, n_owned, stream);
  grow_keeping(x, total, n_owned, stream);
  grow_keeping(v, total, n_owned, stream);
  grow_keeping(image, total, n_owned, stream);
  fields.grow_keeping(total, n_owned, stream);  // the arrivals' words: DeviceMigration
  ensure(home, total);                          // set for every owned particle after the migration
  ensure(shift, total);
  ensure(x_build, total);  // set after the build
  ensure(f, total);
  launch_unpack_migrants(records, m, n_owned, owned_arrays(), stream);
  n_owned = n = static_cast<std::uint32_t>(total);
}

void DeviceParticles::zero_forces(cudaStream_t stream) {
  if (n > 0)
    check(cudaMemsetAsync(f.data(), 0, std::size_t{n} * sizeof(Fix3), stream),
          "cudaMemsetAsync forces");
}

}  // namespace scanmd::cuda_step
