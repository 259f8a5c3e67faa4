// Exclusive locks on output files (see output_lock.hpp).
#include "io/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace scanmd::io {

namespace {

// "pid 1234 on host node7", from the lock file's text ("1234 node7\n"); "" when unreadable.
std::string holder_of(int fd) {
  char text[512] = {};
  const ssize_t n = ::pread(fd, text, sizeof(text) - 1, 0);
  if (n <= 0) return {};
  std::string s(text, static_cast<std::size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  const auto space = s.find(' ');
  if (space == std::string::npos) return "pid " + s;
  return "pid " + s.substr(0, space) + " on host " + s.substr(space + 1);
}

std::string host_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) return "unknown";
  return host;
}

}  // namespace

std::string lock_name(const std::string& path) {
  return path + ".lock";
}

OutputLock::OutputLock(const std::string& path, const std::string& key) : lock_(lock_name(path)) {
  // A holder that releases removes the file: whoever opened it before that holds an unlinked
  // file, so after taking the lock the path must still name the file locked (else try again).
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw std::runtime_error(path + ": cannot write: " + std::strerror(errno) + " (" + key +
                               ", creating its lock file " + lock_ + ")");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string holder = err == EWOULDBLOCK ? holder_of(fd) : std::string();
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw std::runtime_error(
            path + ": " + key + ": the file is being written by another run (" +
            (holder.empty() ? std::string("its lock file ") + lock_ + " is held"
                            : holder + ", lock file " + lock_) +
            "): two runs must not write one output; wait for that run to end, or choose "
            "another path");
      throw std::runtime_error(path + ": " + key + ": cannot lock " + lock_ + ": " +
                               std::strerror(err));
    }
    struct stat open_file {
    }, named{};
    if (::fstat(fd, &open_file) != 0 || ::stat(lock_.c_str(), &named) != 0 ||
        open_file.st_dev != named.st_dev || open_file.st_ino != named.st_ino) {
      ::close(fd);  // removed (or replaced) by its previous holder meanwhile
      continue;
    }
    const std::string me = std::to_string(::getpid()) + " " + host_name() + "\n";
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
      const int err = errno;
      ::unlink(lock_.c_str());
      ::close(fd);
      throw std::runtime_error(path + ": " + key + ": cannot write its lock file " + lock_ + ": " +
                               std::strerror(err));
    }
    fd_ = fd;
    return;
  }
  throw std::runtime_error(path + ": " + key + ": cannot lock " + lock_ +
                           ": it keeps being removed and made again");
}

OutputLock::OutputLock(OutputLock&& other) noexcept
    : lock_(std::move(other.lock_)), fd_(other.fd_) {
  other.fd_ = -1;
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(lock_.c_str());  // still held: nobody can take a file about to go
  ::close(fd_);
}

}  // namespace scanmd::io
