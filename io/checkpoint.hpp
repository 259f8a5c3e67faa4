// Checkpoint files: the complete state of a run at one step, as a one-frame H5MD file.
//
// Positions (wrapped), velocities and image counters by particle id, the box, the step and
// time and the resolved deck are all a restart needs: the trajectory does not depend on when
// neighbour lists were rebuilt, and forces are recomputed bitwise from the positions. The file
// is the H5MD layout of h5md_writer.hpp (so h5py and MDAnalysis read it too), written to
// "<path>.tmp" and renamed onto `path` once closed and synced: a crash while writing never
// leaves a broken checkpoint, at worst an older one.
//
// read_checkpoint() reads the last frame of such a file (a trajectory with velocities and
// images works too), every rank its row block, and checks it thoroughly: a missing,
// truncated or foreign file is a CheckpointError naming the file and the problem.
//
// Checkpoints carry a checksum (scanmd/checksum, text "rowmix64-v1 <16 hex digits>") of what a
// restart takes from them: ids, positions, velocities, image flags and species of every row (and
// its optional fields' words, when the run had any), the particle count, step, time, box and
// thermostat state. read_checkpoint() recomputes it from what
// it read and refuses a file whose checksum differs (one flipped bit), naming the file.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/communicator.hpp"
#include "base/particle_fields.hpp"
#include "io/h5md_writer.hpp"
#include "io/particle_rows.hpp"

namespace scanmd::io {

// One optional per-particle field of the checkpoint's rows (base/particle_fields.hpp: the State
// fields of the run's force computes), this rank's row block: width words per row, in row order.
// Stored as scanmd/fields/<name> (rows × width, int64 or float64), listed in scanmd/field_list.
struct FieldBlock {
  FieldSpec spec;
  std::vector<std::uint64_t> words;
};

class CheckpointError : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

struct Checkpoint {
  std::int64_t step = 0;
  double time = 0;
  std::array<double, 3> box{0, 0, 0};
  std::int64_t particles = 0;
  std::string deck;                // resolved deck of the run that wrote it ("" if absent)
  std::vector<double> thermostat;  // the thermostat's state (Simulation::thermostat_state())
  bool thermostat_saved = false;   // the file has scanmd/thermostat_state (checkpoints do)
  // thermostat.style and thermostat.chain of the run that wrote it, from its resolved deck
  // ("" and 0 when the file has none).
  std::string writer_thermostat;
  int writer_chain = 0;
  std::vector<ParticleRow> rows;   // this rank's row block, sorted by id (forces zero)
  std::vector<FieldBlock> fields;  // every optional field the file holds, for the same rows
  // The rows of /connectivity/bonds and /connectivity/angles (a trajectory of a bonded run);
  // -1 when the file has no such dataset.
  std::int64_t connectivity_bonds = -1, connectivity_angles = -1;
  // scanmd/checksum: verified (a mismatch is an error), or absent (a trajectory, or a
  // checkpoint of a scanmd before issue 31): nothing to verify.
  enum class Checksum { Absent, Verified } checksum = Checksum::Absent;
  double checksum_seconds = 0;  // this rank's time hashing its rows
};

// Collective. `block` is this rank's row block of `particles` rows (order_by_id()).
void write_checkpoint(const Communicator& comm, const std::string& path, const FrameHeader& frame,
                      std::span<const ParticleRow> block, std::int64_t particles,
                      const RunRecord& run, const std::string& creator_version,
                      std::span<const double> thermostat_state = {},
                      std::span<const FieldBlock> fields = {});

// Collective; every rank throws the same CheckpointError when the file is unusable.
Checkpoint read_checkpoint(const Communicator& comm, const std::string& path);

}  // namespace scanmd::io
