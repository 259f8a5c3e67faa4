#include "io/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cstdio>

namespace scanmd::io {

void setup_logging(int rank, int size, bool verbose) {
  auto logger = spdlog::stdout_logger_st("scanmd");
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

void echo_error_to_stderr(const std::string& message) {
  std::fflush(stdout);
  struct stat out {
  }, err{};
  if (fstat(1, &out) == 0 && fstat(2, &err) == 0 && out.st_dev == err.st_dev &&
      out.st_ino == err.st_ino)
    return;
  std::fprintf(stderr, "error: %s\n", message.c_str());
}

}  // namespace scanmd::io
