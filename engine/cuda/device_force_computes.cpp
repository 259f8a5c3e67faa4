// The CUDA side of the force computes (see device_force_computes.hpp).
#include "engine/cuda/device_force_computes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <variant>

#include "engine/bonded_forces.hpp"
#include "engine/topology.hpp"

#include "engine/cuda/device_memory.hpp"
#include "engine/cuda/launch.hpp"
#include "kernels/cuda/api.hpp"

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

// The run's style's constants on the device (waits for the uploads).
DevicePairTables upload_pair_tables(const PairPotential& potential, std::uint32_t types,
                                    cudaStream_t stream) {
  DevicePairTables out;
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
    if (types > 1) {  // per-type tables in device memory; one species passes scalars
      ensure(d.table, params.size());
      upload(d.table.data(), params, params.size(), stream);
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (pair table)");
    }
    out = std::move(d);
  });
  return out;
}

class DevicePairCompute final : public DeviceForceCompute {
 public:
  DevicePairCompute(const PairPotential& potential, std::uint32_t types, cudaStream_t stream)
      : types_(types), tables_(upload_pair_tables(potential, types, stream)) {}

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

// Bonds and angles (see the header): the listing of the host compute's rules on the device at
// each rebuild (bonded.cu: copies by id, count → scan → fill; the global term check from the
// count kernel's sums), the kernel of bonded.cu. The host compute's own listing runs on a host
// copy of the particles and ghosts only to word an error the check found (the same messages as
// the host backend), and after every listing with SCANMD_CUDA_BONDED_CHECK=1, which requires the
// same terms in the same order (the tests' oracle). With a special_bonds 1-2 weight in (0, 1),
// `pair` (the run's pair potential) gives each bond w times its pair terms (the shares kernel
// before the force kernel).
class DeviceBondedCompute final : public DeviceForceCompute {
 public:
  DeviceBondedCompute(std::shared_ptr<const BondedParams> params, const PairPotential& pair,
                      std::uint32_t types, cudaStream_t stream)
      : params_(params), lister_(params), types_(types) {
    const double w = params_->special_lj[0];
    if (params_->bond_style != BondStyle::None && w > 0.0 && w < 1.0)
      special_pair_.emplace(upload_pair_tables(pair, types, stream));
    if (!params_->bond.empty()) {
      ensure(bond_, params_->bond.size());
      upload(bond_.data(), params_->bond, params_->bond.size(), stream);
    }
    if (!params_->angle.empty()) {
      ensure(angle_, params_->angle.size());
      upload(angle_.data(), params_->angle, params_->angle.size(), stream);
    }
    auto given = [&](DeviceBuffer<std::uint8_t>& d, const std::vector<unsigned char>& h) {
      std::vector<std::uint8_t> flags(h.begin(), h.end());
      flags.push_back(0);  // never empty
      ensure(d, flags.size());
      upload(d.data(), flags, flags.size(), stream);
    };
    given(bond_given_, params_->bond_given);
    given(angle_given_, params_->angle_given);
    ensure(sums_, 8);
    const char* env = std::getenv("SCANMD_CUDA_BONDED_CHECK");
    verify_ = env != nullptr && std::string_view(env) == "1";
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (bonded coefficients)");
  }

  void on_rebuild(DeviceRebuildState& s) override {
    DeviceParticles& p = s.particles;
    host_box_ = s.box;
    list_terms(s);
    if (special_pair_ && count_ > 0) ensure(special_, count_);
    if (params_->bond_style != BondStyle::None && params_->special_lj[0] != 1.0) {
      const int kb = p.fields.find(kBondAtomField);
      std::vector<const std::uint64_t*> planes;
      if (kb >= 0)
        for (int c = 0; c < kBondSlots; ++c)
          planes.push_back(p.fields.plane(static_cast<std::size_t>(kb), c));
      s.list.drop_bonded(p, planes, s.scratch, s.stream);
    }
    check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize (bonded terms)");
  }

