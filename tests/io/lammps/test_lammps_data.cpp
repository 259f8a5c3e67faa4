// Unit tests of the LAMMPS data file reader (io/lammps_data.hpp): a hand-written file with every
// feature (comments, skipped sections, image flags present and absent, velocities out of order),
// then every error class with its file:line, the writer (read back bit for bit, temporary file
// and rename, errors), and the deck key system.data_file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "io/deck.hpp"
#include "io/lammps_data.hpp"

namespace {

using scanmd::io::DataFileError;
using scanmd::io::LammpsAtom;
using scanmd::io::LammpsData;
using scanmd::io::read_lammps_data;
using scanmd::io::write_lammps_data;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kDataDir = SCANMD_LAMMPS_DATA_DIR;

std::filesystem::path temp_dir() {
  return std::filesystem::temp_directory_path() /
         ("scanmd_test_lammps_data_" + std::to_string(::getpid()));
}

// Removes the temporary files when the test program ends.
class TempDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir(), ec);
  }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new TempDirCleanup);

// Writes `text` to a fresh file in a per-process temporary directory and returns its path.
std::string write_file(const std::string& name, const std::string& text) {
  const auto dir = temp_dir();
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The message of the DataFileError that reading `path` throws ("" if none).
std::string error_of(const std::string& path) {
  try {
    read_lammps_data(path);
  } catch (const DataFileError& e) {
    return e.what();
  }
  return "";
}

// A valid 4-atom file up to (and including) the Atoms section header.
const std::string kHeader =
    "title line\n"
    "\n"
    "4 atoms\n"
    "1 atom types\n"
    "\n"
    "0 10 xlo xhi\n"
    "0 10 ylo yhi\n"
    "0 10 zlo zhi\n"
    "\n"
    "Masses\n"
    "\n"
    "1 1\n"
    "\n";  // lines 1-13
const std::string kAtoms =
    "Atoms # atomic\n"  // line 14
    "\n"
    "1 1 1 1 1 0 0 0\n"  // line 16
    "2 1 2 2 2 0 0 0\n"
    "3 1 3 3 3 0 0 0\n"
    "4 1 4 4 4 0 0 0\n";  // line 19

TEST(LammpsData, ReadsHandWrittenFile) {
  const LammpsData d = read_lammps_data(kDataDir + "/small.data");
  EXPECT_EQ(d.lo, (std::array<double, 3>{-1.5, 0.0, 0.0}));
  EXPECT_EQ(d.hi, (std::array<double, 3>{2.5, 4.0, 5.0}));
  EXPECT_EQ(d.atom_types, 1);
  ASSERT_EQ(d.masses.size(), 1u);
  EXPECT_EQ(d.masses[0], 2.5);
  EXPECT_TRUE(d.has_velocities);
  ASSERT_EQ(d.atoms.size(), 4u);
  // File order is kept; velocities found by id.
  EXPECT_EQ(d.atoms[0].id, 3u);
  EXPECT_EQ(d.atoms[0].type, 1);
  EXPECT_EQ(d.atoms[0].x, 0.25);
  EXPECT_EQ(d.atoms[0].y, 1.0);
  EXPECT_EQ(d.atoms[0].z, 4.5);
  EXPECT_EQ(d.atoms[0].ix, 1);
  EXPECT_EQ(d.atoms[0].iy, 0);
  EXPECT_EQ(d.atoms[0].iz, -2);
  EXPECT_EQ(d.atoms[0].vx, 1e-2);
  EXPECT_EQ(d.atoms[0].vy, 2e-2);
  EXPECT_EQ(d.atoms[0].vz, -3.0);
  EXPECT_EQ(d.atoms[1].id, 1u);
  // Full-precision numbers read back bit for bit (as LAMMPS write_data prints them).
  EXPECT_EQ(d.atoms[1].vx, -0.12758831706256135);
  EXPECT_EQ(d.atoms[1].vy, -0.6727310103541239);
  EXPECT_EQ(d.atoms[1].vz, -2.0331621333440726);
  EXPECT_EQ(d.atoms[2].id, 2u);
  EXPECT_EQ(d.atoms[2].x, 2.4999999999999996);
  EXPECT_EQ(d.atoms[2].z, 1e-3);
  EXPECT_EQ(d.atoms[3].id, 4u);
  EXPECT_EQ(d.atoms[3].iy, -1);
  EXPECT_EQ(d.atoms[3].vx, 0.5);
  EXPECT_EQ(d.atoms[3].vz, 1.25);
}

TEST(LammpsData, NoVelocitiesNoImagesNoStyleHintCrlf) {
  const std::string p = write_file(
      "plain.data",
      "title\r\n\r\n2 atoms\r\n1 atom types\r\n0 10 xlo xhi\r\n0 10 ylo yhi\r\n0 10 zlo zhi\r\n"
      "\r\nAtoms\r\n\r\n2 1 5 5 5\r\n1 1 1 2 3\r\n");
  const LammpsData d = read_lammps_data(p);
  EXPECT_FALSE(d.has_velocities);
  EXPECT_TRUE(d.masses.empty());
  ASSERT_EQ(d.atoms.size(), 2u);
  EXPECT_EQ(d.atoms[1].id, 1u);
  EXPECT_EQ(d.atoms[1].z, 3.0);
  EXPECT_EQ(d.atoms[1].ix, 0);
  EXPECT_EQ(d.atoms[1].vx, 0.0);
  EXPECT_EQ(d.atoms[0].vz, 0.0);
}

TEST(LammpsData, SeveralTypesAreReadable) {
  const LammpsData d = read_lammps_data(kDataDir + "/two_types.data");
  EXPECT_EQ(d.atom_types, 2);
  EXPECT_EQ(d.masses, (std::vector<double>{1.0, 2.0}));
  ASSERT_EQ(d.atoms.size(), 2u);
  EXPECT_EQ(d.atoms[1].type, 2);
}

TEST(LammpsData, SkipsOtherSectionsAndZeroCounts) {
  const std::string p =
      write_file("skip.data",
                 "title\n4 atoms\n0 bonds\n1 atom types\n0 bond types\n0 10 xlo xhi\n"
                 "0 10 ylo yhi\n0 10 zlo zhi\n\nPair Coeffs # lj/cut\n\n1 1 1\n\n"
                 "PairIJ Coeffs # lj/cut\n\n1 1 1 1 2.5\n\n" +
                     kAtoms);
  EXPECT_EQ(read_lammps_data(p).atoms.size(), 4u);
}

// ---------------------------------------------------------------------------------------------
// Errors: file and line

TEST(LammpsDataErrors, MissingFile) {
  const std::string p = kDataDir + "/no_such_file.data";
  EXPECT_EQ(error_of(p), p + ": cannot open LAMMPS data file: No such file or directory");
}

TEST(LammpsDataErrors, EmptyFile) {
  const std::string p = write_file("empty.data", "");
  EXPECT_THAT(error_of(p), StartsWith(p + ":1: the file is empty"));
}

TEST(LammpsDataErrors, Truncated) {
  const std::string p = kDataDir + "/truncated.data";
  EXPECT_EQ(error_of(p),
            p + ":20: the Atoms section ends after 5 of 8 atom lines (truncated file?)");
}

TEST(LammpsDataErrors, TruncatedByNextSection) {
  const std::string p = write_file("cut.data", kHeader +
                                                   "Atoms # atomic\n\n1 1 1 1 1 0 0 0\n\n"
                                                   "Velocities\n\n1 0 0 0\n");
  EXPECT_THAT(error_of(p), StartsWith(p + ":18: the Atoms section ends after 1 of 4 atom lines"));
}

TEST(LammpsDataErrors, WrongAtomStyle) {
  const std::string p =
      write_file("full.data", kHeader + "Atoms # full\n\n1 1 1 0.0 1 1 1 0 0 0\n");
  EXPECT_EQ(error_of(p), p + ":14: the Atoms section is for atom_style full; scanmd reads "
                             "atom_style atomic (id type x y z [ix iy iz]), bond, angle and "
                             "molecular (id molecule type x y z [ix iy iz])");
}

TEST(LammpsDataErrors, WrongColumnCount) {
  const std::string p = write_file("cols.data", kHeader + "Atoms\n\n1 1 1 0.0 1 1 1 0 0 0\n");
  EXPECT_THAT(error_of(p), StartsWith(p + ":16: Atoms: expected 5 or 8 fields"));
}

TEST(LammpsDataErrors, DuplicateId) {
  const std::string p = write_file(
      "dup.data", kHeader + "Atoms # atomic\n\n1 1 1 1 1\n2 1 2 2 2\n2 1 3 3 3\n4 1 4 4 4\n");
  EXPECT_EQ(error_of(p), p + ":18: duplicate atom id 2 (also on line 17)");
}

TEST(LammpsDataErrors, IdsNotOneToN) {
  const std::string p =
      write_file("ids.data", kHeader + "Atoms # atomic\n\n1 1 1 1 1\n2 1 2 2 2\n7 1 3 3 3\n");
  const std::string e = error_of(p);
  EXPECT_THAT(e, StartsWith(p + ":18: atom id 7 is outside 1..4"));
  EXPECT_THAT(e, HasSubstr("reset_atom_ids"));
  const std::string z = write_file("id0.data", kHeader + "Atoms # atomic\n\n0 1 1 1 1\n");
  EXPECT_THAT(error_of(z), StartsWith(z + ":16: atom id 0 is outside 1..4"));
}

TEST(LammpsDataErrors, IdsMissingFromVelocities) {
  const std::string p = write_file(
      "vel.data", kHeader + kAtoms + "\nVelocities\n\n1 0 0 0\n3 0 0 0\n\nPair Coeffs\n\n1 1 1\n");
  EXPECT_EQ(error_of(p), p + ":26: the Velocities section ends after 2 of 4 lines: no velocity "
                             "for atom ids 2, 4");
  const std::string q = write_file("vel_eof.data", kHeader + kAtoms +
                                                       "\nVelocities\n\n1 0 0 0\n"
                                                       "2 0 0 0\n4 0 0 0\n");
  EXPECT_EQ(error_of(q), q + ":25: the Velocities section ends after 3 of 4 lines: no velocity "
                             "for atom id 3");
}

TEST(LammpsDataErrors, VelocityDuplicateOrUnknownId) {
  const std::string p = write_file(
      "vdup.data", kHeader + kAtoms + "\nVelocities\n\n1 0 0 0\n1 0 0 0\n3 0 0 0\n4 0 0 0\n");
  EXPECT_EQ(error_of(p), p + ":24: Velocities: duplicate atom id 1 (also on line 23)");
  const std::string q = write_file(
      "vunk.data", kHeader + kAtoms + "\nVelocities\n\n1 0 0 0\n9 0 0 0\n3 0 0 0\n4 0 0 0\n");
  EXPECT_EQ(error_of(q), q + ":24: Velocities: atom id 9 is not in the Atoms section");
}

TEST(LammpsDataErrors, NonNumericFields) {
  const std::string p =
      write_file("nan.data", kHeader + "Atoms # atomic\n\n1 1 1 1 1\n2 1 2 abc 2 0 0 0\n");
  EXPECT_EQ(error_of(p), p + ":17: Atoms: y is not a number: 'abc'");
  const std::string q = write_file("nid.data", kHeader + "Atoms # atomic\n\n1.5 1 1 1 1\n");
  EXPECT_EQ(error_of(q), q + ":16: Atoms: atom id is not an integer: '1.5'");
  const std::string r = write_file("nimg.data", kHeader + "Atoms # atomic\n\n1 1 1 1 1 0 x 0\n");
  EXPECT_EQ(error_of(r), r + ":16: Atoms: image flag iy is not an integer: 'x'");
  const std::string s = write_file("nvel.data", kHeader + kAtoms + "\nVelocities\n\n1 0 0 1.0.0\n");
  EXPECT_EQ(error_of(s), s + ":23: Velocities: vz is not a number: '1.0.0'");
  const std::string t = write_file("ncount.data", "title\nfour atoms\n");
  EXPECT_EQ(error_of(t), t + ":2: the number of atoms is not an integer: 'four'");
  const std::string u = write_file("nbox.data", "title\n4 atoms\n1 atom types\n0 1e xlo xhi\n");
  EXPECT_EQ(error_of(u), u + ":4: xhi is not a number: '1e'");
  const std::string v = write_file("nmass.data",
                                   "title\n4 atoms\n1 atom types\n0 9 xlo xhi\n"
                                   "0 9 ylo yhi\n0 9 zlo zhi\nMasses\n\n1 heavy\n");
  EXPECT_EQ(error_of(v), v + ":9: Masses: mass is not a number: 'heavy'");
  const std::string w = write_file("inf.data", kHeader + "Atoms # atomic\n\n1 1 inf 1 1\n");
  EXPECT_EQ(error_of(w), w + ":16: Atoms: x must be finite: 'inf'");
}

// Issue 31, item 7: causes named as they are: a negative count or id ("not an integer"), line
// breaks of a lone CR ("no 'xlo xhi' line").
TEST(LammpsDataErrors, NegativeCountsAndLoneCarriageReturns) {
  const std::string p = write_file("negcount.data", "title\n-5 atoms\n");
  EXPECT_EQ(error_of(p), p + ":2: the number of atoms must not be negative: '-5'");
  const std::string q = write_file("negid.data", kHeader + "Atoms # atomic\n\n-1 1 1 1 1\n");
  EXPECT_EQ(error_of(q), q + ":16: Atoms: atom id must not be negative: '-1'");
  std::string mac = kHeader + kAtoms;
  for (char& c : mac)
    if (c == '\n') c = '\r';
  const std::string r = write_file("cr.data", mac);
  EXPECT_EQ(error_of(r), r + ":1: the lines end in a lone CR (carriage return, classic Mac OS), "
                             "not LF or CR LF: convert the file (tr '\\r' '\\n' < in > out)");
  std::string windows;  // CR LF stays fine
  for (const char c : kHeader + kAtoms) {
    if (c == '\n') windows += '\r';
    windows += c;
  }
  EXPECT_EQ(read_lammps_data(write_file("crlf.data", windows)).atoms.size(), 4u);
}

// Issue 17, item 3: a coordinate is wrapped into the box by the full count of box lengths, added
// to its image flag; where that flag would leave the 32-bit range the file is refused at the line
// (box 0..10 here: x = 1e20 is 1e19 box lengths out, z = 10.5 with iz = 2^31 − 1 one past it),
// and far coordinates whose count fits are read as they are.
TEST(LammpsDataErrors, CoordinatesBeyondTheImageRange) {
  const std::string p =
      write_file("far.data", kHeader + "Atoms # atomic\n\n1 1 1 1 1 0 0 0\n2 1 1e20 2 2 0 0 0\n");
  EXPECT_THAT(error_of(p), StartsWith(p + ":17: Atoms: atom 2: x = 1e20 (image flag 0) lies "
                                          "1e+19 box lengths from the box [0, 10): its image "
                                          "flag would not fit 32 bits"));
  const std::string q = write_file(
      "wraps.data", kHeader + "Atoms # atomic\n\n1 1 1 1 1 0 0 0\n2 1 2 2 10.5 0 0 2147483647\n");
  EXPECT_THAT(error_of(q), StartsWith(q + ":17: Atoms: atom 2: z = 10.5 (image flag 2147483647)"));
  const std::string r =
      write_file("below.data", kHeader + "Atoms # atomic\n\n1 1 1 -1e300 1 0 0 0\n");
  EXPECT_THAT(error_of(r), StartsWith(r + ":16: Atoms: atom 1: y = -1e300 (image flag 0)"));
  // 2e9 box lengths fit (image flag 0), as does x = 3e10 with a flag that brings the total back
  // into range; 3e9 box lengths do not.
  const std::string s = write_file("fits.data", kHeader +
                                                    "Atoms # atomic\n\n1 1 2e10 1 1 0 0 0\n"
                                                    "2 1 3e10 2 2 -1000000000 0 0\n"
                                                    "3 1 -2.1e10 3 3 0 0 0\n4 1 4 4 4 0 0 0\n");
  EXPECT_EQ(error_of(s), "");
  const std::string t = write_file(
      "toofar.data", kHeader + "Atoms # atomic\n\n1 1 3e10 1 1 0 0 0\n2 1 2 2 2 0 0 0\n");
  EXPECT_THAT(error_of(t), HasSubstr(":16: Atoms: atom 1: x = 3e10 (image flag 0) lies 3e+09 "));
}

TEST(LammpsDataErrors, Triclinic) {
  const std::string p = write_file("tri.data",
                                   "title\n4 atoms\n1 atom types\n0 9 xlo xhi\n"
                                   "0 9 ylo yhi\n0 9 zlo zhi\n0.5 0 0 xy xz yz\n");
  EXPECT_THAT(error_of(p), StartsWith(p + ":7: triclinic boxes are not supported"));
}

TEST(LammpsDataErrors, HeaderProblems) {
  const std::string a = write_file("nobox.data",
                                   "title\n4 atoms\n1 atom types\n0 9 xlo xhi\n"
                                   "0 9 zlo zhi\n\nAtoms\n");
  EXPECT_EQ(error_of(a), a + ":7: the header has no 'ylo yhi' line");
  const std::string b = write_file("unk.data", "title\n4 atoms\n4 widgets\n");
  EXPECT_EQ(error_of(b), b + ":3: unrecognised header line '4 widgets'");
  const std::string c = write_file("dihedrals.data", "title\n4 atoms\n3 dihedrals\n");
  EXPECT_THAT(error_of(c), StartsWith(c + ":3: '3 dihedrals': scanmd reads atom_style atomic, "
                                          "bond, angle and molecular without dihedrals"));
  const std::string d = write_file("flat.data", "title\n4 atoms\n1 atom types\n5 5 xlo xhi\n");
  EXPECT_EQ(error_of(d), d + ":4: xhi must be > xlo (got 5 5)");
  const std::string e = write_file("noatoms.data",
                                   "title\n1 atom types\n0 9 xlo xhi\n"
                                   "0 9 ylo yhi\n0 9 zlo zhi\n");
  EXPECT_THAT(error_of(e), StartsWith(e + ":5: the header declares no atoms"));
  const std::string f = write_file("notypes.data",
                                   "title\n4 atoms\n0 9 xlo xhi\n"
                                   "0 9 ylo yhi\n0 9 zlo zhi\n\nAtoms\n");
  EXPECT_EQ(error_of(f), f + ":7: the header has no 'atom types' line");
}

TEST(LammpsDataErrors, SectionProblems) {
  const std::string a = write_file("noatoms_sec.data", kHeader);
  EXPECT_EQ(error_of(a), a + ":13: no Atoms section (the header declares 4 atoms)");
  const std::string b = write_file("extra.data", kHeader + kAtoms + "5 1 5 5 5 0 0 0\n");
  EXPECT_THAT(error_of(b), StartsWith(b + ":20: unexpected line '5 1 5 5 5 0 0 0'"));
  const std::string c = write_file("twice.data", kHeader + kAtoms + "\n" + kAtoms);
  EXPECT_EQ(error_of(c), c + ":21: a second Atoms section");
  const std::string d = write_file("bondsec.data", kHeader + kAtoms + "\nBonds\n\n1 1 1 2\n");
  EXPECT_EQ(error_of(d), d + ":21: a Bonds section, but the header declares no bonds ('N bonds')");
  const std::string e = write_file("velfirst.data", kHeader + "Velocities\n\n1 0 0 0\n");
  EXPECT_EQ(error_of(e), e + ":14: the Velocities section comes before the Atoms section");
  const std::string f = write_file("type.data", kHeader + "Atoms # atomic\n\n1 2 1 1 1\n");
  EXPECT_EQ(error_of(f), f + ":16: Atoms: atom type 2 is outside 1..1 (the header's atom types)");
  const std::string g = write_file("mass0.data",
                                   "title\n4 atoms\n1 atom types\n0 9 xlo xhi\n"
                                   "0 9 ylo yhi\n0 9 zlo zhi\nMasses\n\n1 0\n");
  EXPECT_EQ(error_of(g), g + ":9: Masses: mass of type 1 must be > 0 (got 0)");
}

// ---------------------------------------------------------------------------------------------
// The writer (output.data_file)

std::uint64_t bits(double x) {
  return std::bit_cast<std::uint64_t>(x);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Three types, awkward doubles (non-terminating binary fractions, -0, the smallest subnormal, the
// largest finite, values next to the box edge), negative image flags.
LammpsData awkward_data() {
  LammpsData d{};
  d.lo = {0.0, 0.0, 0.0};
  d.hi = {8.3979809569125372, 1.0 / 3.0, 12.5};
  d.atom_types = 3;
  d.masses = {1.0, 2.0, 0.1};
  d.has_velocities = true;
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double big = std::numeric_limits<double>::max();
  const double below_hi = std::nextafter(d.hi[0], 0.0);
  d.atoms = {
      LammpsAtom{1, 1, 0.1, 0.2, 0.30000000000000004, 0, 0, 0, -0.0, tiny, -big},
      LammpsAtom{2, 3, below_hi, 1.0 / 3.0 - 1e-17, 0.0, -1, 2, -2147483647, 1e-300, -1e300, 0.5},
      LammpsAtom{3, 2, 2.0 / 3.0, 1e-320, 12.499999999999998, 7, -8, 9, -0.12758831706256135,
                 std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0)},
      LammpsAtom{4, 1, 5.0, 0.25, 6.0, 0, 0, 0, 0.0, 0.0, 0.0},
  };
  return d;
}

// atom_style bond / angle: molecule ids, Bonds and Angles (the order of each line kept), and the
// writer giving them back (LAMMPS write_data's layout: "Atoms # angle", the header's counts).
const std::string kMolecular =
    "chain\n\n4 atoms\n3 bonds\n2 angles\n1 atom types\n2 bond types\n1 angle types\n\n"
    "0 9 xlo xhi\n0 9 ylo yhi\n0 9 zlo zhi\n\nAtoms # angle\n\n"
    "3 7 1 3 1 1 0 0 0\n1 7 1 1 1 1 0 0 0\n2 7 1 2 1 1 0 0 0\n4 8 1 4 1 1 0 0 -1\n\n"
    "Bond Coeffs # fene\n\n1 30 1.5 1 1\n2 30 1.5 1 1\n\n"
    "Bonds\n\n1 1 1 2\n2 2 3 2\n3 1 3 4\n\nAngles\n\n1 1 1 2 3\n2 1 2 3 4\n";

TEST(LammpsData, ReadsBondAndAngleStyles) {
  const LammpsData d = read_lammps_data(write_file("chain.data", kMolecular));
  EXPECT_EQ(d.atom_style, "angle");
  EXPECT_EQ(d.bond_types, 2);
  EXPECT_EQ(d.angle_types, 1);
  ASSERT_EQ(d.atoms.size(), 4u);
  EXPECT_EQ(d.atoms[0].id, 3u);
  EXPECT_EQ(d.atoms[0].molecule, 7);
  EXPECT_EQ(d.atoms[3].molecule, 8);
  EXPECT_EQ(d.atoms[3].iz, -1);
  EXPECT_EQ(d.atoms[0].x, 3.0);
  ASSERT_EQ(d.bonds.size(), 3u);
  EXPECT_EQ(d.bonds[1].type, 2);
  EXPECT_EQ(d.bonds[1].a, 3u);
  EXPECT_EQ(d.bonds[1].b, 2u);
  ASSERT_EQ(d.angles.size(), 2u);
  EXPECT_EQ(d.angles[1].a, 2u);
  EXPECT_EQ(d.angles[1].b, 3u);
  EXPECT_EQ(d.angles[1].c, 4u);
  // LAMMPS's bench/data.chain has no style comment: a file with bonds reads as molecular.
  std::string plain = kMolecular;
  plain.replace(plain.find("Atoms # angle"), 13, "Atoms");
  EXPECT_EQ(read_lammps_data(write_file("plain.data", plain)).atom_style, "molecular");
}

TEST(LammpsDataWriter, BondAndAngleStylesReadBack) {
  const LammpsData d = read_lammps_data(write_file("chain2.data", kMolecular));
  const std::string p = write_file("chain_out.data", "");
  write_lammps_data(p, d, "scanmd test");
  const std::string text = slurp(p);
  EXPECT_THAT(text, HasSubstr("4 atoms\n1 atom types\n3 bonds\n2 bond types\n2 angles\n"
                              "1 angle types\n"));
  EXPECT_THAT(text, HasSubstr("\nAtoms # angle\n\n3 7 1 3 1 1 0 0 0\n"));
  EXPECT_THAT(text, HasSubstr("\nBonds\n\n1 1 1 2\n2 2 3 2\n3 1 3 4\n"));
  EXPECT_THAT(text, HasSubstr("\nAngles\n\n1 1 1 2 3\n2 1 2 3 4\n"));
  const LammpsData r = read_lammps_data(p);
  EXPECT_EQ(r.atom_style, "angle");
  ASSERT_EQ(r.atoms.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(r.atoms[i].molecule, d.atoms[i].molecule) << i;
  ASSERT_EQ(r.bonds.size(), 3u);
  ASSERT_EQ(r.angles.size(), 2u);
  EXPECT_EQ(r.bonds[2].a, 3u);
  EXPECT_EQ(r.angles[0].c, 3u);
}

TEST(LammpsDataErrors, BondsAndAngles) {
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = kMolecular;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const std::string a = write_file("b1.data", with("3 1 3 4\n", "3 1 3 9\n"));
  EXPECT_EQ(error_of(a), a + ":30: Bonds: bond 3 names atom 9, which is not in the Atoms section");
  const std::string b = write_file("b2.data", with("2 2 3 2\n", "2 3 3 2\n"));
  EXPECT_EQ(error_of(b), b + ":29: Bonds: bond type 3 is outside 1..2 (the header's bond types)");
  const std::string c = write_file("b3.data", with("2 1 2 3 4\n", "2 1 2 2 4\n"));
  EXPECT_EQ(error_of(c), c + ":35: Angles: angle 2 names atom 2 twice");
  const std::string e = write_file("b4.data", with("\nAngles\n\n1 1 1 2 3\n2 1 2 3 4\n", "\n"));
  EXPECT_THAT(error_of(e), HasSubstr("no Angles section (the header declares 2 angles)"));
  const std::string f = write_file("b5.data", with("Atoms # angle", "Atoms # atomic"));
  EXPECT_THAT(error_of(f), HasSubstr("Atoms: expected 5 or 8 fields"));
  const std::string g = write_file("b6.data", with("1 1 1 2\n2 2", "1 1 1 1\n2 2"));
  EXPECT_EQ(error_of(g), g + ":28: Bonds: bond 1 joins atom 1 to itself");
}

TEST(LammpsDataWriter, ReadsBackBitForBit) {
  const LammpsData d = awkward_data();
  const std::string p = write_file("out.data", "");
  write_lammps_data(p, d, "scanmd test, timestep = 7");
  const LammpsData r = read_lammps_data(p);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(bits(r.lo[k]), bits(d.lo[k])) << k;
    EXPECT_EQ(bits(r.hi[k]), bits(d.hi[k])) << k;
  }
  EXPECT_EQ(r.atom_types, 3);
  ASSERT_EQ(r.masses.size(), 3u);
  for (std::size_t t = 0; t < 3; ++t) EXPECT_EQ(bits(r.masses[t]), bits(d.masses[t])) << t;
  EXPECT_TRUE(r.has_velocities);
  ASSERT_EQ(r.atoms.size(), d.atoms.size());
  for (std::size_t i = 0; i < d.atoms.size(); ++i) {
    const LammpsAtom &a = d.atoms[i], &b = r.atoms[i];
    EXPECT_EQ(b.id, a.id) << i;
    EXPECT_EQ(b.type, a.type) << i;
    EXPECT_EQ(b.ix, a.ix) << i;
    EXPECT_EQ(b.iy, a.iy) << i;
    EXPECT_EQ(b.iz, a.iz) << i;
    const double wa[] = {a.x, a.y, a.z, a.vx, a.vy, a.vz};
    const double wb[] = {b.x, b.y, b.z, b.vx, b.vy, b.vz};
    for (int k = 0; k < 6; ++k) EXPECT_EQ(bits(wb[k]), bits(wa[k])) << "atom " << a.id << " " << k;
  }
  EXPECT_FALSE(std::filesystem::exists(p + ".tmp"));
}

TEST(LammpsDataWriter, LayoutAsLammpsWriteData) {
  LammpsData d{};
  d.lo = {0, 0, 0};
  d.hi = {2, 3, 4.5};
  d.atom_types = 2;
  d.masses = {1, 2};
  d.has_velocities = true;
  d.atoms = {LammpsAtom{1, 2, 0.5, 1, 1.5, 0, -1, 3, 0.25, -0.5, 0},
             LammpsAtom{2, 1, 1.75, 0, 4, 1, 0, 0, 1, 2, 3}};
  const std::string p = write_file("layout.data", "");
  write_lammps_data(p, d, "two\nlines");
  EXPECT_EQ(slurp(p),
            "two lines\n"
            "\n"
            "2 atoms\n"
            "2 atom types\n"
            "\n"
            "0 2 xlo xhi\n"
            "0 3 ylo yhi\n"
            "0 4.5 zlo zhi\n"
            "\n"
            "Masses\n"
            "\n"
            "1 1\n"
            "2 2\n"
            "\n"
            "Atoms # atomic\n"
            "\n"
            "1 2 0.5 1 1.5 0 -1 3\n"
            "2 1 1.75 0 4 1 0 0\n"
            "\n"
            "Velocities\n"
            "\n"
            "1 0.25 -0.5 0\n"
            "2 1 2 3\n");
  // Without masses and velocities: no such sections, and the reader still takes the file.
  d.masses.clear();
  d.has_velocities = false;
  write_lammps_data(p, d, "t");
  EXPECT_THAT(slurp(p), Not(HasSubstr("Masses")));
  EXPECT_THAT(slurp(p), Not(HasSubstr("Velocities")));
  const LammpsData r = read_lammps_data(p);
  EXPECT_FALSE(r.has_velocities);
  EXPECT_EQ(r.atoms[1].vx, 0.0);
}

TEST(LammpsDataWriter, ReplacesAnExistingFileWhole) {
  const std::string p = write_file("replace.data", std::string(100000, 'x'));
  write_lammps_data(p, awkward_data(), "t");
  EXPECT_EQ(read_lammps_data(p).atoms.size(), 4u);
  EXPECT_FALSE(std::filesystem::exists(p + ".tmp"));
}

TEST(LammpsDataWriter, ErrorsNameThePathAndLeaveNothing) {
  const std::string p = (temp_dir() / "no_such_dir" / "x.data").string();
  try {
    write_lammps_data(p, awkward_data(), "t");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), StartsWith(p + ": cannot write LAMMPS data file: "));
    EXPECT_THAT(e.what(), HasSubstr("No such file or directory"));
  }
  EXPECT_FALSE(std::filesystem::exists(p));
  EXPECT_FALSE(std::filesystem::exists(p + ".tmp"));
  // A folder where the file should go: the rename fails, the temporary file is removed.
  const auto dir = temp_dir() / "a_folder.data";
  std::filesystem::create_directories(dir / "inside");
  try {
    write_lammps_data(dir.string(), awkward_data(), "t");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(),
                StartsWith(dir.string() + ": cannot write LAMMPS data file: cannot rename"));
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir / "inside"));
  EXPECT_FALSE(std::filesystem::exists(dir.string() + ".tmp"));
}

