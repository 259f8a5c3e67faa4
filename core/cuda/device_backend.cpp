// core/cuda/device_backend.cpp — the CUDA time step of one rank: device buffers, the order of
// the kernels (core/cuda/*.cu), the halo exchange on device data and the error flags.
//
// Layout on the device (grow-only DeviceBuffers, owned first, ghosts after them, as on the
// host): id, x, home, shift, f for owned + ghosts; v, image, x_build for owned; the halo plan's
// export index and send buffers; the cell list (q, cell, key → counting sort → order, offsets,
// rank, q_sorted, home_sorted); the neighbour list (run counts / offsets, row lengths / offsets,
// neighbours, terms). One stream; every synchronisation point copies the DeviceFlags to pinned
// memory and raises pending errors first (raise_errors), so nothing observes a broken state.
//
// Timings: kernels are timed with CUDA events around each device phase (pair, the device-only
// forward and reverse), collected after the next stream synchronisation into the Timers the
// Simulation owns; phases that wait for the host (rebuild, exchanges with other ranks) start
// with a stream synchronisation outside their timer and are timed on the wall clock, so no
// phase is charged for the device work queued before it.
//
// MPI: remote parts of the forward / reverse exchanges go through pinned host buffers, or
// straight from device memory when the MPI library reports CUDA support at run time
// (MPIX_Query_cuda_support of Open MPI's mpi-ext.h). Self parts never leave the device.
#include "core/cuda/device_backend.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/cell_list.hpp"
#include "core/cuda/launch.hpp"
#include "core/fixed_terms.hpp"
#include "decomposition/communicator.hpp"
#include "decomposition/exchange_plan.hpp"
#include "decomposition/halo_exchange.hpp"
#include "kernels/cuda/api.hpp"

namespace scanmd {

namespace {

using cuda_step::DeviceFlags;
using cuda_step::kNone;
using kernels::cuda::check;
using kernels::cuda::DeviceBuffer;

// Grows a device buffer to at least n elements, with a quarter of headroom so that slowly
// growing particle counts do not reallocate at every rebuild. Contents are discarded on growth.
template <class T>
void ensure(DeviceBuffer<T>& b, std::size_t n) {
  if (b.size() < n) b.grow(n + n / 4);
}

// RAII page-locked host buffer (staging of MPI messages, the flags mirror); grow-only.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  void ensure(std::size_t n) {
    if (n <= size_) return;
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    size_ = 0;
    void* p = nullptr;
    const std::size_t want = n + n / 4;
    check(cudaMallocHost(&p, std::max<std::size_t>(want, 1) * sizeof(T)), "cudaMallocHost");
    ptr_ = static_cast<T*>(p);
    size_ = want;
  }
  T* data() { return ptr_; }
  T& operator*() { return *ptr_; }
  T* operator->() { return ptr_; }

 private:
  T* ptr_ = nullptr;
  std::size_t size_ = 0;
};

// CUDA events around device phases, harvested into Timers after a synchronisation.
class EventTimer {
 public:
  EventTimer() = default;
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    for (const Pending& p : pending_) {
      cudaEventDestroy(p.start);
      cudaEventDestroy(p.stop);
    }
    for (cudaEvent_t e : free_) cudaEventDestroy(e);
  }

  void begin(Phase phase, cudaStream_t stream) {
    Pending p{phase, take(), nullptr};
    check(cudaEventRecord(p.start, stream), "cudaEventRecord");
    pending_.push_back(p);
  }
  void end(cudaStream_t stream) {
    Pending& p = pending_.back();
    p.stop = take();
    check(cudaEventRecord(p.stop, stream), "cudaEventRecord");
  }
  // Only after the stream was synchronised: every recorded event has completed.
  void harvest(Timers& timers) {
    for (const Pending& p : pending_) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, p.start, p.stop), "cudaEventElapsedTime");
      timers.add(p.phase, 1e-3 * ms);
      free_.push_back(p.start);
      free_.push_back(p.stop);
    }
    pending_.clear();
  }

 private:
  struct Pending {
    Phase phase;
    cudaEvent_t start, stop;
  };
  cudaEvent_t take() {
    if (!free_.empty()) {
      cudaEvent_t e = free_.back();
      free_.pop_back();
      return e;
    }
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    return e;
  }
  std::vector<cudaEvent_t> free_;
  std::vector<Pending> pending_;
};

bool mpi_cuda_aware() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string mpi_path_name(bool aware) {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return aware ? "CUDA-aware (MPIX_Query_cuda_support() = 1): device buffers to MPI"
               : "host-staged (MPIX_Query_cuda_support() = 0: this MPI has no CUDA support)";
#else
  (void)aware;
  return "host-staged (the MPI library offers no CUDA-awareness query)";
#endif
}

