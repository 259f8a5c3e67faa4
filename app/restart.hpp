// `scanmd run DECK --restart FILE`: the starting state of a run from a checkpoint.
//
// Every rank reads its row block of the checkpoint (io/checkpoint.hpp), the rows go to the
// ranks whose boxes hold them (one all-to-all), and each rank passes its own particles to
// Simulation::setup(particles, step). The checkpoint must fit the deck: same particle count
// and box; its step must not lie beyond run.steps. Positions, velocities, images and the step
// are the whole state (forces are recomputed bitwise from positions), so a restarted run
// continues bitwise as if never stopped, on any rank count and decomposition.
#pragma once

#include <string>
#include <vector>

#include "engine/simulation.hpp"

namespace scanmd {

struct RestartState {
  std::string path;
  long long step = 0;
  long long particles = 0;
  std::vector<InitialParticle> particles_here;  // those this rank's box holds
  std::vector<double> thermostat;               // the thermostat's state at `step`
  // The optional State fields' words of particles_here (Simulation::setup's state_words).
  std::vector<std::uint64_t> state_words;
  bool checksum_verified = false;  // false: the file has no checksum (a trajectory, an old file)
  double read_seconds = 0;         // reading and verifying the file (rank 0)
  double checksum_seconds = 0;     // of which hashing the rows (rank 0)
};

// Collective. Throws (the same message on every rank) naming `path` and the problem.
// `expected_particles` is the deck's particle count; `sim` gives the box and the rank grid.
// `data_file`: the particles of system.data_file (every rank holds all), empty for a lattice
// start: every particle's type in the checkpoint must be the one the deck gives it.
// `data_file_words`: the data file's topology as State words (topology_state_words, in the
// order of `data_file`), for a file without the topology fields (a trajectory): the bonds and
// angles do not change during a run, so they come from the data file the run started from.
//
// Refused as well (issue 31): a checkpoint already at run.steps (nothing to run), a Nosé–Hoover
// chain whose length differs from thermostat.chain. Warned of (rank 0): a file without the
// thermostat state the deck's thermostat continues from (a trajectory: the chain starts at rest,
// econs jumps) and a thermostat state the deck's thermostat drops.
RestartState load_restart(const Communicator& comm, const std::string& path, const Simulation& sim,
                          long long expected_particles,
                          const std::vector<InitialParticle>& data_file = {},
                          const std::vector<std::uint64_t>& data_file_words = {});

}  // namespace scanmd
