// Stop requests by signal. SIGINT (Ctrl-C), SIGTERM (kill, a batch system's time limit),
// SIGUSR1 (which mpirun forwards to every rank without ending them; Slurm's --signal=USR1@T)
// and SIGHUP (the terminal or ssh session went away; left ignored under `nohup`) set a flag in an async-signal-safe handler (one store to a volatile sig_atomic_t). The run's
// observer reports the flag at every step; the ranks agree on it in the step's existing vote
// (engine/simulation.hpp), so every rank stops after the same step: a final checkpoint, the
// trajectory closed, the timing table, exit status 128 + the signal number.
//
// SIGPIPE is ignored while the run lasts: a closed stdout (`scanmd run deck | head`) makes the
// log's writes fail (io/log.hpp stops writing there) instead of killing the run.
//
// The handlers are one-shot (SA_RESETHAND): a second signal of the same kind takes its default
// action and ends the process at once, for a user who will not wait for the step to finish.
#pragma once

namespace scanmd {

class StopSignals {
 public:
  StopSignals();   // installs the handlers
  ~StopSignals();  // restores the previous ones
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The number of the first stop signal received, 0 if none.
  static int received();
  // "SIGTERM", "SIGINT", "SIGUSR1", "SIGHUP", or "a signal".
  static const char* name(int signo);
};

}  // namespace scanmd
