// Migration and the ghost halo of one rank: plans on rebuild steps, execution every step.
//
// Rebuild step (DESIGN.md §2):
//   migrate()  each owned particle goes to the rank whose box holds it: those that stay are
//              compacted in place, those that leave are binned by destination rank with a
//              counting sort (kernels/), each bin sent as one message, and the arrivals
//              appended.
//   build()    export selection (ExportSelector): every owned particle's periodic images are
//              tested against the import region of every box within R of them; the
//              (destination, particle, S) entries are binned by destination with the same
//              counting sort and sent. Receivers append them as ghosts in source-rank
//              order. This works for any R relative to the box: an image is offered to every
//              box it can reach, not only the 26 neighbours.
//   Both share their loops over the particles and the records among the rank's OpenMP
//   threads from kThreadedFrom particles on, leaving the store as one thread's loops do.
// Every step:
//   forward()  ghost positions refreshed from their owners along the saved plan
//   reverse()  ghost forces (fixed point) sent back and summed into the owners
// Both are instances of the field halo (Cabana's gather / scatter): forward_field() copies any
// per-particle field of the owners into their ghosts' slots, reverse_field() sums any fixed-point
// field of the ghosts into their owners (integer sums: exact and order-free), one plan per
// rebuild for every field — EAM densities and F'(ρ), DPD velocities, bond ids ride it as
// positions and forces do.
// Nothing here knows about pairs; the method enters only through ImportRegion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "base/box.hpp"
#include "base/communicator.hpp"
#include "base/fixed_point.hpp"
#include "base/particles.hpp"
#include "decomposition/exchange_plan.hpp"
#include "decomposition/export_selection.hpp"
#include "decomposition/import_rule.hpp"
#include "decomposition/rank_grid.hpp"
#include "kernels/workspace.hpp"

namespace scanmd {

// What one rank imported at one rebuild.
struct ImportCounts {
  long long ghosts = 0;  // all imported images (for one rank: periodic self-images)
  long long tower = 0;   // neutral territory only
  long long plate = 0;
  long long bonded = 0;  // neutral territory with angles: the bonded shell (import_rule.hpp)
  long long bytes_per_step = 0;        // bytes this rank sends per step (forward + reverse)
  long long device_to_host_bytes = 0;  // CUDA backend: bytes the rebuild copied off the device
};

class HaloExchange {
 public:
  // `bonded_shell`: R_b, the bonded shell of neutral territory with angles (0: none).
  HaloExchange(const Communicator& comm, const RankGrid& grid, const Box& box, Method method,
               double import_cutoff, double bonded_shell = 0.0);

  void migrate(ParticleStore& p);
  // `records`: a Workspace whose slots kRecordSlot and kRecordSlot + 1 hold the ghost records
  // of the build (reused from one build to the next: the host backend's, whose neighbour-list
  // build uses the same slots afterwards); none: vectors freed at the end of the build.
  ImportCounts build(ParticleStore& p, kernels::Workspace* records = nullptr);
  static constexpr std::size_t kRecordSlot = kernels::Workspace::kUserSlot;
  // The bytes of one ghost record per step, forward and reverse, for build()'s bytes_per_step
  // (default: x and f, 24 each; the force computes add their fields: halo_record_bytes).
  void set_record_bytes(long long forward, long long reverse) {
    forward_bytes_ = forward;
    reverse_bytes_ = reverse;
  }
  void forward(ParticleStore& p);
  void reverse(ParticleStore& p);

  // field[n_owned + g] ← field[owner of ghost g] for every ghost of the last build(); `field`
  // holds the owned particles first, then room for the ghosts (size >= n_owned + ghosts). Any
  // trivially copyable T. Collective.
  template <class T>
  void forward_field(std::span<T> field, std::size_t n_owned, int tag = kFieldForwardTag);
  // field[owner] += field[n_owned + g] summed over every ghost g of the owner, for fixed-point
  // fields (std::int64_t or Fix3); none for full shell, whose ghosts' terms are computed on their
  // owners too. An int64 overflow throws std::overflow_error naming the particle (ids) and
  // `what` ("force"). Collective.
  template <class T>
  void reverse_field(std::span<T> field, std::size_t n_owned, std::span<const std::uint64_t> ids,
                     const char* what, int tag = kFieldReverseTag);
  // The same for a column of `width` values per particle (the optional per-particle fields of
  // base/particle_fields.hpp): forward copies any words; reverse sums int64 (fixed-point) values.
  void forward_words(std::span<std::uint64_t> words, std::size_t width, std::size_t n_owned,
                     int tag = kFieldForwardTag);
  void reverse_sum_words(std::span<std::int64_t> values, std::size_t width, std::size_t n_owned,
                         std::span<const std::uint64_t> ids, const char* what,
                         int tag = kFieldReverseTag);
  // The ghosts of the last build() (the receive side of the plan).
  std::size_t ghost_count() const { return plan_.recv_total; }

