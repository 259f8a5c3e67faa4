// "Nothing is lost": after every migration the global particle count and id set must be the
// ones the run started with. The cheap test (count, Σid, Σid² in 128-bit integers) runs on
// every rebuild; only when it fails are all ids gathered to find and name the culprit.
#pragma once

#include <cstdint>

#include "base/particles.hpp"
#include "base/communicator.hpp"

namespace scanmd {

struct Census {
  long long count = 0;
  Wide id_sum = 0;
  Wide id_sq_sum = 0;

  static Census take(const Communicator& comm, const ParticleStore& p);
  bool operator==(const Census&) const = default;
};

// Throws CollectiveError ("step N: particle census failed: ...", naming a lost or duplicated
// particle id; the same message on every rank) when `now` differs from `expected`.
void check_census(const Communicator& comm, const ParticleStore& p, const Census& expected,
                  long long step);

}  // namespace scanmd
