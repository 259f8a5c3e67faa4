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

  void compute(DeviceForceState& s, bool with_energy, bool first) override {
    if (!first)  // the kernel adds to the forces; only its overflow bound assumes it is alone
      throw std::logic_error("the CUDA pair compute must be the first of the list");
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
                               s.list.limit_sq(),
                               s.flags};
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
            species.pair, static_cast<std::uint32_t>(species.types), stream));
        break;
      case ForceKind::ManyBody:
      case ForceKind::Bonded:
        throw std::logic_error("force compute '" + c.name + "': no CUDA side");
    }
  }
  return out;
}

}  // namespace scanmd