  Int3 coord() const { return coord_; }
  // The ranks it exchanges among (a compute's own reductions between its exchanges).
  const Communicator& communicator() const { return comm_; }
  Method method() const { return method_; }
  // New cut planes (load balancing); the next migrate() and build() use them.
  void set_grid(const RankGrid& grid) {
    grid_ = grid;
    selector_ = ExportSelector(grid, box_, method_, r_, bonded_shell_);
  }

  // The plan of the last build(), for other executors of it (the CUDA backend runs forward()
  // and reverse() on device buffers): the send buffer holds entry k = owned particle
  // export_index()[k], laid out by destination rank; ghosts are received in plan().recvs order.
  const ExchangePlan& plan() const { return plan_; }
  const std::vector<std::uint32_t>& export_index() const { return export_index_; }

  // Message tags of the migration, the ghost records, the forward and reverse exchanges.
  static constexpr int kMigrateTag = 101;
  static constexpr int kGhostTag = 102;
  static constexpr int kForwardTag = 103;
  static constexpr int kReverseTag = 104;
  static constexpr int kFieldForwardTag = 105;  // forward_field / reverse_field by default
  static constexpr int kFieldReverseTag = 106;
  static constexpr int kMigrateFieldsTag = 107;  // the optional fields' words of migrants

 private:
  long long forward_bytes_ = 24, reverse_bytes_ = 24;
  struct GhostRecord {
    std::uint64_t id;
    std::uint32_t type;
    Vec3 x;
    Int3 home;
    Int3 shift;
    ImportKind kind;
  };
  struct MigrantRecord {
    std::uint64_t id;
    std::uint32_t type;
    Vec3 x, v;
    Int3 image;
  };

  // Room for n items of T in the field scratch (reused: no allocation per step once grown).
  template <class T>
  T* scratch(std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= alignof(std::max_align_t));
    field_scratch_.resize((n * sizeof(T) + sizeof(std::max_align_t) - 1) /
                          sizeof(std::max_align_t));
    return reinterpret_cast<T*>(field_scratch_.data());
  }
  static void add_fixed(std::int64_t& a, std::int64_t b, bool& overflow) {
    fixed::add_checked(a, b, overflow);
  }
  static void add_fixed(Fix3& a, const Fix3& b, bool& overflow) {
    fixed::add_checked(a.x, b.x, overflow);
    fixed::add_checked(a.y, b.y, overflow);
    fixed::add_checked(a.z, b.z, overflow);
  }

  const Communicator& comm_;
  RankGrid grid_;
  Box box_;
  Method method_;
  double r_;
  double bonded_shell_;
  Int3 coord_;
  ExportSelector selector_;
  kernels::Workspace ws_;

  // The halo plan of the last build.
  ExchangePlan plan_;
  std::vector<std::uint32_t> export_index_;      // owned index per export entry, destination order
  std::vector<std::max_align_t> field_scratch_;  // the send buffer of forward_/reverse_field

  // The loops over the particles or the records run on the rank's OpenMP threads from this
  // many on (each index on its own: the same result on any thread count).
  static constexpr std::size_t kThreadedFrom = 4096;

  // Scratch reused across rebuilds.
  std::vector<std::uint32_t> dest_;  // migrate on threads: each owned particle's destination
  std::vector<std::uint32_t> keys_, offsets32_, perm_;
  std::vector<std::size_t> offsets_;
  ExportList exports_;
  std::vector<GhostRecord> send_ghosts_, recv_ghosts_;
  std::vector<MigrantRecord> leaving_, send_migrants_, recv_migrants_;
  std::vector<std::uint64_t> leaving_words_, send_words_, recv_words_;  // optional fields' words
};

template <class T>
void HaloExchange::forward_field(std::span<T> field, std::size_t n_owned, int tag) {
  const std::size_t m = export_index_.size();
  if (field.size() < n_owned + plan_.recv_total)
    throw std::logic_error("forward_field: no room for the ghosts of the plan");
  T* send = scratch<T>(m);
  for (std::size_t k = 0; k < m; ++k) send[k] = field[export_index_[k]];
  // Received straight into the ghost slots: they are laid out in receive order.
  execute<T>(comm_, plan_, std::span<const T>(send, m), field.subspan(n_owned, plan_.recv_total),
             tag);
}

template <class T>
void HaloExchange::reverse_field(std::span<T> field, std::size_t n_owned,
                                 std::span<const std::uint64_t> ids, const char* what, int tag) {
  if (!has_reverse_exchange(method_)) return;
  const std::size_t m = export_index_.size();
  T* back = scratch<T>(m);
  execute_reverse<T>(comm_, plan_, std::span<const T>(field.data() + n_owned, plan_.recv_total),
                     std::span<T>(back, m), tag);
  bool overflow = false;
  for (std::size_t k = 0; k < m; ++k) {
    add_fixed(field[export_index_[k]], back[k], overflow);
    if (overflow)
      throw std::overflow_error("fixed-point " + std::string(what) + " sum overflow on particle " +
                                std::to_string(ids[export_index_[k]]) +
                                ": particles overlap or the time step is too large");
  }
}

}  // namespace scanmd
