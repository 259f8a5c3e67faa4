#include "io/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

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

}  // namespace scanmd::io