bool resolve_local_rebuild(bool configured, const Communicator& comm) {
  if (comm.size() != 1) return false;
  const char* env = std::getenv("SCANMD_CUDA_REBUILD");
  if (env == nullptr || *env == '\0') return configured;
  const std::string_view v(env);
  if (v == "device") return true;
  if (v == "host") return false;
  throw std::runtime_error(
      fmt::format("SCANMD_CUDA_REBUILD={}: expected \"device\" or \"host\"", v));
}

NeighborFill resolve_fill(NeighborFill configured) {
  const char* env = std::getenv("SCANMD_CUDA_NL_FILL");
  if (env == nullptr || *env == '\0') return configured;
  const std::string_view v(env);
  if (v == "segmented") return NeighborFill::SegmentedScan;
  if (v == "atomic") return NeighborFill::AtomicCounters;
  throw std::runtime_error(
      fmt::format("SCANMD_CUDA_NL_FILL={}: expected \"segmented\" or \"atomic\"", v));
}

std::string_view fill_name(NeighborFill f) {
  return f == NeighborFill::SegmentedScan ? "segmented scan" : "atomic row counters";
}

// This rank's rank among the ranks of its node (collective over comm).
int node_local_rank(const Communicator& comm) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(
      MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node),
      "MPI_Comm_split_type");
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return fmt::format("{} (cc {}.{}, {:.1f} GiB), device {}", prop.name, prop.major, prop.minor,
                     static_cast<double>(prop.totalGlobalMem) / (1 << 30), device);
}

