// "Nothing is lost": after every migration the global particle count and id set must be the
// ones the run started with. The cheap test (count, Σid, Σid² modulo 2^128) runs on
// every rebuild; only when it fails are all ids gathered to find and name the culprit.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/communicator.hpp"
#include "base/particles.hpp"

namespace scanmd {

struct Census {
  long long count = 0;
  Wide id_sum = 0;
  Wide id_sq_sum = 0;

  // Global census of the owned particles (collective): local() summed over the ranks.
  static Census take(const Communicator& comm, const ParticleStore& p) {
    return sum(comm, local(p));
  }
  static Census local(const ParticleStore& p);
  static Census sum(const Communicator& comm, Census local);
  bool operator==(const Census&) const = default;
};

// Throws CollectiveError ("step N: particle census failed: ...", naming a lost or duplicated
// particle id; the same message on every rank) when `now` differs from `expected`.
void check_census(const Communicator& comm, const ParticleStore& p, const Census& expected,
                  long long step);
// The same check on a global census `now` summed elsewhere (the CUDA backend reduces on the
// device); `owned_ids` gives this rank's ids, called on every rank when the sums differ only.
void check_census(const Communicator& comm, const Census& now, const Census& expected,
                  long long step, const std::function<std::vector<std::uint64_t>()>& owned_ids);

}  // namespace scanmd
