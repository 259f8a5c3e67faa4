// engine/cuda/cuda_backend.cpp — the CUDA time step of one rank: the order of the device phases
// (see cuda_backend.hpp). Plain C++ on the CUDA runtime API; the kernels are in engine/cuda/*.cu.
//
// Synchronisation: one stream. Every synchronisation point fetches the flags and raises pending
// errors first (check_errors), so nothing observes a broken state. Calls that wait for other
// ranks (multi-rank forward and reverse, rebuilds) synchronise before their wall-clock timer;
// device-only phases are timed with events (device_timing.hpp).
#include "engine/cuda/cuda_backend.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <variant>

#include "decomposition/export_selection.hpp"
#include "engine/cuda/device_cell_list.hpp"
#include "engine/cuda/device_errors.hpp"
#include "engine/cuda/device_flags.hpp"
#include "engine/cuda/device_force_computes.hpp"
#include "engine/cuda/device_halo.hpp"
#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/device_migration.hpp"
#include "engine/cuda/device_neighbor_list.hpp"
#include "engine/cuda/device_particles.hpp"
#include "engine/cuda/device_selection.hpp"
#include "engine/cuda/device_timing.hpp"
#include "engine/cuda/launch.hpp"
#include "engine/domain.hpp"
#include "physics/dynamics/integrator.hpp"

namespace scanmd {

namespace {

using namespace cuda_step;

// A switch from the environment applied to `configured`: `name`=`on` or `off`; unset or empty
// keeps `configured`; anything else is an error naming both choices.
bool env_switch(const char* name, bool configured, std::string_view on, std::string_view off) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return configured;
  const std::string_view v(env);
  if (v == on) return true;
  if (v == off) return false;
  throw std::runtime_error(fmt::format("{}={}: expected \"{}\" or \"{}\"", name, v, on, off));
}

class CudaBackend final : public StepBackend {
 public:
  // `device` is current already (make_cuda_backend).
  CudaBackend(const StepSetup& s, int device)
      : comm_(s.comm),
        timers_(s.timers),
        box_(s.box),
        potential_(s.species.pair),
        many_body_(s.species.eam != nullptr),
        types_(static_cast<std::uint32_t>(s.species.types)),
        rule_(s.rule),
        images_(s.params.images),
        dt_(s.params.dt),
        mass_(s.species.mass.front()),
        half_skin_(s.params.half_skin),
        dtf1_(half_kick_factor(dt_, mass_, s.params.units.ftm2v)),
        full_shell_(s.params.full_shell),
        device_rebuild_(
            env_switch("SCANMD_CUDA_REBUILD", s.params.cuda.device_rebuild, "device", "host")),
        fuse_(env_switch("SCANMD_CUDA_FUSE", s.params.cuda.fuse, "1", "0")),
        domain_(s.comm, s.grid, s.box, s.params.method, s.params.import_cutoff,
                s.params.bonded_shell),
        geometry_(ExportSelector(s.grid, s.box, s.params.method, s.params.import_cutoff,
                                 s.params.bonded_shell)
                      .geometry()),
        cells_(domain_.cell_grid(), s.box.length),
        list_(resolve_fill(s.params.cuda.fill)),
        halo_(s.comm, s.params.method, mpi_cuda_aware()),
        migration_(s.comm, mpi_cuda_aware()),
        description_(fmt::format(
            "CUDA on {}; MPI: {}; neighbour fill: {}; rebuilds: {}; zeroing fused into the step's "
            "kernels: {}",
            device_name(device), mpi_path_name(mpi_cuda_aware()), fill_description(list_.fill()),
            device_rebuild_ ? "on the device"
                            : "migration and halo plan on the host (SCANMD_CUDA_REBUILD=host)",
            fuse_ ? "yes" : "no (SCANMD_CUDA_FUSE=0)")) {
    if (types_ > 1) {  // per-type tables in device memory; one species passes scalars
      const std::vector<double> dtf = half_kick_factors(dt_, s.species.mass, s.params.units.ftm2v);
      ensure(dtf_of_, dtf.size());
      ensure(mass_of_, dtf.size());
      upload(dtf_of_.data(), dtf, dtf.size(), stream());
      upload(mass_of_.data(), s.species.mass, dtf.size(), stream());
      check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (species tables)");
    }
    computes_ = make_device_computes(s.computes, s.species, stream());
    forward_fields_ = halo_fields(s.computes, FieldAccess::Forward);
    rebuild_fields_ = halo_fields(s.computes, FieldAccess::RebuildForward);
    pair_computes_ = pair_compute_count(s.computes);
    reverse_fields_ = halo_fields(s.computes, FieldAccess::ReverseSum);
    const HaloRecordBytes record = halo_record_bytes(s.computes);
    domain_.halo().set_record_bytes(record.forward, record.reverse);
    halo_.set_record_bytes(record.forward, record.reverse);
    const ThermostatSection& t = s.params.thermostat;
    if (t.style == ThermostatStyle::Langevin) {
      std::vector<double> drag, noise;
      langevin_coefficients(s.species.mass, t.temperature, t.damping, dt_, drag, noise,
                            s.params.units);
      ensure(drag_, drag.size());
      ensure(noise_, noise.size());
      upload(drag_.data(), drag, drag.size(), stream());
      upload(noise_.data(), noise, noise.size(), stream());
      check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (Langevin tables)");
      langevin_ = {drag_.data(), noise_.data(), t.seed};
    }
  }

