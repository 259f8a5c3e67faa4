// LAMMPS data files in (`system.data_file`): read_lammps_data() parses what LAMMPS `write_data`
// writes for `atom_style atomic` — header counts and orthogonal box, Masses, `Atoms # atomic`
// (id type x y z [ix iy iz]), Velocities — and skips the other sections (Pair Coeffs, ...).
// Every problem is a DataFileError naming the file and line (`melt.data:17: ...`). No MPI here:
// the caller decides who reads (every rank, in `scanmd run`).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace scanmd::io {

struct LammpsAtom {
  std::uint64_t id;
  int type;
  double x, y, z;
  int ix, iy, iz;     // image flags, 0 when the file has none
  double vx, vy, vz;  // 0 when the file has no Velocities section
};

struct LammpsData {
  std::array<double, 3> lo, hi;  // xlo ylo zlo, xhi yhi zhi
  int atom_types;
  std::vector<double> masses;     // index type-1; empty when the file has no Masses section
  std::vector<LammpsAtom> atoms;  // in file order; ids are 1..N, each once
  bool has_velocities;
};

class DataFileError : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

// Reads a LAMMPS data file (atom_style atomic, orthogonal box, ids 1..N). Throws DataFileError
// ("<path>:<line>: <what>", or "<path>: <what>" when the file cannot be opened).
LammpsData read_lammps_data(const std::string& path);

}  // namespace scanmd::io
