// Exclusive locks on output files: two runs must never write one trajectory, checkpoint, data
// file or imports CSV at once (two restarts appending to one trajectory left a corrupt file,
// both exiting 0). The lock is an flock(2) on "<path>.lock", taken without waiting: a second
// run is refused at once, naming the file and the pid and host of the run holding it (written
// into the lock file). The lock goes when its holder ends, however it ends (the kernel drops
// flock locks with the process), so a stale lock file left by a killed run is taken over. A
// lock released normally removes its file.
// No MPI here: rank 0 takes the locks and shares the outcome.
#pragma once

#include <string>

namespace scanmd::io {

std::string lock_name(const std::string& path);  // "<path>.lock"

class OutputLock {
 public:
  // Throws std::runtime_error naming `path` (and the holder) when another process holds it,
  // or its lock file cannot be made. `key`: the deck key, for the message.
  OutputLock(const std::string& path, const std::string& key);
  ~OutputLock();
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&&) = delete;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  const std::string& path() const { return lock_; }

 private:
  std::string lock_;
  int fd_ = -1;
};

}  // namespace scanmd::io