  std::string description() const override { return description_; }

  void load(ParticleStore owned) override {
    host_ = std::move(owned);
    domain_.take_census(host_);
    host_current_ = true;
    on_device_ = false;
    moved_zero_ = false;
  }

  bool kick_drift(std::uint64_t step) override {
    step_now_ = static_cast<long long>(step) + 1;
    if (!moved_zero_) flags_.reset(&flags_.device()->moved, 1, stream());
    const IntegrateArgs a{particles_.x.data(),
                          particles_.v.data(),
                          particles_.image.data(),
                          particles_.f.data(),
                          particles_.x_build.data(),
                          particles_.type.data(),
                          particles_.n_owned,
                          dt_,
                          dtf1_,
                          types_ > 1 ? dtf_of_.data() : nullptr,
                          half_skin_ * half_skin_,
                          box_,
                          images_,
                          particles_.id.data(),
                          langevin_,
                          step,
                          flags_.device(),
                          fuse_ ? particles_.f.data() : nullptr};
    launch_initial_integrate(a, stream());
    // The pair velocity (DPD): v at the half step, the velocity the forces of step + 1 see; a
    // State column, so migration, the halo and checkpoints move it as the host does.
    if (const int k = particles_.fields.find(kPairVelocityField); k >= 0) {
      const auto c = static_cast<std::size_t>(k);
      launch_velocity_planes(particles_.v.data(), particles_.n_owned, particles_.fields.plane(c, 0),
                             particles_.fields.plane(c, 1), particles_.fields.plane(c, 2),
                             stream());
    }
    owned_f_zero_ = fuse_;
    moved_zero_ = false;
    host_current_ = false;
    synchronize();
    return flags_.host().moved != 0;
  }

  ImportCounts rebuild(long long step) override {
    step_now_ = step;
    synchronize();
    const std::uint64_t d2h_before = transfers().d2h;
    ImportCounts counts = device_rebuild_ ? rebuild_on_device(step) : rebuild_through_host(step);
    owned_f_zero_ = ghost_f_zero_ = true;  // both paths zero every force (resize_ghosts, upload)
    counts.device_to_host_bytes = static_cast<long long>(transfers().d2h - d2h_before);
    return counts;
  }

