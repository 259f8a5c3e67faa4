// engine/cuda/device_halo.hpp — the halo plan of one rank executed on device data, the sibling of
// HaloExchange's forward() and reverse() (decomposition/halo_exchange.hpp).
//
// The plan is made on the device (make_plan: export selection, ghost records exchanged, ghosts
// appended; ghosts.cu), or comes from a host rebuild (set_plan: HaloExchange's ExchangePlan and
// export index; SCANMD_CUDA_REBUILD=host). Send buffer entry k is owned particle
// export_index[k]; ghosts sit in receive order behind the owned particles.
//
//   forward   pack x[export_index] → send buffer; the self part goes straight into the ghost
//             slots; remote parts → MPI → ghost slots
//   reverse   ghost forces → MPI (remote parts) → summed into the owners with overflow-checked
//             integer atomics (self entries read the ghost slots directly)
//   forward_field / reverse_field   the same for any per-particle device array (the field halo,
//             the sibling of HaloExchange's): each field brings its own DeviceFieldHalo buffers
// MPI: remote parts go through pinned host buffers, or straight from device memory when the MPI
// library reports CUDA support at run time (device_selection.hpp). Self parts never leave the
// device.
#pragma once

#include <cstdint>
#include <vector>

#include "base/communicator.hpp"
#include "decomposition/halo_exchange.hpp"
#include "engine/cuda/device_exchange.hpp"
#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/device_particles.hpp"
#include "engine/cuda/launch.hpp"

namespace scanmd::cuda_step {

// The buffers one field's exchanges reuse: the send buffer and the host staging of its messages.
template <class T>
struct DeviceFieldHalo {
  DeviceBuffer<T> buffer;
  DeviceExchange<T> exchange;
};

class DeviceHalo {
 public:
  DeviceHalo(const Communicator& comm, Method method, bool cuda_aware)
      : comm_(comm), reverse_(has_reverse_exchange(method)), cuda_aware_(cuda_aware) {}

  // The plan of the host rebuild that made p's ghosts.
  void set_plan(const HaloExchange& halo, const DeviceParticles& p, cudaStream_t stream);
  // The halo plan of p's owned particles (box `coord` of geometry's grid) made on the device,
  // as HaloExchange::build makes it: export entries by destination rank, ghost records
  // exchanged, ghosts appended to p in receive order. flags->tower / plate / bonded count the imported
  // kinds (the caller resets them and reads them after a synchronisation). Returns the counts
  // (ghosts, bytes per step; tower and plate 0). Collective; synchronises.
  ImportCounts make_plan(DeviceParticles& p, const ExportGeometry& geometry, Int3 coord,
                         Scratch& scratch, DeviceFlags* flags, cudaStream_t stream);

  // The bytes of one ghost record per step (HaloExchange::set_record_bytes).
  void set_record_bytes(long long forward, long long reverse) {
    forward_bytes_ = forward;
    reverse_bytes_ = reverse;
  }
  bool remote() const { return !sends_.empty() || !recvs_.empty(); }
  const Communicator& communicator() const { return comm_; }
  bool reverse_needed() const { return reverse_; }
  const std::uint32_t* export_index() const { return export_index_.data(); }

  // Forward exchange without other ranks (asynchronous). `fused` not null: the pack kernel also
  // zeroes the ghost forces and fused->pairs, energy, virial (the force call's zeroing).
  void forward_local(DeviceParticles& p, DeviceFlags* fused, cudaStream_t stream);
  // Forward exchange with other ranks; returns with the ghosts in place (synchronises).
  void forward_remote(DeviceParticles& p, DeviceFlags* fused, cudaStream_t stream);
  // Reverse exchange without other ranks (asynchronous).
  void reverse_local(DeviceParticles& p, DeviceFlags* flags, cudaStream_t stream);
  // Reverse exchange with other ranks; returns with the owners' sums done (synchronises).
  void reverse_remote(DeviceParticles& p, DeviceFlags* flags, cudaStream_t stream);

  // field[n_owned + g] ← field[owner of ghost g] (device array laid out as the particles).
  // Collective when the plan has remote parts (then synchronises).
  template <class T>
  void forward_field(DeviceFieldHalo<T>& h, T* field, std::uint32_t n_owned, cudaStream_t stream,
                     int tag = HaloExchange::kFieldForwardTag) {
    ensure(h.buffer, m_);
    launch_pack_field<T>(field, export_index_.data(), m_, self_, h.buffer.data(), field + n_owned,
                         stream);
    h.exchange.remote(comm_, sends_, recvs_, h.buffer.data(), field + n_owned, tag, cuda_aware_,
                      stream);
  }
  // field[owner] += field[ghost] for fixed-point fields (std::int64_t, Fix3); none for full
  // shell. An overflow raises flags->sum_overflow. Collective as forward_field.
  template <class T>
  void reverse_field(DeviceFieldHalo<T>& h, T* field, std::uint32_t n_owned, DeviceFlags* flags,
                     cudaStream_t stream, int tag = HaloExchange::kFieldReverseTag) {
    if (!reverse_) return;
    ensure(h.buffer, m_);
    h.exchange.remote(comm_, recvs_, sends_, field + n_owned, h.buffer.data(), tag, cuda_aware_,
                      stream);
    launch_sum_ghost_field<T>(field, field + n_owned, h.buffer.data(), export_index_.data(), m_,
                              self_, flags, stream);
  }

 private:
  long long forward_bytes_ = 24, reverse_bytes_ = 24;
  void reserve(std::uint32_t m);

  const Communicator& comm_;
  bool reverse_;
  bool cuda_aware_;
  std::vector<MessagePart> sends_, recvs_;  // remote parts of the plan
  std::uint32_t m_ = 0;                     // export entries (send buffer length)
  SelfPart self_{0, 0, 0};
  DeviceBuffer<std::uint32_t> export_index_;
  DeviceBuffer<Vec3> send_x_;
  DeviceBuffer<Fix3> send_f_;
  DeviceExchange<Vec3> forward_exchange_;
  DeviceExchange<Fix3> reverse_exchange_;
  // make_plan: entries per owned particle and their scan; the entries; their order by
  // destination; the ghost records sent and received.
  DeviceBuffer<std::uint32_t> counts_, entry_offsets_;
  DeviceBuffer<std::uint32_t> dest_, particle_, perm_, dest_offsets_;
  DeviceBuffer<Int3> entry_shift_;
  DeviceBuffer<ImportKind> entry_kind_;
  DeviceBuffer<GhostRecord> send_ghosts_, recv_ghosts_;
  DeviceExchange<GhostRecord> ghost_exchange_;
  std::vector<std::uint32_t> h_dest_offsets_;
  std::vector<std::size_t> send_offsets_;
};

}  // namespace scanmd::cuda_step
