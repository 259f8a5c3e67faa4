// engine/cuda/device_fields.cpp — see device_fields.hpp.
#include "engine/cuda/device_fields.hpp"

#include <stdexcept>

#include "engine/cuda/launch.hpp"

namespace scanmd::cuda_step {

void DeviceFields::declare(const ParticleFields& host) {
  if (!columns_.empty()) {
    bool same = columns_.size() == host.count();
    for (std::size_t k = 0; same && k < columns_.size(); ++k)
      same = columns_[k].spec == host.spec(k);
    if (!same) throw std::logic_error("backend cuda: the per-particle fields changed during a run");
    return;
  }
  for (std::size_t k = 0; k < host.count(); ++k) {
    Column c{host.spec(k), {}};
    c.planes.resize(static_cast<std::size_t>(c.spec.width));
    columns_.push_back(std::move(c));
  }
}

int DeviceFields::find(std::string_view name) const {
  for (std::size_t k = 0; k < columns_.size(); ++k)
    if (columns_[k].spec.name == name) return static_cast<int>(k);
  return -1;
}

std::vector<std::uint64_t*> DeviceFields::planes_of(std::size_t k) {
  std::vector<std::uint64_t*> out;
  for (auto& p : columns_[k].planes) out.push_back(p.data());
  return out;
}

std::uint32_t DeviceFields::state_words() const {
  std::uint32_t w = 0;
  for (const Column& c : columns_)
    if (c.spec.life == FieldLife::State) w += static_cast<std::uint32_t>(c.spec.width);
  return w;
}

void DeviceFields::upload(const ParticleFields& host, std::uint32_t n, cudaStream_t stream) {
  declare(host);
  for (std::size_t k = 0; k < columns_.size(); ++k) {
    const auto words = host.words(k);
    const std::size_t w = host.width(k);
    for (std::size_t c = 0; c < w; ++c) {
      DeviceBuffer<std::uint64_t>& plane = columns_[k].planes[c];
      ensure(plane, n);
      host_words_.resize(n);
      for (std::size_t i = 0; i < n; ++i) host_words_[i] = words[i * w + c];
      cuda_step::upload(plane.data(), host_words_, n, stream);
      // The staging vector is reused by the next plane: pageable copies return once staged.
    }
  }
}

void DeviceFields::download_owned(ParticleFields& host, std::uint32_t n_owned,
                                  cudaStream_t stream) const {
  for (std::size_t k = 0; k < columns_.size(); ++k) {
    const std::size_t w = host.width(k);
    auto words = host.words(k);
    for (std::size_t c = 0; c < w; ++c) {
      download(host_words_, columns_[k].planes[c].data(), n_owned, stream);
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (fields)");
      for (std::size_t i = 0; i < n_owned; ++i) words[i * w + c] = host_words_[i];
    }
  }
}

void DeviceFields::grow_keeping(std::size_t n, std::size_t keep, cudaStream_t stream) {
  for (Column& col : columns_)
    for (auto& plane : col.planes) cuda_step::grow_keeping(plane, n, keep, stream);
}

void DeviceFields::keep(const std::uint32_t* order, std::uint32_t count, cudaStream_t stream) {
  ensure(sorted_, count);
  for (Column& col : columns_)
    for (auto& plane : col.planes) {
      launch_gather_words(plane.data(), order, count, sorted_.data(), stream);
      copy_d2d(plane.data(), sorted_.data(), count, stream);
    }
}

void DeviceFields::pack_state(const std::uint32_t* idx, std::uint32_t count, std::uint64_t* out,
                              cudaStream_t stream) {
  if (count == 0) return;  // (`out` may then be null: no offsets from it)
  const std::uint32_t W = state_words();
  std::uint32_t s = 0;
  for (Column& col : columns_) {
    if (col.spec.life != FieldLife::State) continue;
    for (auto& plane : col.planes)
      launch_pack_plane(plane.data(), idx, count, out + s++, W, stream);
  }
}

void DeviceFields::unpack_state(const std::uint64_t* in, std::uint32_t m, std::uint32_t first,
                                cudaStream_t stream) {
  if (m == 0) return;
  const std::uint32_t W = state_words();
  std::uint32_t s = 0;
  for (Column& col : columns_)
    for (auto& plane : col.planes) {
      if (col.spec.life == FieldLife::State)
        launch_unpack_plane(in + s++, W, m, plane.data() + first, stream);
      else
        check(cudaMemsetAsync(plane.data() + first, 0, std::size_t{m} * sizeof(std::uint64_t),
                              stream),
              "cudaMemsetAsync (scratch field)");
    }
}

}  // namespace scanmd::cuda_step
