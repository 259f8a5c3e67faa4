// The CUDA side of the force computes (see device_force_computes.hpp).
#include "engine/cuda/device_force_computes.hpp"

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
      case ForceKind::Bonded:
        throw std::logic_error("force compute '" + c.name + "': no CUDA side");
    }
  }
  return out;
}

}  // namespace scanmd
