#include "io/log.hpp"

#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace scanmd::io {

namespace {

bool g_stdout_closed = false;

// stdout, flushed after every line. A write that fails (EPIPE: the reader of `| head` is gone,
// with SIGPIPE ignored; EIO: the terminal hung up) ends the logging to stdout for the rest of
// the process, with one note on stderr: the run goes on (spdlog's own stdout sink ignores the
// failure and would keep writing into the void; without SIGPIPE ignored it killed the run).
class StdoutSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (g_stdout_closed) return;
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    errno = 0;
    const bool ok =
        std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fflush(stdout) == 0;
    if (!ok) closed(errno);
  }
  void flush_() override {
    if (!g_stdout_closed && std::fflush(stdout) != 0) closed(errno);
  }

 private:
  static void closed(int err) {
    g_stdout_closed = true;
    std::clearerr(stdout);
    std::fprintf(stderr,
                 "scanmd: cannot write the log to standard output (%s): the run goes on "
                 "without it there (SIGINT or SIGTERM stop it cleanly)\n",
                 err != 0 ? std::strerror(err) : "write error");
    std::fflush(stderr);
  }
};

}  // namespace

void setup_logging(int rank, int size, bool verbose) {
  auto logger = std::make_shared<spdlog::logger>("scanmd", std::make_shared<StdoutSink>());
  if (rank == 0) {
    logger->set_pattern("%v");
    logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  } else {
    logger->set_pattern(fmt::format("[rank {}/{}] %l: %v", rank, size));
    logger->set_level(spdlog::level::warn);
  }
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

bool stdout_closed() {
  return g_stdout_closed;
}

void echo_error_to_stderr(const std::string& message) {
  if (!g_stdout_closed) std::fflush(stdout);
  struct stat out {
  }, err{};
  if (!g_stdout_closed && fstat(1, &out) == 0 && fstat(2, &err) == 0 && out.st_dev == err.st_dev &&
      out.st_ino == err.st_ino)
    return;
  std::fprintf(stderr, "error: %s\n", message.c_str());
}

}  // namespace scanmd::io
