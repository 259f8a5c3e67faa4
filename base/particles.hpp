// The particle store of one rank: owned particles first, ghosts after them, in the same arrays.
//
//   index  [0, n_owned)            owned: this rank integrates them
//          [n_owned, size())       ghosts: copies of particles owned elsewhere (or periodic
//                                  images of this rank's own), refreshed every step
// Per particle:
//   id      global id (1-based, LAMMPS convention), never changes
//   type    species index 0..T-1 (LAMMPS type − 1), never changes; ghosts carry the owner's
//   x       position wrapped into [0, L) — ghosts carry the owner's wrapped coordinates, so
//           every rank computes a pair's displacement from the same bits (DESIGN.md §5)
//   v       velocity (owned only: the array holds n_owned entries)
//   image   periodic image counter (owned only: n_owned entries)
//   f       force, 64-bit fixed point (owned and ghosts: ghost forces go back to owners)
//   home    index of the box holding the particle's image in the rank grid: the owner's box
//           plus shift × grid. It can lie outside [0, grid) for periodic images. Pair rules
//           compare home offsets, never raw positions (DESIGN.md §4).
//   shift   periodic shift S of the ghost image x + S·L used for binning (owned: 0)
//   x_build position at the last neighbour build (owned only: n_owned entries), for the skin/2
//           rebuild test
//   fields  the optional per-particle fields the run's force computes asked for
//           (base/particle_fields.hpp): none in a plain pair run
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/particle_fields.hpp"
#include "base/vec3.hpp"

namespace scanmd {

// Resizes v to n; when that needs a larger buffer, it gets an eighth of slack rather than
// std::vector's doubling (per-particle arrays that grow by a few percent between rebuilds).
template <class T>
void resize_with_slack(std::vector<T>& v, std::size_t n) {
  if (n > v.capacity()) v.reserve(n + n / 8);
  v.resize(n);
}

struct ParticleStore {
  std::size_t n_owned = 0;

  std::vector<std::uint64_t> id;
  std::vector<std::uint32_t> type;
  std::vector<Vec3> x;
  std::vector<Vec3> v;
  std::vector<Int3> image;
  std::vector<Fix3> f;
  std::vector<Int3> home;
  std::vector<Int3> shift;
  std::vector<Vec3> x_build;
  ParticleFields fields;

  std::size_t size() const { return id.size(); }
  std::size_t n_ghost() const { return id.size() - n_owned; }

  // Drops the ghosts; owned data stays.
  void clear_ghosts() { resize(n_owned, n_owned); }

  // Resizes to n particles of which n_owned_new are owned; capacity only grows. Ghosts have
  // no v, image or x_build (60 B per ghost less).
  void resize(std::size_t n_owned_new, std::size_t n) {
    n_owned = n_owned_new;
    if (n > id.capacity()) reserve(n + n / 8);  // an eighth of slack, not std::vector's doubling
    id.resize(n);
    type.resize(n);
    x.resize(n);
    f.resize(n);
    home.resize(n);
    shift.resize(n);
    resize_with_slack(v, n_owned);
    resize_with_slack(image, n_owned);
    resize_with_slack(x_build, n_owned);
    fields.resize(n);
  }

  void reserve(std::size_t n) {
    id.reserve(n);
    type.reserve(n);
    x.reserve(n);
    f.reserve(n);
    home.reserve(n);
    shift.reserve(n);
  }

  // Reorders the owned particles (no ghosts present): new slot k takes old slot order[k].
  // In place, cycle by cycle, with one bit per particle of scratch: a copy of the arrays would
  // add to the peak memory of the run (this runs while the last neighbour list is alive), and
  // fresh pages at every rebuild. x_build is left as it is: the halo build that follows sets
  // it. The optional fields move with their particle, in the same cycles.
  void permute_owned(const std::vector<std::uint32_t>& order) {
    const std::size_t n = order.size();
    // The optional fields' columns, and the words of a cycle's first particle.
    struct Column {
      std::uint64_t* words;
      std::size_t width;
    };
    std::vector<Column> columns;
    std::size_t field_words = 0;
    for (std::size_t k = 0; k < fields.count(); ++k) {
      columns.push_back({fields.words(k).data(), fields.width(k)});
      field_words += fields.width(k);
    }
    std::vector<std::uint64_t> saved_fields(field_words);
    auto fields_to = [&](std::uint64_t* out, std::size_t from) {
      for (const Column& c : columns)
        for (std::size_t j = 0; j < c.width; ++j) *out++ = c.words[from * c.width + j];
    };
    auto fields_from = [&](std::size_t to, const std::uint64_t* in) {
      for (const Column& c : columns)
        for (std::size_t j = 0; j < c.width; ++j) c.words[to * c.width + j] = *in++;
    };
    auto move_fields = [&](std::size_t to, std::size_t from) {
      for (const Column& c : columns)
        for (std::size_t j = 0; j < c.width; ++j)
          c.words[to * c.width + j] = c.words[from * c.width + j];
    };
    std::vector<bool> placed(n, false);
    for (std::size_t start = 0; start < n; ++start) {
      if (placed[start]) continue;
      const Slot saved = slot(start);
      if (field_words) fields_to(saved_fields.data(), start);
      std::size_t j = start;
      for (;;) {
        placed[j] = true;
        const std::size_t k = order[j];
        if (k == start) {
          put(j, saved);
          if (field_words) fields_from(j, saved_fields.data());
          break;
        }
        put(j, slot(k));
        if (field_words) move_fields(j, k);
        j = k;
      }
    }
  }

  // Appends one owned particle (only valid while there are no ghosts).
  void push_owned(std::uint64_t gid, std::uint32_t species, Vec3 pos, Vec3 vel, Int3 img,
                  Int3 box) {
    id.push_back(gid);
    type.push_back(species);
    x.push_back(pos);
    v.push_back(vel);
    image.push_back(img);
    f.push_back({0, 0, 0});
    home.push_back(box);
    shift.push_back({0, 0, 0});
    x_build.push_back(pos);
    fields.push_zero();
    n_owned = id.size();
  }

 private:
  struct Slot {
    std::uint64_t id;
    std::uint32_t type;
    Vec3 x, v;
    Int3 image, home;
  };
  Slot slot(std::size_t i) const { return {id[i], type[i], x[i], v[i], image[i], home[i]}; }
  void put(std::size_t i, const Slot& s) {
    id[i] = s.id;
    type[i] = s.type;
    x[i] = s.x;
    v[i] = s.v;
    image[i] = s.image;
    home[i] = s.home;
  }
};

}  // namespace scanmd
