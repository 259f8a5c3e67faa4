// LAMMPS data files in (`system.data_file`) and out (`output.data_file`): read_lammps_data()
// parses what LAMMPS `write_data` writes for `atom_style atomic` — header counts and orthogonal
// box, Masses, `Atoms # atomic` (id type x y z [ix iy iz]), Velocities — and for the molecular
// styles `bond`, `angle` and `molecular` (`Atoms # bond`: id molecule type x y z [ix iy iz]) its
// Bonds and Angles too; it skips the other sections (Pair Coeffs, Bond Coeffs, ...: the deck
// gives the coefficients). Dihedrals and impropers are refused. Every problem is a DataFileError naming the file and line
// (`melt.data:17: ...`). write_lammps_data() writes the same layout back, every double with 17
// significant digits so that reading the file gives the same bits. No MPI here: the caller
// decides who reads (every rank, in `scanmd run`) and who writes (rank 0, after a gather).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace scanmd::io {

struct LammpsAtom {
  std::uint64_t id;
  int type;
  double x, y, z;
  int ix, iy, iz;             // image flags, 0 when the file has none
  double vx, vy, vz;          // 0 when the file has no Velocities section
  std::int64_t molecule = 0;  // atom_style bond, angle, molecular (0 for atomic)
};

// One line of the Bonds section (its own number dropped): type, then the two atom ids.
struct LammpsBond {
  int type;
  std::uint64_t a, b;
};

// One line of the Angles section: type, then the three atom ids (b the vertex).
struct LammpsAngle {
  int type;
  std::uint64_t a, b, c;
};

struct LammpsData {
  std::array<double, 3> lo, hi;  // xlo ylo zlo, xhi yhi zhi
  int atom_types;
  std::vector<double> masses;     // index type-1; empty when the file has no Masses section
  std::vector<LammpsAtom> atoms;  // in file order; ids are 1..N, each once
  bool has_velocities;
  // The Atoms section's style: "atomic" (id type x y z), or "bond", "angle", "molecular"
  // (id molecule type x y z); the writer writes the same.
  std::string atom_style = "atomic";
  int bond_types = 0, angle_types = 0;  // the header's counts (0 when it has none)
  std::vector<LammpsBond> bonds;        // in file order
  std::vector<LammpsAngle> angles;
};

// Whether the style's Atoms lines carry a molecule id (bond, angle, molecular).
inline bool is_molecular_style(std::string_view style) {
  return style == "bond" || style == "angle" || style == "molecular";
}

class DataFileError : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

// Reads a LAMMPS data file (atom_style atomic, orthogonal box, ids 1..N). Throws DataFileError
// ("<path>:<line>: <what>", or "<path>: <what>" when the file cannot be opened).
// The file must be a regular file (a device or FIFO is refused by what it is); a header that
// declares more atoms than the file's size can hold, more than kMaxAtomTypes atom types, or a
// line longer than 1 MiB is an error before any memory is set aside for it.
LammpsData read_lammps_data(const std::string& path);
// The same from a text in memory; `name` stands for the file in messages (fuzzing, tests).
LammpsData parse_lammps_data(std::string_view text, const std::string& name);

// Writes `data` as LAMMPS write_data does for atom_style atomic: `title` as line 1 (line breaks
// become spaces), the counts and box, Masses (when data.masses is not empty), `Atoms # atomic`
// with id type x y z ix iy iz, and Velocities when data.has_velocities; atoms in the order given
// (scanmd passes them by id), doubles as {:.17g}, no Pair Coeffs. The file is written to
// "<path>.tmp", synced and renamed to `path`, so `path` is never left half written; on failure
// the temporary file is removed and std::runtime_error("<path>: cannot write LAMMPS data file:
// <reason>") is thrown.
void write_lammps_data(const std::string& path, const LammpsData& data, std::string_view title);

}  // namespace scanmd::io