  void set_grid(const RankGrid& grid, const PairRule& rule) override {
    domain_.set_grid(grid);
    geometry_ = ExportSelector(grid, box_, domain_.halo().method(), domain_.import_cutoff(),
                               domain_.bonded_shell())
                    .geometry();
    rule_ = rule;
    cells_.set_grid(domain_.cell_grid());
  }

  void forward() override {
    DeviceFlags* fused = fuse_ ? flags_.device() : nullptr;
    ghost_f_zero_ = totals_zero_ = fuse_;
    if (!halo_.remote()) {
      events_.begin(Phase::Forward, stream());
      halo_.forward_local(particles_, fused, stream());
      forward_optional_fields();
      events_.end(stream());
      return;
    }
    synchronize();
    ScopedTimer t(timers_, Phase::Forward);
    halo_.forward_remote(particles_, fused, stream());
    forward_optional_fields();
  }

  void compute_forces(bool with_energy) override {
    force_step_ = step_now_;
    events_.begin(Phase::Pair, stream());
    // Zeroed already when the step's kernels did it (fused: kick_drift the owned forces, forward
    // the ghost forces and the totals); else here.
    if (!(owned_f_zero_ && ghost_f_zero_)) particles_.zero_forces(stream());
    if (!totals_zero_)  // pairs, energy, virial, bond and angle energies
      flags_.reset(&flags_.device()->pairs, kForceTotalWords, stream());
    owned_f_zero_ = ghost_f_zero_ = totals_zero_ = false;
    DeviceForceState state{particles_,      halo_,    list_,
                           flags_.device(), box_,     images_,
                           full_shell_,     stream(), static_cast<std::uint64_t>(step_now_),
                           pair_computes_};
    bool first = true;
    for (const auto& c : computes_) {
      c->compute(state, with_energy, first);
      first = false;
    }
    events_.end(stream());
    host_current_ = false;
  }

  void reverse() override {
    if (!halo_.reverse_needed()) return;
    if (!halo_.remote()) {
      events_.begin(Phase::Reverse, stream());
      halo_.reverse_local(particles_, flags_.device(), stream());
      reverse_optional_fields();
      events_.end(stream());
      return;
    }
    synchronize();
    ScopedTimer t(timers_, Phase::Reverse);
    halo_.reverse_remote(particles_, flags_.device(), stream());
    reverse_optional_fields();
  }

  void kick(std::uint64_t step) override {
    const KickArgs a{particles_.v.data(),
                     particles_.f.data(),
                     particles_.type.data(),
                     particles_.id.data(),
                     particles_.n_owned,
                     per_type(dtf1_, dtf_of_),
                     0.5 * dt_,
                     langevin_,
                     step,
                     flags_.device(),
                     fuse_};
    launch_final_integrate(a, stream());
    moved_zero_ = fuse_ && particles_.n_owned > 0;  // (no launch without particles)
    host_current_ = false;
  }

  void scale_velocities(double factor) override {
    launch_scale_velocities(particles_.v.data(), particles_.n_owned, factor, stream());
    host_current_ = false;
  }

  FireMaxima fire_maxima() override {
    flags_.reset(flags_.device()->fire_max, 5, stream());
    launch_fire_maxima(fire_args(), stream());
    check_errors();
    FireMaxima m;
    const DeviceFlags& h = flags_.host();
    for (int k = 0; k < kFireSums; ++k) std::memcpy(&m.t[k], &h.fire_max[k], sizeof(double));
    std::memcpy(&m.vmax, &h.fire_max[3], sizeof(double));
    std::memcpy(&m.fmax, &h.fire_max[4], sizeof(double));
    return m;
  }

  std::array<fixed::Wide, kFireSums> fire_sums(const FireScales& scales) override {
    flags_.reset(flags_.device()->fire_sum[0], 2 * kFireSums, stream());
    launch_fire_sums(fire_args(), scales, stream());
    check_errors();
    const DeviceFlags& h = flags_.host();
    return {wide(h.fire_sum[0]), wide(h.fire_sum[1]), wide(h.fire_sum[2])};
  }

