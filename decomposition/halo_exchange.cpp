#include "decomposition/halo_exchange.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "base/fixed_point.hpp"

#include "kernels/counting_sort.hpp"

namespace scanmd {

namespace {
constexpr int kTagMigrate = HaloExchange::kMigrateTag;
constexpr int kTagGhosts = HaloExchange::kGhostTag;
constexpr int kTagForward = HaloExchange::kForwardTag;
constexpr int kTagReverse = HaloExchange::kReverseTag;
}  // namespace

HaloExchange::HaloExchange(const Communicator& comm, const RankGrid& grid, const Box& box,
                           Method method, double import_cutoff, double bonded_shell)
    : comm_(comm),
      grid_(grid),
      box_(box),
      method_(method),
      r_(import_cutoff),
      bonded_shell_(bonded_shell),
      coord_(grid.coord_of(comm.rank())),
      selector_(grid, box, method, import_cutoff, bonded_shell) {}

void HaloExchange::migrate(ParticleStore& p) {
  p.clear_ghosts();
  const std::size_t n = p.n_owned;
  const int P = comm_.size();
  const auto me = static_cast<std::uint32_t>(comm_.rank());
  // Stayers are compacted in place, in their order (as push_owned would store them); leavers are
  // copied out first and binned by destination: count → scan → scatter over the leavers only,
  // so no buffer the size of the store is needed.
  // The optional per-particle fields' State words travel in a second buffer, w per migrant.
  const std::size_t w = p.fields.state_words();
  keys_.clear();
  leaving_.clear();
  leaving_words_.clear();
  const auto destination = [&](std::size_t i) {
    return static_cast<std::uint32_t>(grid_.rank_of(grid_.box_of(p.x[i])));
  };
  // Particle i leaves for `dest`, or stays as the kept-th.
  const auto leave = [&](std::size_t i, std::uint32_t dest) {
    keys_.push_back(dest);
    leaving_.push_back({p.id[i], p.type[i], p.x[i], p.v[i], p.image[i]});
    if (w > 0) {
      leaving_words_.resize(leaving_words_.size() + w);
      p.fields.pack_state(i, leaving_words_.data() + leaving_words_.size() - w);
    }
  };
  const auto stay = [&](std::size_t i, std::size_t kept) {
    if (kept == i) return;
    p.id[kept] = p.id[i];
    p.type[kept] = p.type[i];
    p.x[kept] = p.x[i];
    p.v[kept] = p.v[i];
    p.image[kept] = p.image[i];
    p.fields.copy(i, kept);
  };
  // A stayer's per-build fields (x_build: set by build(), which follows).
  const auto reset = [&](std::size_t k) {
    p.f[k] = {0, 0, 0};
    p.home[k] = coord_;
    p.shift[k] = {0, 0, 0};
  };
  std::size_t kept = 0;
  const int threads = n >= kThreadedFrom ? omp_get_max_threads() : 1;
  if (threads == 1) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t dest = destination(i);
      if (dest != me) {
        leave(i, dest);
        continue;
      }
      stay(i, kept);
      reset(kept++);
    }
  } else {
    // The destinations on the rank's threads, then one pass in order if any particle leaves,
    // then the stayers' fields on the threads: the same store as one thread's loop.
    dest_.resize(n);
    std::size_t leavers = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : leavers)
    for (std::size_t i = 0; i < n; ++i) {
      dest_[i] = destination(i);
      leavers += dest_[i] != me ? 1 : 0;
    }
    kept = n;
    if (leavers > 0) {
      kept = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (dest_[i] != me)
          leave(i, dest_[i]);
        else
          stay(i, kept++);
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::size_t k = 0; k < kept; ++k) reset(k);
  }
  const std::size_t m = leaving_.size();
  offsets32_.resize(P + 1);
  perm_.resize(m);
  kernels::counting_sort(ws_, keys_, static_cast<std::uint32_t>(P), offsets32_, perm_);
  offsets_.assign(offsets32_.begin(), offsets32_.end());
  send_migrants_.resize(m);
  for (std::size_t k = 0; k < m; ++k) send_migrants_[k] = leaving_[perm_[k]];
  const ExchangePlan plan = ExchangePlan::make(comm_, offsets_);
  recv_migrants_.resize(plan.recv_total);
  execute<MigrantRecord>(comm_, plan, send_migrants_, recv_migrants_, kTagMigrate);

  if (w > 0) {
    send_words_.resize(m * w);
    for (std::size_t k = 0; k < m; ++k)
      std::copy_n(leaving_words_.data() + perm_[k] * w, w, send_words_.data() + k * w);
    recv_words_.resize(plan.recv_total * w);
    execute<std::uint64_t>(comm_, plan.scaled(w), send_words_, recv_words_, kMigrateFieldsTag);
  }

  p.resize(kept, kept);
  for (std::size_t k = 0; k < recv_migrants_.size(); ++k) {
    const MigrantRecord& r = recv_migrants_[k];
    p.push_owned(r.id, r.type, r.x, r.v, r.image, coord_);
    if (w > 0) p.fields.unpack_state(p.n_owned - 1, recv_words_.data() + k * w);
  }
}

