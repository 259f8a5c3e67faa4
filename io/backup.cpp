// Backups of existing output and writability checks (see backup.hpp).
#include "io/backup.hpp"

#include <algorithm>
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

std::vector<long long> backup_numbers(const std::string& path) {
  const fs::path p(path);
  std::string prefix(1, '#');  // appended: see backup_name (-Wrestrict)
  prefix.append(p.filename().string()).append(".");
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::vector<long long> numbers;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() < prefix.size() + 2 || name.compare(0, prefix.size(), prefix) != 0 ||
        name.back() != '#')
      continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 1);
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos || digits[0] == '0')
      continue;
    numbers.push_back(std::stoll(digits));
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

namespace {

// The name the next backup of `path` takes: one more than the highest there.
std::string next_backup_name(const std::string& path) {
  const std::vector<long long> numbers = backup_numbers(path);
  const long long next = numbers.empty() ? 1 : numbers.back() + 1;
  if (next > 999999999) throw std::runtime_error(path + ": too many backups (#...#) next to it");
  return backup_name(path, static_cast<int>(next));
}

// Removes the oldest backups of `path` beyond `keep`.
void prune_backups(const std::string& path, int keep, std::vector<std::string>* removed) {
  const std::vector<long long> numbers = backup_numbers(path);
  const std::size_t limit = static_cast<std::size_t>(std::max(keep, 1));
  for (std::size_t k = 0; k + limit < numbers.size(); ++k) {
    const std::string name = backup_name(path, static_cast<int>(numbers[k]));
    std::error_code ec;
    if (fs::remove(name, ec) && removed) removed->push_back(name);
  }
}

}  // namespace

std::optional<std::string> back_up_existing(const std::string& path, int keep,
                                            std::vector<std::string>* removed) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return std::nullopt;
  if (!fs::is_regular_file(status))
    throw std::runtime_error(path + ": exists and is not a regular file; not replacing it");
  const std::string name = next_backup_name(path);
  if (std::rename(path.c_str(), name.c_str()) != 0) {
    // Gone meanwhile (another run in this folder backed up the same log.scanmd): nothing to do.
    if (errno == ENOENT) return std::nullopt;
    // errno read at once: the string concatenation below allocates, and may change it (the
    // order of evaluation of the + operands is unspecified): "cannot back up ...: Success".
    const int err = errno;
    throw std::runtime_error(path + ": cannot back up to " + name + ": " + std::strerror(err));
  }
  prune_backups(path, keep, removed);
  return name;
}

std::string copy_to_backup(const std::string& path, int keep, std::vector<std::string>* removed) {
  std::error_code ec;
  const std::string name = next_backup_name(path);
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
  prune_backups(path, keep, removed);
  return name;
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