template <class T>
T read_one(const T* d_ptr, cudaStream_t stream) {
  T v{};
  check(cudaMemcpyAsync(&v, d_ptr, sizeof(T), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync D2H");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return v;
}

template <class T>
void download(std::vector<T>& h, const DeviceBuffer<T>& d, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  if (h.size() < n) h.resize(n);
  check(cudaMemcpyAsync(h.data(), d.data(), n * sizeof(T), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync D2H");
}

fixed::Wide wide(const unsigned long long (&w)[2]) {
  const unsigned __int128 u = (static_cast<unsigned __int128>(w[1]) << 64) | w[0];
  return static_cast<fixed::Wide>(u);
}

class CudaBackend final : public DeviceBackend {
 public:
  // `device` is current already (make_device_backend).
  CudaBackend(const Communicator& comm, const DeviceConfig& config, int device)
      : comm_(comm),
        config_(config),
        fill_(resolve_fill(config.fill)),
        local_rebuild_(resolve_local_rebuild(config.local_rebuild, comm)),
        device_(device) {
    // The stream and events are raw handles: a throw below would skip the destructor.
    try {
      check(cudaStreamCreate(&stream_), "cudaStreamCreate");
      for (cudaEvent_t& e : build_events_) check(cudaEventCreate(&e), "cudaEventCreate");
      cuda_aware_ = mpi_cuda_aware();
      grid_ = CellGrid::make(config.lo, config.hi, config.import_cutoff, config.import_cutoff);
      flags_.grow(1);
      h_flags_.ensure(1);
      DeviceFlags init{};
      init.bad_position = init.bad_cell = init.pair_overflow = init.sum_overflow =
          init.kinetic_overflow = kNone;
      check(cudaMemcpy(flags_.data(), &init, sizeof init, cudaMemcpyHostToDevice),
            "cudaMemcpy flags");
      *h_flags_ = init;
      description_ = fmt::format(
          "CUDA on {}; MPI: {}; neighbour fill: {}; rebuilds: {}", device_name(device_),
          mpi_path_name(cuda_aware_), fill_name(fill_),
          local_rebuild_ ? "on the device (one rank)" : "migration and halo plan on the host");
    } catch (...) {
      release_handles();
      throw;
    }
  }

  ~CudaBackend() override { release_handles(); }

  std::string description() const override { return description_; }

  void upload(const ParticleStore& p, const HaloExchange& halo, Timers& timers) override {
    synchronize(timers);
    ScopedTimer t(timers, Phase::Neigh);
    const std::size_t n = p.size();
    check_size(n);
    const std::vector<std::uint32_t>& export_index = halo.export_index();
    plan_ = halo.plan();
    n_owned_ = static_cast<std::uint32_t>(p.n_owned);
    n_ = static_cast<std::uint32_t>(n);
    m_ = static_cast<std::uint32_t>(export_index.size());
    if (m_ != plan_.send_total || n != p.n_owned + plan_.recv_total)
      throw std::logic_error("backend cuda: halo plan and particle store disagree");
    self_ = {static_cast<std::uint32_t>(plan_.self_send.offset),
             static_cast<std::uint32_t>(plan_.self_recv.offset),
             static_cast<std::uint32_t>(plan_.self_send.count)};
    if (plan_.self_send.count != plan_.self_recv.count)
      throw std::logic_error("backend cuda: self part of the halo plan is not symmetric");
    remote_ = !plan_.sends.empty() || !plan_.recvs.empty();

    ensure(id_, n);
    ensure(x_, n);
    ensure(home_, n);
    ensure(shift_, n);
    ensure(f_, n);
    ensure(v_, n_owned_);
    ensure(image_, n_owned_);
    ensure(x_build_, n_owned_);
    ensure(export_index_, m_);
    ensure(send_x_, m_);
    ensure(send_f_, m_);
    upload_array(id_, p.id, n);
    upload_array(x_, p.x, n);
    upload_array(home_, p.home, n);
    upload_array(shift_, p.shift, n);
    upload_array(v_, p.v, n_owned_);
    upload_array(image_, p.image, n_owned_);
    upload_array(x_build_, p.x_build, n_owned_);
    upload_array(export_index_, export_index, m_);
    if (n > 0)
      check(cudaMemsetAsync(f_.data(), 0, n * sizeof(Fix3), stream_), "cudaMemsetAsync forces");
    build_all();
  }

  DeviceBuildTimes last_build_times() const override { return build_times_; }

  bool rebuilds_locally() const override { return local_rebuild_; }

  DeviceImportCounts rebuild_locally(Timers& timers) override {
    if (!local_rebuild_) throw std::logic_error("backend cuda: rebuild_locally on several ranks");
    synchronize(timers);
    {
      // Owned particles in cell order, as the host rebuild sorts them: neighbours stay close
      // in memory, and the layout stays the host's.
      ScopedTimer t(timers, Phase::Neigh);
      sort_owned();
    }
    std::uint32_t m = 0;
    {
      ScopedTimer t(timers, Phase::Plan);
      ensure(images_, n_owned_);
      ensure(image_offsets_, std::size_t{n_owned_} + 1);
      ensure_scratch(kernels::cuda::scan_scratch_bytes<std::uint32_t>(n_owned_));
      check(cudaMemsetAsync(&flags_.data()->tower, 0, 2 * sizeof(unsigned long long), stream_),
            "cudaMemsetAsync flags");
      cuda_step::launch_count_images(ghost_args(), images_.data(), stream_);
      kernels::cuda::exclusive_scan<std::uint32_t>(
          scratch_.data(), scratch_.size(),
          std::span<const std::uint32_t>(images_.data(), n_owned_),
          std::span<std::uint32_t>(image_offsets_.data(), n_owned_),
          image_offsets_.data() + n_owned_, stream_);
      m = read_one(image_offsets_.data() + n_owned_, stream_);
      const std::size_t n = std::size_t{n_owned_} + m;
      check_size(n);
      // Owned data stay where they are; the ghost slots behind them are rewritten.
      grow_keeping(id_, n, n_owned_);
      grow_keeping(x_, n, n_owned_);
      grow_keeping(home_, n, n_owned_);
      grow_keeping(shift_, n, n_owned_);
      ensure(f_, n);
      ensure(export_index_, m);
      ensure(send_x_, m);
      ensure(send_f_, m);
      cuda_step::launch_fill_ghosts(ghost_args(), image_offsets_.data(), export_index_.data(),
                                    stream_);
      copy_d2d(x_build_.data(), x_.data(), n_owned_);
      check(cudaMemsetAsync(f_.data(), 0, n * sizeof(Fix3), stream_), "cudaMemsetAsync forces");
      n_ = static_cast<std::uint32_t>(n);
      m_ = m;
      plan_ = ExchangePlan{};
      plan_.self_send = {comm_.rank(), 0, m};
      plan_.self_recv = {comm_.rank(), 0, m};
      plan_.send_total = plan_.recv_total = m;
      self_ = {0, 0, m};
      remote_ = false;
    }
    ScopedTimer t(timers, Phase::Neigh);
    build_all();
    return {static_cast<long long>(m), static_cast<long long>(h_flags_->tower),
            static_cast<long long>(h_flags_->plate)};
  }

  void download_owned(ParticleStore& p) override {
    synchronize_only();
    raise_errors();
    if (p.n_owned != n_owned_)
      throw std::logic_error("backend cuda: host store and device disagree on the owned count");
    download(p.id, id_, n_owned_, stream_);
    download(p.x, x_, n_owned_, stream_);
    download(p.v, v_, n_owned_, stream_);
    download(p.image, image_, n_owned_, stream_);
    download(p.f, f_, n_owned_, stream_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (download)");
  }

  bool initial_integrate(Timers& timers) override {
    check(cudaMemsetAsync(&flags_.data()->moved, 0, sizeof(unsigned long long), stream_),
          "cudaMemsetAsync flags");
    const cuda_step::IntegrateArgs a{
        x_.data(),       v_.data(),   image_.data(), f_.data(),
        x_build_.data(), n_owned_,    config_.dt,    0.5 * config_.dt / config_.mass,
        moved_sq(),      config_.box, flags_.data()};
    cuda_step::launch_initial_integrate(a, stream_);
    synchronize(timers);
    return h_flags_->moved != 0;
  }

  void forward(Timers& timers) override {
    if (!remote_) {
      events_.begin(Phase::Forward, stream_);
      pack_positions();
      events_.end(stream_);
      return;
    }
    synchronize(timers);
    ScopedTimer t(timers, Phase::Forward);
    pack_positions();
    std::byte* ghosts = reinterpret_cast<std::byte*>(x_.data() + n_owned_);
    if (cuda_aware_) {
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (forward pack)");
      detail::exchange_bytes(comm_, plan_.sends, plan_.recvs,
                             reinterpret_cast<const std::byte*>(send_x_.data()), ghosts,
                             sizeof(Vec3), HaloExchange::kForwardTag);
      return;
    }
    h_send_x_.ensure(m_);
    h_recv_x_.ensure(plan_.recv_total);
    copy_d2h(h_send_x_.data(), send_x_.data(), m_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (forward pack)");
    detail::exchange_bytes(
        comm_, plan_.sends, plan_.recvs, reinterpret_cast<const std::byte*>(h_send_x_.data()),
        reinterpret_cast<std::byte*>(h_recv_x_.data()), sizeof(Vec3), HaloExchange::kForwardTag);
    for (const ExchangePlan::Part& part : plan_.recvs)
      copy_h2d(x_.data() + n_owned_ + part.offset, h_recv_x_.data() + part.offset, part.count);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (forward unpack)");
  }

  void compute_forces(bool with_energy, Timers&) override {
    events_.begin(Phase::Pair, stream_);
    check(cudaMemsetAsync(f_.data(), 0, std::size_t{n_} * sizeof(Fix3), stream_),
          "cudaMemsetAsync forces");
    // pairs, energy[2], virial[2]: contiguous in DeviceFlags.
    check(cudaMemsetAsync(&flags_.data()->pairs, 0, 5 * sizeof(unsigned long long), stream_),
          "cudaMemsetAsync flags");
    const cuda_step::ForceArgs a{x_.data(),   id_.data(),         row_offset_.data(),
                                 nbr_.data(), f_.data(),          n_,
                                 n_owned_,    config_.box.length, config_.box.half_length,
                                 config_.lj,  limit_sq_,          flags_.data()};
    cuda_step::launch_lj_forces(a, with_energy, config_.method == Method::FullShell, stream_);
    events_.end(stream_);
  }

  void reverse(Timers& timers) override {
    if (!has_reverse_exchange(config_.method)) return;
    if (!remote_) {
      events_.begin(Phase::Reverse, stream_);
      sum_ghost_forces();
      events_.end(stream_);
      return;
    }
    synchronize(timers);
    ScopedTimer t(timers, Phase::Reverse);
    const std::byte* ghost_f = reinterpret_cast<const std::byte*>(f_.data() + n_owned_);
    if (cuda_aware_) {
      detail::exchange_bytes(comm_, plan_.recvs, plan_.sends, ghost_f,
                             reinterpret_cast<std::byte*>(send_f_.data()), sizeof(Fix3),
                             HaloExchange::kReverseTag);
    } else {
      h_back_f_.ensure(plan_.recv_total);
      h_send_f_.ensure(m_);
      copy_d2h(h_back_f_.data(), f_.data() + n_owned_, plan_.recv_total);
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (reverse)");
      detail::exchange_bytes(
          comm_, plan_.recvs, plan_.sends, reinterpret_cast<const std::byte*>(h_back_f_.data()),
          reinterpret_cast<std::byte*>(h_send_f_.data()), sizeof(Fix3), HaloExchange::kReverseTag);
      for (const ExchangePlan::Part& part : plan_.sends)
        copy_h2d(send_f_.data() + part.offset, h_send_f_.data() + part.offset, part.count);
    }
    sum_ghost_forces();
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (reverse)");
  }

  void final_integrate() override {
    cuda_step::launch_final_integrate(v_.data(), f_.data(), n_owned_,
                                      0.5 * config_.dt / config_.mass, stream_);
  }

  DeviceForceTotals force_totals() override {
    synchronize_only();
    raise_errors();
    const DeviceFlags& h = *h_flags_;
    return {wide(h.energy), wide(h.virial), static_cast<long long>(h.pairs)};
  }

  fixed::Wide twice_kinetic() override {
    check(cudaMemsetAsync(&flags_.data()->kinetic, 0, 2 * sizeof(unsigned long long), stream_),
          "cudaMemsetAsync flags");
    cuda_step::launch_twice_kinetic(v_.data(), n_owned_, config_.mass, flags_.data(), stream_);
    synchronize_only();
    raise_errors();
    return wide(h_flags_->kinetic);
  }

  void synchronize(Timers& timers) override {
    synchronize_only();
    events_.harvest(timers);
    raise_errors();
  }

  void neighbor_list(std::vector<std::uint64_t>& offsets,
                     std::vector<std::uint32_t>& neighbors) override {
    synchronize_only();
    raise_errors();
    offsets.assign(std::size_t{n_} + 1, 0);
    download(offsets, row_offset_, std::size_t{n_} + 1, stream_);
    neighbors.assign(list_size_, 0);
    download(neighbors, nbr_, list_size_, stream_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (neighbour list)");
  }

 private:
  void release_handles() noexcept {
    if (stream_) {
      cudaStreamSynchronize(stream_);
      cudaStreamDestroy(stream_);
      stream_ = nullptr;
    }
    for (cudaEvent_t& e : build_events_)
      if (e) {
        cudaEventDestroy(e);
        e = nullptr;
      }
  }

  double moved_sq() const {
    const double limit = 0.5 * config_.skin;
    return limit * limit;
  }

  template <class T>
  void copy_d2h(T* h, const T* d, std::size_t n) {
    if (n == 0) return;
    check(cudaMemcpyAsync(h, d, n * sizeof(T), cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync D2H");
  }
  template <class T>
  void copy_h2d(T* d, const T* h, std::size_t n) {
    if (n == 0) return;
    check(cudaMemcpyAsync(d, h, n * sizeof(T), cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync H2D");
  }

  template <class T>
  void upload_array(DeviceBuffer<T>& d, const std::vector<T>& h, std::size_t n) {
    if (n == 0) return;
    if (h.size() < n) throw std::logic_error("backend cuda: host array shorter than its count");
    // From pageable memory: returns once the data are staged, so `h` may change afterwards.
    check(cudaMemcpyAsync(d.data(), h.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync H2D (upload)");
  }

  static void check_size(std::size_t n) {
    if (n >= (std::size_t{1} << 31) || n * cuda_step::kRunsPerRow >= (std::size_t{1} << 32))
      throw std::length_error(fmt::format(
          "backend cuda: {} particles (owned + ghosts) on one rank are more than this version "
          "supports (2^32 / 25); use more ranks",
          n));
  }

  // Grows b to at least n elements keeping its first `keep` (device to device).
  template <class T>
  void grow_keeping(DeviceBuffer<T>& b, std::size_t n, std::size_t keep) {
    if (b.size() >= n) return;
    DeviceBuffer<T> bigger(n + n / 4);
    if (keep > 0)
      check(cudaMemcpyAsync(bigger.data(), b.data(), keep * sizeof(T), cudaMemcpyDeviceToDevice,
                            stream_),
            "cudaMemcpyAsync D2D (grow)");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (grow)");
    b = std::move(bigger);  // the old buffer is freed with `bigger`
  }

  // Counting sort of the owned particles by cell (binning positions = positions: owned shifts
  // are 0), then id, x, v, image gathered into that order through scratch copies.
  void sort_owned() {
    const std::size_t cells = std::size_t(grid_.dims.x) * grid_.dims.y * grid_.dims.z;
    const auto K = static_cast<std::uint32_t>(cells);
    const std::uint32_t n = n_owned_;
    ensure(q_, n);
    ensure(cell_, n);
    ensure(key_, n);
    ensure(order_, n);
    ensure(cell_offsets_, std::size_t{K} + 1);
    ensure(sorted_id_, n);
    ensure(sorted_x_, n);
    ensure(sorted_v_, n);
    ensure(sorted_image_, n);
    ensure_scratch(kernels::cuda::counting_sort_scratch_bytes(n, K));
    cuda_step::launch_bin({x_.data(), shift_.data(), n, config_.box.length, grid_, q_.data(),
                           cell_.data(), key_.data(), flags_.data()},
                          stream_);
    kernels::cuda::counting_sort(scratch_.data(), scratch_.size(),
                                 std::span<const std::uint32_t>(key_.data(), n), K,
                                 std::span<std::uint32_t>(cell_offsets_.data(), std::size_t{K} + 1),
                                 std::span<std::uint32_t>(order_.data(), n), stream_);
    const cuda_step::OwnedArrays current{id_.data(), x_.data(), v_.data(), image_.data()};
    const cuda_step::OwnedArrays sorted{sorted_id_.data(), sorted_x_.data(), sorted_v_.data(),
                                        sorted_image_.data()};
    cuda_step::launch_gather_owned(order_.data(), n, current, sorted, stream_);
    copy_d2d(id_.data(), sorted_id_.data(), n);
    copy_d2d(x_.data(), sorted_x_.data(), n);
    copy_d2d(v_.data(), sorted_v_.data(), n);
    copy_d2d(image_.data(), sorted_image_.data(), n);
  }

  template <class T>
  void copy_d2d(T* to, const T* from, std::size_t n) {
    if (n == 0) return;
    check(cudaMemcpyAsync(to, from, n * sizeof(T), cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpyAsync D2D");
  }

  cuda_step::GhostArgs ghost_args() {
    return {id_.data(),   x_.data(),          home_.data(),          shift_.data(),
            n_owned_,     config_.box.length, config_.import_cutoff, config_.region,
            flags_.data()};
  }

  // Binning, list build, error check and the device times of both.
  void build_all() {
    check(cudaEventRecord(build_events_[0], stream_), "cudaEventRecord");
    build_cells();
    check(cudaEventRecord(build_events_[1], stream_), "cudaEventRecord");
    build_neighbors();
    check(cudaEventRecord(build_events_[2], stream_), "cudaEventRecord");
    synchronize_only();
    raise_errors();
    float ms[2] = {0, 0};
    check(cudaEventElapsedTime(&ms[0], build_events_[0], build_events_[1]), "cudaEventElapsedTime");
    check(cudaEventElapsedTime(&ms[1], build_events_[1], build_events_[2]), "cudaEventElapsedTime");
    build_times_ = {ms[0], ms[1], list_size_};
  }

  // Cell binning by counting sort (stable), then the cell-ordered copies the list build reads.
  void build_cells() {
    const std::size_t cells = std::size_t(grid_.dims.x) * grid_.dims.y * grid_.dims.z;
    if (cells >= std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("backend cuda: too many cells for one rank");
    const auto K = static_cast<std::uint32_t>(cells);
    ensure(q_, n_);
    ensure(cell_, n_);
    ensure(key_, n_);
    ensure(order_, n_);
    ensure(rank_, n_);
    ensure(q_sorted_, n_);
    ensure(home_sorted_, n_);
    ensure(cell_offsets_, std::size_t{K} + 1);
    ensure_scratch(kernels::cuda::counting_sort_scratch_bytes(n_, K));
    cuda_step::launch_bin({x_.data(), shift_.data(), n_, config_.box.length, grid_, q_.data(),
                           cell_.data(), key_.data(), flags_.data()},
                          stream_);
    // Synchronises the stream (key check).
    kernels::cuda::counting_sort(scratch_.data(), scratch_.size(),
                                 std::span<const std::uint32_t>(key_.data(), n_), K,
                                 std::span<std::uint32_t>(cell_offsets_.data(), std::size_t{K} + 1),
                                 std::span<std::uint32_t>(order_.data(), n_), stream_);
    cuda_step::launch_gather_sorted(order_.data(), q_.data(), home_.data(), n_, rank_.data(),
                                    q_sorted_.data(), home_sorted_.data(), stream_);
  }

  // count → place (segmented scan or atomics) → rows → exclusive scan → fill → max terms.
  void build_neighbors() {
    const std::size_t elements = std::size_t{n_} * cuda_step::kRunsPerRow;
    const bool segmented = fill_ == NeighborFill::SegmentedScan;
    ensure(run_offset_, elements);
    if (segmented) {
      ensure(run_count_, elements);
      ensure(heads_, elements);
      ensure_scratch(kernels::cuda::segmented_scan_scratch_bytes<std::uint32_t>(elements));
    }
    ensure(row_len_, n_);
    ensure(row_offset_, std::size_t{n_} + 1);
    ensure(terms_, n_);
    ensure_scratch(kernels::cuda::scan_scratch_bytes<std::uint64_t>(n_));

    const bool general = config_.method != Method::HalfShell && config_.method != Method::FullShell;
    const double R = config_.import_cutoff;
    const cuda_step::NeighborArgs a{x_.data(),
                                    id_.data(),
                                    home_.data(),
                                    cell_.data(),
                                    rank_.data(),
                                    q_sorted_.data(),
                                    home_sorted_.data(),
                                    order_.data(),
                                    cell_offsets_.data(),
                                    grid_.dims,
                                    n_,
                                    n_owned_,
                                    config_.rule,
                                    general,
                                    R * R};
    if (segmented) {
      cuda_step::launch_neighbor_count(a, run_count_.data(), heads_.data(), nullptr, nullptr,
                                       stream_);
      kernels::cuda::segmented_exclusive_scan<std::uint32_t>(
          scratch_.data(), scratch_.size(), std::span<const std::uint8_t>(heads_.data(), elements),
          std::span<const std::uint32_t>(run_count_.data(), elements),
          std::span<std::uint32_t>(run_offset_.data(), elements), stream_);
      cuda_step::launch_neighbor_rows(n_, run_count_.data(), run_offset_.data(), row_len_.data(),
                                      terms_.data(), stream_);
    } else {
      if (n_ > 0)
        check(cudaMemsetAsync(row_len_.data(), 0, std::size_t{n_} * sizeof(std::uint64_t), stream_),
              "cudaMemsetAsync row lengths");
      cuda_step::launch_neighbor_count(a, nullptr, nullptr, run_offset_.data(), row_len_.data(),
                                       stream_);
      cuda_step::launch_neighbor_rows(n_, nullptr, run_offset_.data(), row_len_.data(),
                                      terms_.data(), stream_);
    }
    kernels::cuda::exclusive_scan<std::uint64_t>(
        scratch_.data(), scratch_.size(), std::span<const std::uint64_t>(row_len_.data(), n_),
        std::span<std::uint64_t>(row_offset_.data(), n_), row_offset_.data() + n_, stream_);
    const std::uint64_t total = read_one(row_offset_.data() + n_, stream_);
    if (total >= std::numeric_limits<std::uint32_t>::max())
      throw std::length_error(fmt::format(
          "backend cuda: {} neighbour-list entries on one rank are more than this version "
          "supports (2^32); use more ranks",
          total));
    list_size_ = total;
    ensure(nbr_, std::max<std::uint64_t>(total, 1));
    check(cudaMemsetAsync(&flags_.data()->max_terms, 0, sizeof(unsigned long long), stream_),
          "cudaMemsetAsync flags");
    cuda_step::launch_neighbor_fill(a, run_offset_.data(), row_offset_.data(), nbr_.data(),
                                    terms_.data(), stream_);
    cuda_step::launch_max_terms(terms_.data(), n_, flags_.data(), stream_);
    const unsigned long long max_terms = read_one(&flags_.data()->max_terms, stream_);
    limit_sq_ = pair_term_limit_sq(static_cast<double>(max_terms));
  }

  void ensure_scratch(std::size_t bytes) {
    if (scratch_.size() < bytes) scratch_.grow(bytes + bytes / 4);
  }

  void pack_positions() {
    cuda_step::launch_pack_positions(x_.data(), export_index_.data(), m_, self_, send_x_.data(),
                                     x_.data() + n_owned_, stream_);
  }

  void sum_ghost_forces() {
    cuda_step::launch_sum_ghost_forces(f_.data(), f_.data() + n_owned_, send_f_.data(),
                                       export_index_.data(), m_, self_, flags_.data(), stream_);
  }

  // Waits for the stream and refreshes the pinned copy of the flags.
  void synchronize_only() {
    check(cudaMemcpyAsync(h_flags_.data(), flags_.data(), sizeof(DeviceFlags),
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync flags");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  // Turns the error flags of the pinned copy into an exception naming the particle(s); the
  // first cause in step order wins (forces of the last step before positions of this one).
  void raise_errors() {
    const DeviceFlags& h = *h_flags_;
    if (h.pair_overflow != kNone) {
      const std::uint64_t k = h.pair_overflow;
      std::vector<std::uint64_t> offsets(std::size_t{n_} + 1);
      download(offsets, row_offset_, offsets.size(), stream_);
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      const auto row = std::upper_bound(offsets.begin(), offsets.end(), k) - offsets.begin() - 1;
      const std::uint32_t i = static_cast<std::uint32_t>(row);
      const std::uint32_t j = read_one(nbr_.data() + k, stream_);
      const Vec3 d =
          pair_displacement(read_one(x_.data() + i, stream_), read_one(x_.data() + j, stream_),
                            config_.box.length, config_.box.half_length);
      throw std::overflow_error(fmt::format(
          "force or energy overflow between particles {} and {} (r = {:.6g}): particles "
          "overlap or the time step is too large",
          read_one(id_.data() + i, stream_), read_one(id_.data() + j, stream_),
          std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z)));
    }
    if (h.sum_overflow != kNone) {
      const std::uint32_t i = read_one(export_index_.data() + h.sum_overflow, stream_);
      throw std::overflow_error(fmt::format(
          "fixed-point force sum overflow on particle {}: particles overlap or the time step is "
          "too large",
          read_one(id_.data() + i, stream_)));
    }
    if (h.kinetic_overflow != kNone)
      throw std::overflow_error(fmt::format("kinetic energy overflow: particle {} moves too fast",
                                            read_one(id_.data() + h.kinetic_overflow, stream_)));
    if (h.bad_cell != kNone) {
      const Vec3 x = read_one(x_.data() + h.bad_cell, stream_);
      throw std::runtime_error(fmt::format(
          "particle {} (x = {:.17g} {:.17g} {:.17g}) lies outside the local domain of rank {} "
          "(its box padded by cutoff + skin) when binned",
          read_one(id_.data() + h.bad_cell, stream_), x.x, x.y, x.z, comm_.rank()));
    }
    if (h.bad_position != kNone) {
      const Vec3 x = read_one(x_.data() + h.bad_position, stream_);
      throw std::runtime_error(fmt::format(
          "particle {} has a non-finite position or left the box in one step (x = {:.6g} "
          "{:.6g} {:.6g}): the time step is too large or particles overlap",
          read_one(id_.data() + h.bad_position, stream_), x.x, x.y, x.z));
    }
  }

  const Communicator& comm_;
  DeviceConfig config_;
  NeighborFill fill_;
  bool local_rebuild_;
  int device_ = 0;
  CellGrid grid_{};
  cudaStream_t stream_ = nullptr;
  bool cuda_aware_ = false;
  std::string description_;

  // Sizes and the halo plan of the last upload.
  std::uint32_t n_owned_ = 0, n_ = 0, m_ = 0;
  ExchangePlan plan_;
  cuda_step::SelfPart self_{0, 0, 0};
  bool remote_ = false;

  // Particles (owned first, then ghosts).
  DeviceBuffer<std::uint64_t> id_;
  DeviceBuffer<Vec3> x_, v_, x_build_;
  DeviceBuffer<Int3> image_, home_, shift_;
  DeviceBuffer<Fix3> f_;
  // Halo plan execution.
  DeviceBuffer<std::uint32_t> export_index_;
  DeviceBuffer<Vec3> send_x_;
  DeviceBuffer<Fix3> send_f_;
  PinnedBuffer<Vec3> h_send_x_, h_recv_x_;
  PinnedBuffer<Fix3> h_back_f_, h_send_f_;
  // Cell list.
  DeviceBuffer<Vec3> q_, q_sorted_;
  DeviceBuffer<Int3> cell_, home_sorted_;
  DeviceBuffer<std::uint32_t> key_, order_, rank_, cell_offsets_;
  // Neighbour list.
  DeviceBuffer<std::uint32_t> run_count_, run_offset_, nbr_, terms_;
  DeviceBuffer<std::uint8_t> heads_;
  DeviceBuffer<std::uint64_t> row_len_, row_offset_;
  // Single-rank rebuilds: owned cell order, ghost creation.
  DeviceBuffer<std::uint64_t> sorted_id_;
  DeviceBuffer<Vec3> sorted_x_, sorted_v_;
  DeviceBuffer<Int3> sorted_image_;
  DeviceBuffer<std::uint32_t> images_, image_offsets_;
  std::uint64_t list_size_ = 0;
  double limit_sq_ = 0;
  // Scratch of the kernels/cuda primitives (counting sort, scans).
  DeviceBuffer<std::byte> scratch_;
  // Flags, and their pinned host mirror.
  DeviceBuffer<DeviceFlags> flags_;
  PinnedBuffer<DeviceFlags> h_flags_;
  EventTimer events_;
  cudaEvent_t build_events_[3] = {nullptr, nullptr, nullptr};
  DeviceBuildTimes build_times_;
};

}  // namespace

bool device_usable(std::string* why) {
  return kernels::cuda::device_available(why);
}

bool select_device(const Communicator& comm, std::string* why) {
  // Every rank takes part in the node split, even one without a device.
  int local = 0;
  try {
    local = node_local_rank(comm);
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    return device_usable(why);  // false, and says why
  }
  // Ranks of a node take its devices round robin; the probe runs on the chosen one.
  const int device = local % count;
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    if (why) *why = std::string("cudaSetDevice(") + std::to_string(device) + "): " +
                    cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  }
  std::string reason;
  if (!device_usable(&reason)) {
    if (why) *why = "device " + std::to_string(device) + ": " + reason;
    return false;
  }
  if (why) why->clear();
  return true;
}

std::unique_ptr<DeviceBackend> make_device_backend(const Communicator& comm,
                                                   const DeviceConfig& config) {
  std::string why;
  if (!select_device(comm, &why)) throw std::runtime_error("backend cuda: no usable GPU: " + why);
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return std::make_unique<CudaBackend>(comm, config, device);
}

std::string device_backend_summary(NeighborFill configured) {
  std::string why;
  if (!device_usable(&why)) return "no usable GPU: " + why;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return fmt::format("{}; MPI: {}; neighbour fill: {}", device_name(device),
                     mpi_path_name(mpi_cuda_aware()), fill_name(resolve_fill(configured)));
}

}  // namespace scanmd
