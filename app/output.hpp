// The output files of `scanmd run`: H5MD trajectory (with observables, the thermo table and a
// record of each run), checkpoints and the final state as a LAMMPS data file. Decides when to
// write and turns the Simulation's state into the plain rows and records io/ writes.
//
// When:
//   trajectory frame  the run's first step (a new file) and every output.trajectory_every
//                     steps; with trajectory_every = 0 the first and the last step. A restart
//                     appending to its old trajectory writes no frame the file already has.
//                     Energy and pressure are computed on exactly these steps (wants_energy)
//                     and written to /observables with the frame.
//   thermo row        every printed thermo row, into /scanmd/thermo of the trajectory
//   checkpoint        every output.checkpoint_every steps and at the last step
//   data file         output.data_file, once, at the end of the run (finish): the final state
//                     gathered by id onto rank 0 (N × 80 bytes there), which writes it
// Before the first step (constructor, collective): rank 0 locks every output for the run
// (io/output_lock.hpp: a second run writing one of them is refused), existing files are backed up
// (`#name.1#`, ...) unless output.overwrite, paths are checked for writability, and the
// trajectory is created, or on a restart appended to (after a copy to a backup, unless
// output.overwrite) after dropping its frames beyond the restart step. Every problem is an
// exception with the same message on every rank.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/report.hpp"
#include "engine/simulation.hpp"
#include "io/deck.hpp"
#include "io/h5md_writer.hpp"
#include "io/output_lock.hpp"
#include "io/particle_rows.hpp"

namespace scanmd {

namespace io {
class H5mdWriter;
}

// Refuses (std::runtime_error naming the key and where it was given) an output path that names
// an input of the run: the deck file, system.data_file or the --restart checkpoint `restart_from`
// (by file identity, so links count; by canonical path for files not yet there). Continuing the
// --restart checkpoint into output.checkpoint is allowed: it is read whole before anything is
// written. Rank 0's business (the caller shares the outcome); writes nothing.
void check_outputs_spare_inputs(const io::Deck& deck, const std::string& restart_from);

// Logs each backup removed for output.backups = keep.
void log_removed_backups(const std::vector<std::string>& removed, int keep);

// What the thermo columns need besides a sample (engine/thermo.hpp): dt, volume, total mass.
ThermoContext thermo_context(const Simulation& sim);

class RunOutput {
 public:
  // `sim` is set up (particle count known). `restart_from`: the checkpoint this run started
  // from ("" for none), at step sim.step().
  RunOutput(const Communicator& comm, const io::Deck& deck, const Simulation& sim,
            const std::string& restart_from);
  ~RunOutput();
  RunOutput(const RunOutput&) = delete;
  RunOutput& operator=(const RunOutput&) = delete;

  bool active() const;  // anything to write between steps (the data file waits for finish)
  // Does `step` need energy and virial (a trajectory frame)? Same answer on every rank.
  bool wants_energy(long long step) const;
  // After each step (collective). `thermo`: the sample of this step if one was taken;
  // `thermo_row`: it was printed as a thermo row.
  void after_step(const Simulation& sim, const ThermoSample* thermo, bool thermo_row);
  // End of the run (collective): the run record (import counts, timing) and closing; the
  // data file of the final state. `stopped`: the run ended early (a stop signal): a checkpoint
  // of this step is written too, unless one was just written.
  void finish(const Simulation& sim, const std::vector<TimingRow>& timing, bool stopped = false);
  // Wall time spent writing on this rank.
  double seconds() const { return seconds_; }

 private:
  bool frame_due(long long step) const;
  bool checkpoint_due(long long step) const;
  void write_data_file(const Simulation& sim);
  void write_topology(const Communicator& comm, const Simulation& sim);
  void write_checkpoint(const Simulation& sim, const io::FrameHeader& header,
                        const std::vector<io::ParticleRow>& block);
  void write_checkpoint(const Simulation& sim);
  // Restart into an existing trajectory with frames at `steps`: back up and log the frames
  // after the restart step, warn of a gap before it (rank 0).
  // `backup`: the copy made of the file first ("" with output.overwrite).
  void account_for_frames(const std::vector<std::int64_t>& steps, const std::string& backup) const;

  const Communicator& comm_;
  const io::Deck& deck_;
  std::vector<io::OutputLock> locks_;  // rank 0: every output, held for the run
  std::string restart_from_;
  long long first_step_ = 0, last_step_ = 0;
  long long particles_ = 0;
  bool first_frame_ = true;  // write a frame at the first step
  std::unique_ptr<io::H5mdWriter> trajectory_;
  long long checkpoint_step_ = -1;
  double seconds_ = 0;
  std::vector<std::string> thermo_columns_;  // of the trajectory's scanmd/thermo
};

}  // namespace scanmd
