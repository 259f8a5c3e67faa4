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
// Every step:
//   forward()  ghost positions refreshed from their owners along the saved plan
//   reverse()  ghost forces (fixed point) sent back and summed into the owners
// Nothing here knows about pairs; the method enters only through ImportRegion.
#pragma once

#include <cstdint>
#include <vector>

#include "base/box.hpp"
#include "base/particles.hpp"
#include "base/communicator.hpp"
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
  long long bytes_per_step = 0;  // bytes this rank sends per step (forward + reverse)
  long long device_to_host_bytes = 0;  // CUDA backend: bytes the rebuild copied off the device
};

class HaloExchange {
 public:
  HaloExchange(const Communicator& comm, const RankGrid& grid, const Box& box, Method method,
               double import_cutoff);

  void migrate(ParticleStore& p);
  ImportCounts build(ParticleStore& p);
  void forward(ParticleStore& p);
  void reverse(ParticleStore& p);

  Int3 coord() const { return coord_; }
  Method method() const { return method_; }
  // New cut planes (load balancing); the next migrate() and build() use them.
  void set_grid(const RankGrid& grid) {
    grid_ = grid;
    selector_ = ExportSelector(grid, box_, method_, r_);
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

 private:
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

  const Communicator& comm_;
  RankGrid grid_;
  Box box_;
  Method method_;
  double r_;
  Int3 coord_;
  ExportSelector selector_;
  kernels::Workspace ws_;

  // The halo plan of the last build.
  ExchangePlan plan_;
  std::vector<std::uint32_t> export_index_;  // owned index per export entry, destination order
  std::vector<Vec3> send_x_;
  std::vector<Fix3> send_f_;

  // Scratch reused across rebuilds.
  std::vector<std::uint32_t> keys_, offsets32_, perm_;
  std::vector<std::size_t> offsets_;
  ExportList exports_;
  std::vector<GhostRecord> send_ghosts_, recv_ghosts_;
  std::vector<MigrantRecord> leaving_, send_migrants_, recv_migrants_;
};

}  // namespace scanmd
