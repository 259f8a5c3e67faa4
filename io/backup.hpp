// Output files are never lost: an existing file is renamed to a backup before a run replaces
// it, GROMACS style (`traj.h5` → `#traj.h5.1#`, then `#traj.h5.2#`, ...: one more than the
// highest number there, in the same folder), at most `keep` of them per file (output.backups,
// GROMACS's GMX_MAXBACKUP, 99 by default: the oldest, lowest numbers, are removed), and an
// output path is tested for writability before any step runs, so a typo in a folder name fails
// at once instead of at the first frame.
// No MPI here: the caller runs these on one rank and shares the outcome.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scanmd::io {

// The backup name for attempt `n`: "<dir>/#<name>.<n>#".
std::string backup_name(const std::string& path, int n);

inline constexpr int kDefaultBackups = 99;

// The numbers N of the backups "#<name>.N#" next to `path`, in increasing order.
std::vector<long long> backup_numbers(const std::string& path);

// If `path` exists, renames it to the next backup name and returns that name; nullopt when
// there was nothing to back up. Then removes the oldest backups beyond `keep` (≥ 1), their
// names appended to `removed` when given. Throws std::runtime_error naming the file on failure.
std::optional<std::string> back_up_existing(const std::string& path, int keep = kDefaultBackups,
                                            std::vector<std::string>* removed = nullptr);

// Copies `path` (which stays as it is) to the next backup name and returns that name: the copy
// goes to "<backup>.tmp" first and is renamed, so no half copy takes a backup's name. Then the
// oldest beyond `keep` go, as above. Throws std::runtime_error naming the files on failure.
std::string copy_to_backup(const std::string& path, int keep = kDefaultBackups,
                           std::vector<std::string>* removed = nullptr);

// Throws std::runtime_error("<path>: cannot write: <reason>") unless a file can be created at
// `path` (tested by creating and removing "<path>.tmp"; an existing `path` is not touched).
void check_writable(const std::string& path);

}  // namespace scanmd::io

namespace scanmd::io {

// Whether two paths name the same file: by identity (st_dev and st_ino, so symbolic and hard
// links count) when both exist, else by their canonical absolute paths (a file not yet
// created, as an output before the run).
bool same_file(const std::string& a, const std::string& b);

// Whether the folders of two paths lie on one file system (st_dev; false when unknown).
bool same_file_system(const std::string& a, const std::string& b);

}  // namespace scanmd::io