  bool fire_update(const FireUpdate& u) override {
    if (!moved_zero_) flags_.reset(&flags_.device()->moved, 1, stream());
    launch_fire_update(fire_args(), u, stream());
    moved_zero_ = false;
    owned_f_zero_ = false;
    host_current_ = false;
    synchronize();
    return u.moves() && flags_.host().moved != 0;
  }

  fixed::Wide thermostat_work() override {
    check_errors();
    return wide(flags_.host().work);
  }

  ForceTotals force_totals() override {
    check_errors();
    const DeviceFlags& h = flags_.host();
    return {wide(h.energy), wide(h.virial), static_cast<long long>(h.pairs), wide(h.bond_energy),
            wide(h.angle_energy)};
  }

  fixed::Wide twice_kinetic() override {
    flags_.reset(flags_.device()->kinetic, 2, stream());
    launch_twice_kinetic(particles_.v.data(), particles_.n_owned, per_type(mass_, mass_of_),
                         flags_.device(), stream());
    check_errors();
    return wide(flags_.host().kinetic);
  }

  const ParticleStore& particles() override {
    refresh_host();
    return host_;
  }

  NeighborEntries neighbor_entries() override {
    check_errors();
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> nbr;
    list_.download(particles_.n, offsets, nbr, stream());
    NeighborEntries out;
    out.reserve(nbr.size());
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
      for (auto k = offsets[i]; k < offsets[i + 1]; ++k)
        out.emplace_back(static_cast<std::uint32_t>(i), nbr[k]);
    return out;
  }

  void synchronize() override {
    flags_.fetch(stream());
    events_.harvest(timers_);
    raise_errors();
  }

 private:
  cudaStream_t stream() const { return stream_.get(); }

  FireArgs fire_args() {
    return {particles_.x.data(),
            particles_.v.data(),
            particles_.image.data(),
            particles_.f.data(),
            particles_.x_build.data(),
            particles_.n_owned,
            per_type(mass_, mass_of_),
            half_skin_ * half_skin_,
            box_,
            images_,
            flags_.device()};
  }

  // A per-type factor: the one species' value, or the device table by type.
  PerType per_type(double one, const DeviceBuffer<double>& table) const {
    return {one, types_ > 1 ? table.data() : nullptr, particles_.type.data()};
  }

  // The per-particle fields the computes declared Forward: owners' values into their ghosts
  // (after the positions, and for the new ghosts of a rebuild), as HostBackend does.
  void forward_optional_fields(bool rebuild = false) {
    for (const std::string& name : forward_fields_) {
      const auto k = static_cast<std::size_t>(particles_.fields.find(name));
      for (std::uint64_t* plane : particles_.fields.planes_of(k))
        halo_.forward_field(forward_words_, plane, particles_.n_owned, stream());
    }
    if (!rebuild) return;
    for (const std::string& name : rebuild_fields_) {
      const auto k = static_cast<std::size_t>(particles_.fields.find(name));
      for (std::uint64_t* plane : particles_.fields.planes_of(k))
        halo_.forward_field(forward_words_, plane, particles_.n_owned, stream());
    }
  }
  // The fixed-point fields declared ReverseSum: the ghosts' parts summed into their owners.
  void reverse_optional_fields() {
    for (const std::string& name : reverse_fields_) {
      const auto k = static_cast<std::size_t>(particles_.fields.find(name));
      for (std::uint64_t* plane : particles_.fields.planes_of(k))
        halo_.reverse_field(reverse_words_, reinterpret_cast<std::int64_t*>(plane),
                            particles_.n_owned, flags_.device(), stream());
    }
  }

