// engine/cuda/device_fields.hpp — the optional per-particle fields (base/particle_fields.hpp) in
// device memory, part of DeviceParticles: the columns the force computes asked for, none in a
// plain pair run.
//
// A column of width w is stored as w planes of one 64-bit word per particle (plane c holds
// component c of every particle, owned first, then ghosts), so each plane is an ordinary
// per-particle array: the field halo (DeviceHalo::forward_field / reverse_field) moves it as it
// is, and the gathers of a rebuild treat it as the other arrays. The host keeps the components
// of a particle together; upload and download convert. Migration sends a leaver's State words
// (pack_state: the host's ParticleFields::pack_state order, column after column) beside its
// record; Scratch planes of arrivals are zero, as on the host.
#pragma once

#include <cstdint>
#include <vector>

#include "base/particle_fields.hpp"
#include "engine/cuda/device_memory.hpp"

namespace scanmd::cuda_step {

class DeviceFields {
 public:
  // The columns of `host` (specs only), if none are declared yet; a later call with other
  // columns is a std::logic_error (the computes of a run do not change).
  void declare(const ParticleFields& host);

  bool empty() const { return columns_.empty(); }
  std::size_t count() const { return columns_.size(); }
  const FieldSpec& spec(std::size_t k) const { return columns_[k].spec; }
  int find(std::string_view name) const;
  // Plane c of column k (device memory, owned then ghosts).
  std::uint64_t* plane(std::size_t k, int c) {
    return columns_[k].planes[static_cast<std::size_t>(c)].data();
  }
  // Every plane of every column, in column order (the halo loops over them).
  std::vector<std::uint64_t*> planes_of(std::size_t k);
  // State words per particle (the sum of the State columns' widths).
  std::uint32_t state_words() const;

  // ---- what DeviceParticles does to every array (n: particles in use after the call)
  // The first n particles of `host` (owned and ghosts).
  void upload(const ParticleFields& host, std::uint32_t n, cudaStream_t stream);
  // The first n_owned particles into `host`, whose columns hold n_owned particles already
  // (ParticleStore::resize). Completes at the caller's synchronisation.
  void download_owned(ParticleFields& host, std::uint32_t n_owned, cudaStream_t stream) const;
  // Room for n particles, keeping the first `keep` of every plane.
  void grow_keeping(std::size_t n, std::size_t keep, cudaStream_t stream);
  // Slot k takes old slot order[k], k < count (owned particles only).
  void keep(const std::uint32_t* order, std::uint32_t count, cudaStream_t stream);
  // Migration: the State words of owned slots idx[0..count) into out, state_words() per
  // particle (out[k · W + s]).
  void pack_state(const std::uint32_t* idx, std::uint32_t count, std::uint64_t* out,
                  cudaStream_t stream);
  // Slots [first, first + m) from such words; their Scratch planes zeroed.
  void unpack_state(const std::uint64_t* in, std::uint32_t m, std::uint32_t first,
                    cudaStream_t stream);

 private:
  struct Column {
    FieldSpec spec;
    std::vector<DeviceBuffer<std::uint64_t>> planes;
  };
  std::vector<Column> columns_;
  DeviceBuffer<std::uint64_t> sorted_;  // keep()'s scratch plane
  mutable std::vector<std::uint64_t> host_words_;
};

}  // namespace scanmd::cuda_step