ImportCounts HaloExchange::build(ParticleStore& p, kernels::Workspace* records) {
  p.clear_ghosts();
  const std::size_t n = p.n_owned;
  const Int3 dims = grid_.dims();

  // 1. Export entries (the method's choice, shared with the virtual decomposition).
  exports_.clear();
  selector_.select(std::span<const Vec3>(p.x.data(), n), coord_, exports_);

  // 2. Bin the entries by destination rank: count → scan → scatter.
  const int P = comm_.size();
  const std::size_t m = exports_.size();
  offsets32_.resize(P + 1);
  perm_.resize(m);
  kernels::counting_sort(ws_, exports_.dest, static_cast<std::uint32_t>(P), offsets32_, perm_);
  offsets_.assign(offsets32_.begin(), offsets32_.end());
  export_index_.resize(m);
  std::span<GhostRecord> send;
  if (records) {
    send = records->get<GhostRecord>(kRecordSlot, m);
  } else {
    send_ghosts_.resize(m);
    send = send_ghosts_;
  }
  const int threads = std::max(n, m) >= kThreadedFrom ? omp_get_max_threads() : 1;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::size_t k = 0; k < m; ++k) {
    const std::uint32_t e = perm_[k];
    const std::uint32_t i = exports_.particle[e];
    export_index_[k] = i;
    send[k] = {p.id[i],           p.type[i],       p.x[i], p.home[i] + exports_.shift[e] * dims,
               exports_.shift[e], exports_.kind[e]};
  }

  // 3. Send; receivers append ghosts.
  plan_ = ExchangePlan::make(comm_, offsets_);
  std::span<GhostRecord> recv;
  if (records) {
    recv = records->get<GhostRecord>(kRecordSlot + 1, plan_.recv_total);
  } else {
    recv_ghosts_.resize(plan_.recv_total);
    recv = recv_ghosts_;
  }
  execute<GhostRecord>(comm_, plan_, send, recv, kTagGhosts);

  ImportCounts counts;
  p.resize(n, n + recv.size());
  long long tower = 0, plate = 0, bonded = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : tower, plate, bonded)
  for (std::size_t k = 0; k < recv.size(); ++k) {
    const GhostRecord& g = recv[k];
    const std::size_t j = n + k;
    p.id[j] = g.id;
    p.type[j] = g.type;
    p.x[j] = g.x;
    p.home[j] = g.home;
    p.shift[j] = g.shift;
    p.f[j] = {0, 0, 0};
    tower += g.kind == ImportKind::Tower;
    plate += g.kind == ImportKind::Plate;
    bonded += g.kind == ImportKind::Bonded;
  }
  counts.tower = tower;
  counts.plate = plate;
  counts.bonded = bonded;
  counts.ghosts = static_cast<long long>(recv.size());
  const long long fwd = static_cast<long long>(plan_.remote_send_count()) * forward_bytes_;
  const long long rev = has_reverse_exchange(method_)
                            ? static_cast<long long>(plan_.remote_recv_count()) * reverse_bytes_
                            : 0;
  counts.bytes_per_step = fwd + rev;

  scratch<Fix3>(plan_.send_total);  // the send buffer of the steps, grown once per build
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::size_t i = 0; i < n; ++i) p.x_build[i] = p.x[i];
  // The steps need only the export index and the send buffers: the records of this build are
  // freed (their pages go back at once: app/main.cpp), so they do not add to the peak memory of
  // the neighbour-list build that follows.
  exports_ = ExportList{};
  std::vector<std::uint32_t>().swap(perm_);
  std::vector<GhostRecord>().swap(send_ghosts_);
  std::vector<GhostRecord>().swap(recv_ghosts_);
  return counts;
}

void HaloExchange::forward(ParticleStore& p) {
  forward_field<Vec3>(p.x, p.n_owned, kTagForward);
}

void HaloExchange::reverse(ParticleStore& p) {
  reverse_field<Fix3>(p.f, p.n_owned, p.id, "force", kTagReverse);
}

void HaloExchange::forward_words(std::span<std::uint64_t> words, std::size_t width,
                                 std::size_t n_owned, int tag) {
  const std::size_t m = export_index_.size();
  if (words.size() < (n_owned + plan_.recv_total) * width)
    throw std::logic_error("forward_words: no room for the ghosts of the plan");
  std::uint64_t* send = scratch<std::uint64_t>(m * width);
  for (std::size_t k = 0; k < m; ++k)
    std::copy_n(words.data() + export_index_[k] * width, width, send + k * width);
  execute<std::uint64_t>(comm_, plan_.scaled(width),
                         std::span<const std::uint64_t>(send, m * width),
                         words.subspan(n_owned * width, plan_.recv_total * width), tag);
}

void HaloExchange::reverse_sum_words(std::span<std::int64_t> values, std::size_t width,
                                     std::size_t n_owned, std::span<const std::uint64_t> ids,
                                     const char* what, int tag) {
  if (!has_reverse_exchange(method_)) return;
  const std::size_t m = export_index_.size();
  std::int64_t* back = scratch<std::int64_t>(m * width);
  execute_reverse<std::int64_t>(
      comm_, plan_.scaled(width),
      std::span<const std::int64_t>(values.data() + n_owned * width, plan_.recv_total * width),
      std::span<std::int64_t>(back, m * width), tag);
  bool overflow = false;
  for (std::size_t k = 0; k < m; ++k) {
    for (std::size_t j = 0; j < width; ++j)
      add_fixed(values[export_index_[k] * width + j], back[k * width + j], overflow);
    if (overflow)
      throw std::overflow_error("fixed-point " + std::string(what) + " sum overflow on particle " +
                                std::to_string(ids[export_index_[k]]));
  }
}

}  // namespace scanmd
