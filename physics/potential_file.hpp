// physics/potential_file.hpp — reading a potential file whole (pair tables, EAM files): a regular
// file of at most 1 GiB, or an error that names the file and what it is.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace scanmd {

// A problem with a potential file; the words name the file (and the line, where there is one).
class PotentialFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The text of the file at `path`; `kind` names it in messages ("table file", "EAM potential
// file"). Throws PotentialFileError for a missing, unreadable, non-regular or too large file.
std::string read_potential_file(const std::string& path, std::string_view kind);

}  // namespace scanmd
