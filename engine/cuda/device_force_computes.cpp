// The CUDA side of the force computes (see device_force_computes.hpp).
#include "engine/cuda/device_force_computes.hpp"

#include <cstdio>
#include <stdexcept>
#include <variant>

#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/launch.hpp"

namespace scanmd {

namespace {

using namespace cuda_step;

// The pair constants of style E on the device: the one species' pair by value, several species'
// table in device memory; a tabulated style's data in device memory too, its Params' pointers
// rebased into it.
template <class E>
struct DeviceStyleTable {
  typename E::Params one{};
  DeviceBuffer<typename E::Params> table;
  DeviceBuffer<double> data;
};
using DevicePairTables = over_pair_styles_t<std::variant, DeviceStyleTable>;

class DevicePairCompute final : public DeviceForceCompute {
 public:
  DevicePairCompute(const PairPotential& potential, std::uint32_t types, cudaStream_t stream)
      : types_(types) {
    potential.visit([&]<class E>(const StyleTable<E>& t) {
      DeviceStyleTable<E> d;
      std::vector<typename E::Params> params = t.params;
      if constexpr (TabulatedStyle<E>) {
        // The data once, each pair's pointer moved to the same offset in the device copy.
        const std::vector<double>& host = *t.data;
        ensure(d.data, host.size());
        upload(d.data.data(), host, host.size(), stream);
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (pair data)");
        for (auto& p : params) p.data = d.data.data() + (p.data - host.data());
      }
      d.one = params.front();
      if (types_ > 1) {  // per-type tables in device memory; one species passes scalars
        ensure(d.table, params.size());
        upload(d.table.data(), params, params.size(), stream);
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (pair table)");
      }
      tables_ = std::move(d);
    });
  }

  void compute(DeviceForceState& s, bool with_energy, bool) override {
    // The kernel adds to the forces (zeroed by the backend); with several pair computes each
    // term's bound is shared (pair_term_limit_sq / count², exact for 1 and 2).
    const std::uint64_t* v[3] = {nullptr, nullptr, nullptr};
    if (const int k = s.particles.fields.find(kPairVelocityField); k >= 0)
      for (int c = 0; c < 3; ++c) v[c] = s.particles.fields.plane(static_cast<std::size_t>(k), c);
    std::visit(
        [&]<class E>(const DeviceStyleTable<E>& pair) {
          const ForceArgs<E> a{s.particles.x.data(),
                               s.particles.shift.data(),
                               s.particles.id.data(),
                               s.particles.type.data(),
                               s.list.offsets(),
                               s.list.neighbors(),
                               s.particles.f.data(),
                               s.particles.n,
                               s.particles.n_owned,
                               s.box.length,
                               s.box.half_length,
                               s.images,
                               pair.one,
                               PairTable<E>{pair.table.data(), types_},
                               s.list.limit_sq() / (static_cast<double>(s.pair_computes) *
                                                    static_cast<double>(s.pair_computes)),
                               s.flags,
                               v[0],
                               v[1],
                               v[2],
                               s.step};
          if (MotionStyle<E> && v[0] == nullptr)
            throw std::logic_error(
                "the CUDA pair compute of a style that reads the pairs' "
                "motion has no velocities");
          launch_pair_forces(a, with_energy, s.owned_shares_only, s.stream);
        },
        tables_);
  }

 private:
  std::uint32_t types_;
  DevicePairTables tables_;
};

// The many-body EAM compute: the tables in device memory (uploaded once), and the three kernels
// of eam.cu with the halo's exchanges between them, as HostEamCompute runs its passes: the
// densities reverse-summed into their owners, F' forwarded to the ghosts.
class DeviceEamCompute final : public DeviceForceCompute {
 public:
  DeviceEamCompute(const eam::Tables& t, cudaStream_t stream) : view_(t.view()) {
    auto put = [&](auto& device, const auto& host) {
      ensure(device, host.size());
      upload(device.data(), host, host.size(), stream);
    };
    put(frho_, t.frho);
    put(rhor_, t.rhor);
    put(z2r_, t.z2r);
    put(type2frho_, t.type2frho);
    put(type2rhor_, t.type2rhor);
    put(type2z2r_, t.type2z2r);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (EAM tables)");
    view_.frho = frho_.data();
    view_.rhor = rhor_.data();
    view_.z2r = z2r_.data();
    view_.type2frho = type2frho_.data();
    view_.type2rhor = type2rhor_.data();
    view_.type2z2r = type2z2r_.data();
  }