  // Waits for the device and raises pending errors (no timings booked).
  void check_errors() {
    flags_.fetch(stream());
    raise_errors();
  }
  void raise_errors() {
    raise_device_errors(flags_.host(),
                        {particles_, list_, halo_.export_index(), box_, images_, comm_.rank(),
                         comm_.size(), force_step_, potential_, many_body_},
                        stream());
    const DeviceFlags& h = flags_.host();
    if (h.bond_bad == kNone && h.bonded_overflow == kNone) return;  // the computes' own errors
    for (const auto& c : computes_)
      c->raise_errors(flags_.host(), particles_,
                      step_context(force_step_, comm_.rank(), comm_.size()), stream());
  }

  // The host copy of the owned particles brought up to date.
  void refresh_host() {
    if (host_current_) return;
    check_errors();
    particles_.download_owned(host_, stream());
    host_current_ = true;
  }

  // The rebuild on the device (see cuda_backend.hpp); only counts and message buffers cross to
  // the host.
  ImportCounts rebuild_on_device(long long step) {
    if (!on_device_) {  // after load(): the owned particles go up once
      particles_.upload(host_, stream());
      on_device_ = true;
    }
    {
      ScopedTimer t(timers_, Phase::Migrate);
      if (comm_.size() > 1)
        migration_.migrate(particles_, domain_.cuts(), domain_.coord(), scratch_, stream());
      check_census(step);
    }
    {
      // Owned particles in cell order, as the host rebuild sorts them: neighbours stay close in
      // memory, and the layout stays the host's.
      ScopedTimer t(timers_, Phase::Neigh);
      particles_.permute_owned(cells_.order_owned(particles_, scratch_, flags_.device(), stream()),
                               stream());
    }
    ImportCounts counts;
    {
      ScopedTimer t(timers_, Phase::Plan);
      flags_.reset(&flags_.device()->tower, 3, stream());  // tower, plate, bonded
      counts = halo_.make_plan(particles_, geometry_, domain_.coord(), scratch_, flags_.device(),
                               stream());
      particles_.mark_built(stream());
      forward_optional_fields(true);  // the new ghosts' fields
    }
    ScopedTimer t(timers_, Phase::Neigh);
    build_lists();  // synchronises: the tallies are in the mirror
    computes_rebuilt(step);
    counts.tower = static_cast<long long>(flags_.host().tower);
    counts.plate = static_cast<long long>(flags_.host().plate);
    counts.bonded = static_cast<long long>(flags_.host().bonded);
    host_current_ = false;
    return counts;
  }

  // The census of the owned particles by device reductions (exact 128-bit integer sums); on a
  // mismatch the ids come to the host to name the culprit.
  void check_census(long long step) {
    flags_.reset(&flags_.device()->census_count, 5, stream());
    launch_census(particles_.id.data(), particles_.n_owned, flags_.device(), stream());
    check_errors();
    const DeviceFlags& h = flags_.host();
    const Census local{static_cast<long long>(h.census_count), wide(h.census_id),
                       wide(h.census_id_sq)};
    scanmd::check_census(comm_, Census::sum(comm_, local), domain_.census(), step, [&] {
      std::vector<std::uint64_t> ids;
      download(ids, particles_.id.data(), particles_.n_owned, stream());
      check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (census ids)");
      ids.resize(particles_.n_owned);
      return ids;
    });
  }

  // The rebuild through the host (SCANMD_CUDA_REBUILD=host, cuda.device_rebuild = false): the
  // owned particles come down, Domain migrates them and makes the halo plan as on the host
  // backend, and everything goes back up with the plan.
  ImportCounts rebuild_through_host(long long step) {
    {
      ScopedTimer t(timers_, Phase::Migrate);
      refresh_host();
    }
    const ImportCounts counts = domain_.redistribute(host_, step, timers_);
    ScopedTimer t(timers_, Phase::Neigh);
    particles_.upload(host_, stream());
    halo_.set_plan(domain_.halo(), particles_, stream());
    forward_optional_fields(true);  // the new ghosts' fields
    build_lists();
    computes_rebuilt(step);
    on_device_ = true;
    host_current_ = true;  // owned particles as on the device (ghosts too)
    return counts;
  }

