#include "io/log.hpp"

#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

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

// The log file (output.log) of rank 0: every line rank 0 prints, flushed line by line so that a
// run killed at any point leaves the lines up to there. A write that fails ends the logging to
// the file, with one warning on stdout; the run goes on.
class FileSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  FileSink(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  ~FileSink() override {
    if (f_) std::fclose(f_);
  }
  void write_raw(std::string_view text) {
    if (!f_) return;
    if (std::fwrite(text.data(), 1, text.size(), f_) != text.size() || std::fflush(f_) != 0)
      failed(errno);
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    write_raw(std::string_view(line.data(), line.size()));
  }
  void flush_() override {
    if (f_ && std::fflush(f_) != 0) failed(errno);
  }

 private:
  void failed(int err) {
    std::fclose(f_);
    f_ = nullptr;
    std::fprintf(stdout,
                 "warning: %s: cannot write the log file (%s): the run goes on without it\n",
                 path_.c_str(), err != 0 ? std::strerror(err) : "write error");
    std::fflush(stdout);
  }
  std::FILE* f_;
  std::string path_;
};

std::shared_ptr<FileSink> g_file_sink;
bool g_verbose = false;

}  // namespace

void setup_logging(int rank, int size, bool verbose) {
  auto logger = std::make_shared<spdlog::logger>("scanmd", std::make_shared<StdoutSink>());
  g_verbose = verbose;
  g_file_sink.reset();
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

void open_log_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    const int err = errno;
    throw std::runtime_error(path + ": cannot write: " + std::strerror(err));
  }
  auto sink = std::make_shared<FileSink>(f, path);
  sink->set_pattern("%v");
  sink->set_level(g_verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::default_logger()->sinks().push_back(sink);
  g_file_sink = std::move(sink);
}

void log_verbose_only(const std::string& text) {
  if (g_verbose) {
    spdlog::info("{}", text);
    return;
  }
  if (!g_file_sink) return;
  std::string line = text;
  line += '\n';
  g_file_sink->write_raw(line);
}

void close_log_file() {
  if (!g_file_sink) return;
  auto& sinks = spdlog::default_logger()->sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), g_file_sink), sinks.end());
  g_file_sink.reset();
}

namespace {

// Whether two open files of process `pid` ("self": this one) are one file.
bool same_output(const std::string& pid, int a, int b) {
  struct stat sa {
  }, sb{};
  const std::string dir = "/proc/" + pid + "/fd/";
  return ::stat((dir + std::to_string(a)).c_str(), &sa) == 0 &&
         ::stat((dir + std::to_string(b)).c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

void echo_error_to_stderr(const std::string& message) {
  if (!g_stdout_closed) {
    std::fflush(stdout);
    if (same_output("self", 1, 2)) return;
    // Under mpirun our stdout and stderr are two pipes to it, which writes them to its own
    // stdout and stderr: when those are one file (a terminal, `&> run.log`), one copy is enough
    // (issue 31: every error showed twice in a terminal). mpirun is the parent of the ranks of
    // its node; a rank elsewhere (orted's child) cannot tell and echoes.
    if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr &&
        same_output(std::to_string(::getppid()), 1, 2))
      return;
  }
  std::fprintf(stderr, "error: %s\n", message.c_str());
}

}  // namespace scanmd::io
