// physics/potential_file.cpp — see potential_file.hpp.
#include "physics/potential_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace scanmd {

std::string read_potential_file(const std::string& path, std::string_view kind) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    throw PotentialFileError(fmt::format("cannot open {} {}: {}", kind, path,
                                         ec ? ec.message() : std::strerror(ENOENT)));
  if (!fs::is_regular_file(st))
    throw PotentialFileError(fmt::format("cannot read {} {}: not a regular file", kind, path));
  constexpr std::uintmax_t kMaxBytes = std::uintmax_t{1} << 30;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxBytes)
    throw PotentialFileError(fmt::format(
        "{} {}: {} bytes, more than the 1 GiB a potential file may have", kind, path, size));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw PotentialFileError(
        fmt::format("cannot open {} {}: {}", kind, path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw PotentialFileError(fmt::format("cannot read {} {}", kind, path));
  return text.str();
}

}  // namespace scanmd