  void compute(DeviceForceState& s, bool with_energy, bool) override {
    if (special_pair_)
      std::visit(
          [&]<class E>(const DeviceStyleTable<E>& pair) {
            const SpecialShareArgs<E> a{s.particles.x.data(),
                                        s.particles.type.data(),
                                        terms_.data(),
                                        count_,
                                        s.box.length,
                                        s.box.half_length,
                                        pair.one,
                                        PairTable<E>{pair.table.data(), types_},
                                        params_->special_lj[0],
                                        special_.data()};
            launch_special_shares(a, s.stream);
          },
          *special_pair_);
    const BondedArgs a{s.particles.x.data(),
                       s.particles.f.data(),
                       terms_.data(),
                       count_,
                       bond_.data(),
                       angle_.data(),
                       params_->bond_style,
                       params_->angle_style,
                       s.box.length,
                       s.box.half_length,
                       s.flags,
                       special_pair_ ? special_.data() : nullptr};
    launch_bonded_forces(a, with_energy, s.stream);
  }

  void raise_errors(const DeviceFlags& h, const DeviceParticles& p, const std::string& context,
                    cudaStream_t stream) const override {
    if (h.bond_bad != kNone && h.bond_bad < count_) {
      const BondedTerm t = read_one(terms_.data() + h.bond_bad, stream);
      const Vec3 xi = read_one(p.x.data() + t.at[0], stream);
      const Vec3 xj = read_one(p.x.data() + t.at[1], stream);
      const BondGeometry g = bond_geometry(xi, xj, host_box_.length, host_box_.half_length);
      throw std::runtime_error(fmt::format(
          "{}: bad FENE bond between atoms {} and {}: r = {:.6g} >= 2 R0 (R0 = {:g})", context,
          read_one(p.id.data() + t.at[0], stream), read_one(p.id.data() + t.at[1], stream),
          std::sqrt(g.rsq), params_->bond[t.type - 1].r0));
    }
    if (h.bonded_overflow != kNone && h.bonded_overflow < count_) {
      const BondedTerm t = read_one(terms_.data() + h.bonded_overflow, stream);
      std::string ids = fmt::format("{} and {}", read_one(p.id.data() + t.at[0], stream),
                                    read_one(p.id.data() + t.at[1], stream));
      if (t.atoms == 3)
        ids = fmt::format("{}, {} and {}", read_one(p.id.data() + t.at[0], stream),
                          read_one(p.id.data() + t.at[1], stream),
                          read_one(p.id.data() + t.at[2], stream));
      throw std::overflow_error(
          fmt::format("{}: the {} of atoms {} does not fit the fixed point (a force or energy "
                      "beyond 2^22)",
                      context, t.atoms == 2 ? "bond" : "angle", ids));
    }
  }