  // The computes' own listings after the list build (collective), e.g. the bonded terms.
  void computes_rebuilt(long long step) {
    DeviceRebuildState state{
        particles_, list_, scratch_, box_, rule_, comm_, step, domain_.import_cutoff(), stream()};
    for (const auto& c : computes_) c->on_rebuild(state);
  }

  // Binning and list build; raises errors; books their device times.
  void build_lists() {
    build_timer_.mark(0, stream());
    cells_.build(particles_, scratch_, flags_.device(), stream());
    build_timer_.mark(1, stream());
    list_.build(particles_, cells_, rule_, domain_.import_cutoff(), scratch_, flags_.device(),
                stream());
    build_timer_.mark(2, stream());
    check_errors();
    build_times_ = build_timer_.read(list_.size());
  }

  const Communicator& comm_;
  Timers& timers_;
  Box box_;
  PairPotential potential_;  // the style and every pair (host: the words of errors)
  bool many_body_;           // EAM: its own words for a pair overflow
  std::uint32_t types_;      // several: the device tables below
  std::vector<std::unique_ptr<DeviceForceCompute>> computes_;  // their device sides, in order
  // The optional per-particle fields the computes forward and reverse-sum (none for pair runs),
  // and the buffers of their exchanges.
  std::vector<std::string> forward_fields_, reverse_fields_;
  std::vector<std::string> rebuild_fields_;  // forwarded at rebuilds only (bonded topology)
  int pair_computes_ = 1;                    // of the list: each pair term's bound is shared
  DeviceFieldHalo<std::uint64_t> forward_words_;
  DeviceFieldHalo<std::int64_t> reverse_words_;
  DeviceBuffer<double> dtf_of_, mass_of_;
  DeviceBuffer<double> drag_, noise_;  // Langevin γ1, γ2 per type
  LangevinView langevin_;              // inactive unless the thermostat is Langevin
  PairRule rule_;
  PairImages images_;
  double dt_, mass_, half_skin_;
  double dtf1_;  // dt·ftm2v / 2m of the one species (half_kick_factor)
  bool full_shell_;
  bool device_rebuild_;
  bool fuse_;  // zeroing fused into the step's kernels (fewer launches per step)
  // What the last kernels zeroed for the next call (fused): flags->moved (kick), the owned forces
  // (kick_drift), the ghost forces and the force totals (forward); rebuilds zero all forces.
  bool moved_zero_ = false, owned_f_zero_ = false, ghost_f_zero_ = false, totals_zero_ = false;
  Stream stream_;
  DeviceFlagsMirror flags_;
  EventTimer events_;
  BuildTimer build_timer_;
  BuildTimes build_times_;
  Scratch scratch_;
  Domain domain_;
  ExportGeometry geometry_;  // export selection on the device
  DeviceParticles particles_;
  DeviceCellList cells_;
  DeviceNeighborList list_;
  DeviceHalo halo_;
  DeviceMigration migration_;
  std::string description_;
  ParticleStore host_;        // owned particles for readers and host rebuilds
  bool host_current_ = true;  // host_ holds the device's owned state
  bool on_device_ = false;    // the particles are on the device (after the first rebuild)
  // The step now (from rebuild(step) and kick_drift(step − 1)) and the step of the last force
  // call: a force overflow surfaces at a later synchronisation, and is reported at its own step.
  long long step_now_ = 0, force_step_ = 0;
};

}  // namespace

std::unique_ptr<StepBackend> make_cuda_backend(const StepSetup& setup) {
  std::string why;
  if (!select_device(setup.comm, &why))
    throw std::runtime_error("backend cuda: no usable GPU: " + why);
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return std::make_unique<CudaBackend>(setup, device);
}

}  // namespace scanmd
