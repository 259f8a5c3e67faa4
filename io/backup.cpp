// Backups of existing output and writability checks (see backup.hpp).
#include "io/backup.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <sys/stat.h>

namespace scanmd::io {

namespace fs = std::filesystem;

std::string backup_name(const std::string& path, int n) {
  const fs::path p(path);
  // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "#" + std::string&&.
  std::string name(1, '#');
  name.append(p.filename().string()).append(".").append(std::to_string(n)).append("#");
  return p.has_parent_path() ? (p.parent_path() / name).string() : name;
}

std::optional<std::string> back_up_existing(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return std::nullopt;
  if (!fs::is_regular_file(status))
    throw std::runtime_error(path + ": exists and is not a regular file; not replacing it");
  for (int n = 1; n < 100000; ++n) {
    const std::string name = backup_name(path, n);
    if (fs::exists(fs::symlink_status(name, ec))) continue;
    if (std::rename(path.c_str(), name.c_str()) != 0) {
      // errno read at once: the string concatenation below allocates, and may change it (the
      // order of evaluation of the + operands is unspecified): "cannot back up ...: Success".
      const int err = errno;
      throw std::runtime_error(path + ": cannot back up to " + name + ": " + std::strerror(err));
    }
    return name;
  }
  throw std::runtime_error(path + ": too many backups (#...#) next to it");
}

std::string copy_to_backup(const std::string& path) {
  std::error_code ec;
  for (int n = 1; n < 100000; ++n) {
    const std::string name = backup_name(path, n);
    if (fs::exists(fs::symlink_status(name, ec))) continue;
    const std::string tmp = name + ".tmp";
    fs::copy_file(path, tmp, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      fs::remove(tmp, ec);
      throw std::runtime_error(path + ": cannot back up to " + name + ": " + ec.message());
    }
    if (std::rename(tmp.c_str(), name.c_str()) != 0) {
      const int err = errno;
      fs::remove(tmp, ec);
      throw std::runtime_error(path + ": cannot back up to " + name + ": " + std::strerror(err));
    }
    return name;
  }
  throw std::runtime_error(path + ": too many backups (#...#) next to it");
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  if (ea || eb)
    return fs::absolute(a, ea).lexically_normal() == fs::absolute(b, eb).lexically_normal();
  return ca == cb;
}

bool same_file_system(const std::string& a, const std::string& b) {
  auto folder = [](const std::string& p) {
    const fs::path d = fs::path(p).parent_path();
    return d.empty() ? std::string(".") : d.string();
  };
  struct stat sa {
  }, sb{};
  return ::stat(folder(a).c_str(), &sa) == 0 && ::stat(folder(b).c_str(), &sb) == 0 &&
         sa.st_dev == sb.st_dev;
}

void check_writable(const std::string& path) {
  if (path.empty()) throw std::runtime_error("empty output path");
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error(path + ": cannot write: is a folder");
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
  std::fclose(f);
  std::remove(tmp.c_str());
}

}  // namespace scanmd::io