// ---------------------------------------------------------------------------------------------
// The deck key

TEST(DeckDataFile, DefaultEmptyAndInResolvedDeck) {
  const auto d = scanmd::io::parse_deck("", "d.toml");
  EXPECT_EQ(d.system.data_file, "");
  EXPECT_THAT(d.to_toml(), HasSubstr("data_file = \"\"\n"));
}

TEST(DeckDataFile, SetSkipsTheLatticeBoxCheckAndRoundTrips) {
  // 1x1x1 cells would be too small for a skin of 2; with a data file the box is the file's,
  // checked by the run after reading it.
  const auto d = scanmd::io::parse_deck(
      "[system]\ncells = [1, 1, 1]\ndata_file = \"melt.data\"\n[neighbor]\nskin = 2.0\n", "d.toml");
  EXPECT_EQ(d.system.data_file, "melt.data");
  EXPECT_THAT(d.to_toml(), HasSubstr("data_file = \"melt.data\"\n"));
  EXPECT_EQ(scanmd::io::parse_deck(d.to_toml(), "r.toml").system.data_file, "melt.data");
  EXPECT_THROW(
      scanmd::io::parse_deck("[system]\ncells = [1, 1, 1]\n[neighbor]\nskin = 2.0\n", "d.toml"),
      scanmd::io::DeckError);
  // A bare word from --set is a string.
  const auto s = scanmd::io::parse_deck("", "d.toml", {"system.data_file=in/x.data"});
  EXPECT_EQ(s.system.data_file, "in/x.data");
}