 private:
  // The terms of this rank into terms_ / count_ (bonded.cu's listing), then the global check:
  // as HostBondedCompute::on_rebuild, a term no rank computes is an error on every rank
  // (collective), then a term whose type has no coefficients on the rank that lists it.
  void list_terms(DeviceRebuildState& s) {
    DeviceParticles& p = s.particles;
    const std::uint32_t n = p.n;
    cuda_step::DeviceFields& f = p.fields;
    BondedListArgs a{};
    a.id = p.id.data();
    a.x = p.x.data();
    a.home = p.home.data();
    a.shift = p.shift.data();
    a.n = n;
    a.n_owned = p.n_owned;
    const int kb = f.find(kBondAtomField), kbt = f.find(kBondTypeField);
    const int ka = f.find(kAngleAtomField), kat = f.find(kAngleTypeField);
    a.bonds = params_->bond_style != BondStyle::None && kb >= 0 && kbt >= 0;
    a.angles = params_->angle_style != AngleStyle::None && ka >= 0 && kat >= 0;
    if (a.bonds)
      for (int c = 0; c < kBondSlots; ++c) {
        a.bond_atom[c] = f.plane(static_cast<std::size_t>(kb), c);
        a.bond_type[c] = f.plane(static_cast<std::size_t>(kbt), c);
      }
    if (a.angles) {
      for (int c = 0; c < 2 * kAngleSlots; ++c)
        a.angle_atom[c] = f.plane(static_cast<std::size_t>(ka), c);
      for (int c = 0; c < kAngleSlots; ++c)
        a.angle_type[c] = f.plane(static_cast<std::size_t>(kat), c);
    }
    a.half_length = s.box.half_length;
    a.rule = s.rule;
    std::uint32_t slots = 16;
    while (slots < 2 * static_cast<std::uint64_t>(n)) slots <<= 1;
    ensure(copies_, slots);
    check(
        cudaMemsetAsync(copies_.data(), 0xff, std::size_t{slots} * sizeof(std::uint32_t), s.stream),
        "cudaMemsetAsync (bonded copies)");
    a.copies = copies_.data();
    a.mask = slots - 1;
    a.bond_given = bond_given_.data();
    a.bond_types = static_cast<std::uint32_t>(params_->bond_given.size());
    a.angle_given = angle_given_.data();
    a.angle_types = static_cast<std::uint32_t>(params_->angle_given.size());
    // sums_: [0..5] the check's counts, [6] no_coeff (kNone), [7] unused.
    const unsigned long long init[8] = {0, 0, 0, 0, 0, 0, kNone, 0};
    check(cudaMemcpyAsync(sums_.data(), init, sizeof init, cudaMemcpyHostToDevice, s.stream),
          "cudaMemcpyAsync (bonded sums)");
    a.sums = sums_.data();
    ensure(counts_, std::size_t{n} + 1);
    launch_bonded_copies(a, s.stream);
    launch_bonded_count(a, counts_.data(), s.stream);
    s.scratch.ensure(kernels::cuda::scan_scratch_bytes<std::uint32_t>(n));
    kernels::cuda::exclusive_scan<std::uint32_t>(
        s.scratch.data(), s.scratch.size(), std::span<const std::uint32_t>(counts_.data(), n),
        std::span<std::uint32_t>(counts_.data(), n), counts_.data() + n, s.stream);
    const std::uint32_t total = n > 0 ? read_one(counts_.data() + n, s.stream) : 0;
    ensure(terms_, std::max<std::uint32_t>(total, 1));
    launch_bonded_fill(a, counts_.data(), terms_.data(), sums_.data() + 6, s.stream);
    unsigned long long sums[8];
    check(cudaMemcpyAsync(sums, sums_.data(), sizeof sums, cudaMemcpyDeviceToHost, s.stream),
          "cudaMemcpyAsync (bonded sums)");
    check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize (bonded listing)");
    count_ = total;
    long long global[6];
    for (int m = 0; m < 6; ++m) global[m] = static_cast<long long>(sums[m]);
    s.comm.sum(std::span<long long>(global, 6));
    const bool adds_up = global[0] == global[4] && global[1] == global[5] &&
                         global[2] == 2 * global[4] && global[3] == 3 * global[5];
    if (!adds_up || verify_) {
      // The host listing on a copy: its check words the error (collective); with
      // SCANMD_CUDA_BONDED_CHECK=1 its terms must be the device's.
      copy_to_host(p, s.stream);
      lister_.list_and_check(host_, s.box, s.rule, s.comm, s.step, s.import_cutoff);
      if (!adds_up)
        throw std::logic_error("the device's bonded listing does not add up, the host's does");
      std::vector<BondedTerm> device(count_);
      if (count_ > 0) download(device, terms_.data(), count_, s.stream);
      check(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize (bonded check)");
      const std::vector<BondedTerm>& host = lister_.terms();
      auto same = [](const BondedTerm& x, const BondedTerm& y) {
        return x.at[0] == y.at[0] && x.at[1] == y.at[1] && x.at[2] == y.at[2] && x.type == y.type &&
               x.atoms == y.atoms && x.apply == y.apply && x.energy == y.energy;
      };
      if (host.size() != device.size() ||
          !std::equal(host.begin(), host.end(), device.begin(), same))
        throw std::logic_error(fmt::format(
            "SCANMD_CUDA_BONDED_CHECK: step {}, rank {}: the device lists {} bonded terms, the "
            "host {}, not the same",
            s.step, s.comm.rank(), device.size(), host.size()));
    }
    if (sums[6] != kNone && sums[6] < count_) {  // the host compute's words
      const BondedTerm t = read_one(terms_.data() + sums[6], s.stream);
      auto id = [&](std::uint32_t i) { return read_one(p.id.data() + i, s.stream); };
      if (t.atoms == 2)
        throw std::runtime_error(fmt::format("bond {}-{}: bond type {} has no [[bond.coeff]]",
                                             id(t.at[0]), id(t.at[1]), t.type));
      throw std::runtime_error(fmt::format("angle {}-{}-{}: angle type {} has no [[angle.coeff]]",
                                           id(t.at[0]), id(t.at[1]), id(t.at[2]), t.type));
    }
  }

  // id, x, home, shift of the particles and ghosts, and the topology fields, into host_.
  void copy_to_host(DeviceParticles& p, cudaStream_t stream) {
    const std::uint32_t n = p.n;
    if (host_.fields.empty())
      for (std::size_t k = 0; k < p.fields.count(); ++k) {
        const std::string& name = p.fields.spec(k).name;
        if (name == kBondAtomField || name == kBondTypeField || name == kAngleAtomField ||
            name == kAngleTypeField)
          host_.fields.add(p.fields.spec(k));
      }
    host_.resize(p.n_owned, n);
    download(host_.id, p.id.data(), n, stream);
    download(host_.x, p.x.data(), n, stream);
    download(host_.home, p.home.data(), n, stream);
    download(host_.shift, p.shift.data(), n, stream);
    std::vector<std::vector<std::uint64_t>> planes;
    planes.reserve(16);
    for (std::size_t h = 0; h < host_.fields.count(); ++h) {
      const auto k = static_cast<std::size_t>(p.fields.find(host_.fields.spec(h).name));
      const int w = p.fields.spec(k).width;
      for (int c = 0; c < w; ++c) {
        planes.emplace_back(n);
        download(planes.back(), p.fields.plane(k, c), n, stream);
      }
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (bonded listing)");
    std::size_t next = 0;
    for (std::size_t h = 0; h < host_.fields.count(); ++h) {
      const auto w = static_cast<std::size_t>(host_.fields.spec(h).width);
      std::span<std::uint64_t> words = host_.fields.words(h);
      for (std::size_t c = 0; c < w; ++c, ++next)
        for (std::uint32_t i = 0; i < n; ++i) words[i * w + c] = planes[next][i];
    }
  }

  std::shared_ptr<const BondedParams> params_;
  HostBondedCompute lister_;  // the host's listing: error messages, SCANMD_CUDA_BONDED_CHECK
  ParticleStore host_;        // its copy of the particles and ghosts
  Box host_box_{};            // of the last rebuild (messages)
  bool verify_ = false;       // SCANMD_CUDA_BONDED_CHECK=1
  DeviceBuffer<std::uint32_t> copies_, counts_;
  DeviceBuffer<unsigned long long> sums_;
  DeviceBuffer<std::uint8_t> bond_given_, angle_given_;
  std::uint32_t types_;
  std::optional<DevicePairTables> special_pair_;  // special_bonds 0 < w < 1 only
  DeviceBuffer<SpecialShare> special_;            // per term (count_)
  std::uint32_t count_ = 0;
  DeviceBuffer<BondedTerm> terms_;
  DeviceBuffer<BondCoeff> bond_;
  DeviceBuffer<AngleCoeff> angle_;
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
        if (!species.bonded) throw std::logic_error("force compute '" + c.name + "': no params");
        out.push_back(std::make_unique<DeviceBondedCompute>(
            species.bonded, species.pair, static_cast<std::uint32_t>(species.types), stream));
        break;
    }
  }
  return out;
}

}  // namespace scanmd
