// Per-particle fields beyond id/type/x/v/f: named columns that exist only when a force compute
// asks for them (engine/force_compute.hpp), so a plain Lennard-Jones run carries none and pays
// nothing for them.
//
//   kind    Integer (int64: a molecule id, a bond partner's id, a fixed-point sum such as EAM's
//           density) or Real (double)
//   width   values per particle (a bond list of up to k partners: width k)
//   life    State: belongs to the particle — migrates with it and goes to checkpoints (molecule
//           ids, topology); Scratch: recomputed every step on owned particles and ghosts (EAM's
//           ρ and F'(ρ)): neither migrates nor is saved, and only its owned part is kept across
//           a rebuild
// Columns hold owned particles first, then ghosts, as the other arrays of the ParticleStore; a
// ghost's value is what the halo forwarded (HaloExchange::forward_field) or what a compute wrote.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace scanmd {

enum class FieldKind : std::uint8_t { Integer, Real };
enum class FieldLife : std::uint8_t { State, Scratch };

struct FieldSpec {
  std::string name;
  FieldKind kind = FieldKind::Integer;
  int width = 1;
  FieldLife life = FieldLife::State;
  bool operator==(const FieldSpec&) const = default;
};

class ParticleFields {
 public:
  // Adds a column (every particle 0), or returns the index of the one of that name; a second
  // request with another kind, width or life is a std::logic_error (two computes disagree).
  std::size_t add(const FieldSpec& spec) {
    for (std::size_t k = 0; k < columns_.size(); ++k) {
      if (columns_[k].spec.name != spec.name) continue;
      if (!(columns_[k].spec == spec))
        throw std::logic_error("per-particle field '" + spec.name + "' asked for twice, unlike");
      return k;
    }
    if (spec.width < 1) throw std::logic_error("per-particle field '" + spec.name + "': width");
    Column c{spec, {}};
    c.words.resize(size_ * static_cast<std::size_t>(spec.width));
    columns_.push_back(std::move(c));
    return columns_.size() - 1;
  }

  bool empty() const { return columns_.empty(); }
  std::size_t count() const { return columns_.size(); }
  const FieldSpec& spec(std::size_t k) const { return columns_[k].spec; }
  // The column of that name, or -1.
  int find(std::string_view name) const {
    for (std::size_t k = 0; k < columns_.size(); ++k)
      if (columns_[k].spec.name == name) return static_cast<int>(k);
    return -1;
  }

  // Column k's values, `width` per particle. Integer columns as int64, Real ones as double:
  // the words are the values' bits, read and written through these views only.
  std::span<std::int64_t> integers(std::size_t k) {
    check_kind(k, FieldKind::Integer);
    return {reinterpret_cast<std::int64_t*>(columns_[k].words.data()), columns_[k].words.size()};
  }
  std::span<const std::int64_t> integers(std::size_t k) const {
    check_kind(k, FieldKind::Integer);
    return {reinterpret_cast<const std::int64_t*>(columns_[k].words.data()),
            columns_[k].words.size()};
  }
  double real(std::size_t k, std::size_t i, int c = 0) const {
    check_kind(k, FieldKind::Real);
    return std::bit_cast<double>(columns_[k].words[i * width(k) + static_cast<std::size_t>(c)]);
  }
  void set_real(std::size_t k, std::size_t i, double v, int c = 0) {
    check_kind(k, FieldKind::Real);
    columns_[k].words[i * width(k) + static_cast<std::size_t>(c)] = std::bit_cast<Word>(v);
  }
  // The raw words of column k (any kind): halos and migration move bits.
  std::span<std::uint64_t> words(std::size_t k) { return columns_[k].words; }
  std::span<const std::uint64_t> words(std::size_t k) const { return columns_[k].words; }
  std::size_t width(std::size_t k) const {
    return static_cast<std::size_t>(columns_[k].spec.width);
  }

  // ---- what ParticleStore does to every array
  std::size_t size() const { return size_; }
  void resize(std::size_t n) {
    size_ = n;
    for (Column& c : columns_) c.words.resize(n * static_cast<std::size_t>(c.spec.width), 0);
  }
  // Particle `from`'s values to slot `to`.
  void copy(std::size_t from, std::size_t to) {
    for (Column& c : columns_) {
      const std::size_t w = static_cast<std::size_t>(c.spec.width);
      for (std::size_t j = 0; j < w; ++j) c.words[to * w + j] = c.words[from * w + j];
    }
  }
  // The State words of particle i, column after column (state_words() of them).
  std::size_t state_words() const {
    std::size_t w = 0;
    for (const Column& c : columns_)
      if (c.spec.life == FieldLife::State) w += static_cast<std::size_t>(c.spec.width);
    return w;
  }
  void pack_state(std::size_t i, std::uint64_t* out) const {
    for (const Column& c : columns_) {
      if (c.spec.life != FieldLife::State) continue;
      const std::size_t w = static_cast<std::size_t>(c.spec.width);
      for (std::size_t j = 0; j < w; ++j) *out++ = c.words[i * w + j];
    }
  }
  // Particle i's State values from pack_state()'s words (Scratch values: 0).
  void unpack_state(std::size_t i, const std::uint64_t* in) {
    for (Column& c : columns_) {
      const std::size_t w = static_cast<std::size_t>(c.spec.width);
      for (std::size_t j = 0; j < w; ++j)
        c.words[i * w + j] = c.spec.life == FieldLife::State ? *in++ : 0;
    }
  }
  // Appends one particle, every value 0.
  void push_zero() { resize(size_ + 1); }

 private:
  using Word = std::uint64_t;
  struct Column {
    FieldSpec spec;
    std::vector<Word> words;
  };
  void check_kind(std::size_t k, FieldKind kind) const {
    if (columns_[k].spec.kind != kind)
      throw std::logic_error("per-particle field '" + columns_[k].spec.name + "' read as the " +
                             (kind == FieldKind::Integer ? "integer" : "real") + " it is not");
  }
  std::vector<Column> columns_;
  std::size_t size_ = 0;
};

}  // namespace scanmd