TEST(DeckDataFile, WrongType) {
  try {
    scanmd::io::parse_deck("[system]\ndata_file = 3\n", "d.toml");
    FAIL() << "no error";
  } catch (const scanmd::io::DeckError& e) {
    EXPECT_EQ(std::string(e.what()),
              "d.toml:2:13: system.data_file: expected a string, got integer 3");
  }
}

}  // namespace

namespace issue15 {

// Issue 15, items 2 and 6: counts the file cannot hold, more atom types than a run may have,
// files that are not data files at all, and the reader in memory (the fuzz target's entry) the
// same as on disk.
TEST(LammpsDataErrors, SizesTheFileCannotHoldAreRefusedBeforeAllocating) {
  const std::string text =
      "title\n1000000000000 atoms\n1 atom types\n0 9 xlo xhi\n0 9 ylo yhi\n0 9 zlo zhi\n\nAtoms\n"
      "\n1 1 1 1 1\n";
  const std::string many = write_file("many.data", text);
  EXPECT_EQ(error_of(many), many + ":8: the header declares 1000000000000 atoms, but the file's " +
                                std::to_string(text.size()) +
                                " bytes cannot hold that many atom lines (at least 10 bytes each)");
  const std::string types = write_file("types.data", "title\n4 atoms\n2000000000 atom types\n");
  EXPECT_EQ(error_of(types), types +
                                 ":3: the number of atom types must be 1..1024 (got "
                                 "2000000000)");
  EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: cannot read LAMMPS data file: not a regular file");
  EXPECT_EQ(error_of(temp_dir().string()),
            temp_dir().string() + ": cannot read LAMMPS data file: is a folder");
  const std::string wide = write_file("wide.data", "title\n" + std::string(3 << 20, 'x') + "\n");
  EXPECT_EQ(error_of(wide), wide + ":2: a line longer than 1 MiB (is this a LAMMPS data file?)");
}

TEST(LammpsData, ReadFromMemoryAsFromTheFile) {
  std::ifstream in(kDataDir + "/two_types.data", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const LammpsData a = read_lammps_data(kDataDir + "/two_types.data");
  const LammpsData b = scanmd::io::parse_lammps_data(text, "mem.data");
  ASSERT_EQ(a.atoms.size(), b.atoms.size());
  EXPECT_EQ(a.masses, b.masses);
  EXPECT_EQ(a.atom_types, b.atom_types);
  for (std::size_t i = 0; i < a.atoms.size(); ++i) {
    EXPECT_EQ(a.atoms[i].id, b.atoms[i].id);
    EXPECT_EQ(a.atoms[i].x, b.atoms[i].x);
    EXPECT_EQ(a.atoms[i].vz, b.atoms[i].vz);
  }
  // The last line may lack its newline; an empty text is an empty file.
  EXPECT_NO_THROW(scanmd::io::parse_lammps_data(text.substr(0, text.size() - 1), "mem.data"));
  try {
    scanmd::io::parse_lammps_data("", "mem.data");
    ADD_FAILURE() << "an empty text was accepted";
  } catch (const DataFileError& e) {
    EXPECT_STREQ(e.what(), "mem.data:1: the file is empty (expected a LAMMPS data file)");
  }
}

}  // namespace issue15