  void compute(DeviceForceState& s, bool with_energy, bool first) override {
    if (!first)  // the force kernel's overflow bound assumes it is alone, as the pair kernel's
      throw std::logic_error("the CUDA EAM compute must be the first of the list");
    DeviceParticles& p = s.particles;
    const auto k_rho = static_cast<std::size_t>(p.fields.find(kEamDensityField));
    const auto k_fp = static_cast<std::size_t>(p.fields.find(kEamSlopeField));
    auto* rho = reinterpret_cast<std::int64_t*>(p.fields.plane(k_rho, 0));
    std::uint64_t* fp = p.fields.plane(k_fp, 0);
    const EamArgs a{p.x.data(),
                    p.shift.data(),
                    p.id.data(),
                    p.type.data(),
                    s.list.offsets(),
                    s.list.neighbors(),
                    p.f.data(),
                    rho,
                    fp,
                    p.n,
                    p.n_owned,
                    s.box.length,
                    s.box.half_length,
                    s.images,
                    view_,
                    s.list.limit_sq(),
                    s.owned_shares_only,
                    s.flags,
                    nullptr};
    // 1. Densities, summed into the owners.
    if (p.n > 0)
      check(cudaMemsetAsync(rho, 0, std::size_t{p.n} * sizeof(std::int64_t), s.stream),
            "cudaMemsetAsync (EAM density)");
    launch_eam_density(a, s.stream);
    s.halo.reverse_field(rho_halo_, rho, p.n_owned, s.flags, s.stream);
    // 2. F(ρ), F'(ρ) on the owners; F' forwarded to the ghosts. On thermo steps, until it has
    // been said, the densities outside the tables are counted as on the host.
    const bool count_outside = with_energy && !told_outside_;
    EamArgs embed = a;
    if (count_outside) {
      ensure(outside_, 1);
      check(cudaMemsetAsync(outside_.data(), 0, sizeof(unsigned long long), s.stream),
            "cudaMemsetAsync (EAM outside count)");
      embed.outside = outside_.data();
    }
    launch_eam_embedding(embed, with_energy, s.stream);
    s.halo.forward_field(fp_halo_, fp, p.n_owned, s.stream);
    // 3. Forces.
    launch_eam_forces(a, with_energy, s.stream);
    if (count_outside) tell_outside(s);
  }

 private:
  // The host's words (engine/eam_forces.cpp), once per run, by rank 0, on the first thermo step
  // that finds a particle outside the tables (every rank computes energies on the same steps:
  // the sum is collective). Waits for the stream.
  void tell_outside(DeviceForceState& s) {
    const long long local = static_cast<long long>(read_one(outside_.data(), s.stream));
    const long long total = s.halo.communicator().sum(local);
    if (total <= 0) return;
    told_outside_ = true;
    if (s.halo.communicator().rank() == 0)
      std::fprintf(stderr,
                   "warning: EAM: %lld particle%s ha%s a density outside the tables [0, %.6g]: "
                   "clamped as LAMMPS clamps it (F' of the table's end, F continued "
                   "linearly); said once\n",
                   total, total == 1 ? "" : "s", total == 1 ? "s" : "ve", view_.rhomax);
  }

  EamView view_;
  bool told_outside_ = false;
  DeviceBuffer<unsigned long long> outside_;
  DeviceBuffer<double> frho_, rhor_, z2r_;
  DeviceBuffer<std::int32_t> type2frho_, type2rhor_, type2z2r_;
  DeviceFieldHalo<std::int64_t> rho_halo_;
  DeviceFieldHalo<std::uint64_t> fp_halo_;
};

}  // namespace

std::vector<std::unique_ptr<DeviceForceCompute>> make_device_computes(
    const std::vector<ForceComputeInfo>& computes, const Species& species, cudaStream_t stream) {
  std::vector<std::unique_ptr<DeviceForceCompute>> out;
  for (const ForceComputeInfo& c : computes) {
    switch (c.kind) {
      case ForceKind::Pair:
        out.push_back(std::make_unique<DevicePairCompute>(
            c.source == PairSource::Thermostat ? *species.tstat : species.pair,
            static_cast<std::uint32_t>(species.types), stream));
        break;
      case ForceKind::ManyBody:
        if (!species.eam) throw std::logic_error("force compute '" + c.name + "': no tables");
        out.push_back(std::make_unique<DeviceEamCompute>(*species.eam, stream));
        break;
      case ForceKind::Bonded:
        throw std::logic_error("force compute '" + c.name + "': no CUDA side");
    }
  }
  return out;
}

}  // namespace scanmd
