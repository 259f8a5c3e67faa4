// LAMMPS data file reader and writer (atom_style atomic, orthogonal box). The layout follows
// LAMMPS read_data: line 1 is a title; header lines ("4000 atoms", "1 atom types", "0 16.8 xlo
// xhi", ...) up to the first section keyword; then sections, each a keyword line (with an
// optional "# style" comment) followed by its data lines. Masses, Atoms and Velocities have as
// many data lines as the header declares (blank and comment lines do not count); every other
// section is skipped up to the next section keyword. Errors name the file and line,
// compiler-style. The writer emits that layout as LAMMPS write_data does (blank line after each
// keyword line), formatting into a buffer that goes to the file in 1 MiB pieces.
#include "io/lammps_data.hpp"

#include "base/box.hpp"
#include "engine/config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

namespace scanmd::io {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Section keywords of LAMMPS read_data. Sections scanmd reads, sections it skips, and sections
// that only exist for molecular / extended atom styles (an error: atomic only).
enum class Kind { Masses, Atoms, Velocities, Bonds, Angles, Skip, Unsupported };

struct SectionName {
  std::string_view name;
  Kind kind;
};

constexpr SectionName kSections[] = {
    {"Masses", Kind::Masses},
    {"Atoms", Kind::Atoms},
    {"Velocities", Kind::Velocities},
    {"Pair Coeffs", Kind::Skip},
    {"PairIJ Coeffs", Kind::Skip},
    {"Bond Coeffs", Kind::Skip},
    {"Angle Coeffs", Kind::Skip},
    {"Dihedral Coeffs", Kind::Skip},
    {"Improper Coeffs", Kind::Skip},
    {"BondBond Coeffs", Kind::Skip},
    {"BondAngle Coeffs", Kind::Skip},
    {"MiddleBondTorsion Coeffs", Kind::Skip},
    {"EndBondTorsion Coeffs", Kind::Skip},
    {"AngleTorsion Coeffs", Kind::Skip},
    {"AngleAngleTorsion Coeffs", Kind::Skip},
    {"BondBond13 Coeffs", Kind::Skip},
    {"AngleAngle Coeffs", Kind::Skip},
    {"Bonds", Kind::Bonds},
    {"Angles", Kind::Angles},
    {"Dihedrals", Kind::Unsupported},
    {"Impropers", Kind::Unsupported},
    {"Ellipsoids", Kind::Unsupported},
    {"Lines", Kind::Unsupported},
    {"Triangles", Kind::Unsupported},
    {"Bodies", Kind::Unsupported},
};

const SectionName* find_section(std::string_view content) {
  for (const auto& s : kSections) {
    if (content == s.name) return &s;
  }
  return nullptr;
}

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\f\v");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\f\v");
  return s.substr(b, e - b + 1);
}

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    const std::size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

// "a, b, c (and 7 more)"
std::string id_list(const std::vector<std::uint64_t>& ids) {
  std::string s;
  const std::size_t shown = std::min<std::size_t>(ids.size(), 10);
  for (std::size_t i = 0; i < shown; ++i) s += fmt::format("{}{}", i ? ", " : "", ids[i]);
  if (ids.size() > shown) s += fmt::format(" (and {} more)", ids.size() - shown);
  return s;
}

// The bytes of a data file, line by line: a regular file read in 64 KiB blocks, or a text in
// memory (fuzzing, tests). A line longer than kMaxLine is an error, not an allocation as large
// as the file (a binary file, /dev/zero given by mistake).
constexpr std::size_t kMaxLine = std::size_t{1} << 20;

class Source {
 public:
  // A regular file (not a device, FIFO or folder: those are refused by what they are).
  explicit Source(const std::string& path) {
    errno = 0;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      const int err = errno != 0 ? errno : ENOENT;
      if (fd >= 0) ::close(fd);
      throw DataFileError(fmt::format("{}: cannot open LAMMPS data file: {}", path,
                                      std::error_code(err, std::generic_category()).message()));
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      throw DataFileError(fmt::format("{}: cannot read LAMMPS data file: {}", path,
                                      S_ISDIR(st.st_mode) ? "is a folder" : "not a regular file"));
    }
    fd_ = fd;
    bytes_ = static_cast<std::uint64_t>(st.st_size);
  }
  explicit Source(std::string_view text) : text_(text), bytes_(text.size()) {}
  ~Source() {
    if (fd_ >= 0) ::close(fd_);
  }
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  std::uint64_t bytes() const { return bytes_; }

  // The next line without its '\n' into `line` (a view valid until the next call); false at
  // the end. Throws std::system_error on a read error, std::length_error on a line too long.
  bool next(std::string_view& line) {
    if (fd_ < 0) {  // memory
      if (pos_ >= text_.size()) return false;
      const std::size_t nl = text_.find('\n', pos_);
      const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
      if (end - pos_ > kMaxLine) throw std::length_error("line");
      line = text_.substr(pos_, end - pos_);
      pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
      return true;
    }
    line_.clear();
    while (true) {
      if (head_ == filled_) {
        if (eof_) break;
        const ssize_t n = ::read(fd_, block_.data(), block_.size());
        if (n < 0) {
          if (errno == EINTR) continue;
          throw std::system_error(errno, std::generic_category());
        }
        head_ = 0;
        filled_ = static_cast<std::size_t>(n);
        if (n == 0) {
          eof_ = true;
          break;
        }
      }
      const char* start = block_.data() + head_;
      const void* nl = std::memchr(start, '\n', filled_ - head_);
      const std::size_t take =
          nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : filled_ - head_;
      line_.append(start, take);
      if (line_.size() > kMaxLine) throw std::length_error("line");
      head_ += take;
      if (nl) {
        ++head_;  // the '\n'
        line = line_;
        return true;
      }
    }
    if (line_.empty()) return false;
    line = line_;  // a last line without '\n'
    return true;
  }

 private:
  int fd_ = -1;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint64_t bytes_ = 0;
  std::vector<char> block_ = std::vector<char>(std::size_t{1} << 16);
  std::size_t head_ = 0, filled_ = 0;
  bool eof_ = false;
  std::string line_;
};

class Parser {
 public:
  Parser(Source& source, const std::string& path) : source_(source), path_(path) {}

  LammpsData parse() {
    if (!next_raw()) fail_at(1, "the file is empty (expected a LAMMPS data file)");
    // Line 1: the title, whatever it says.
    bool have_line = read_header();
    if (natoms_ == 0) fail("the header declares no atoms ('N atoms' line)");
    while (have_line) {
      const SectionName* s = find_section(content_);
      if (!s) {
        fail(
            fmt::format("unexpected line '{}': not a section keyword (more data lines than the "
                        "header declares?)",
                        content_));
      }
      have_line = read_section(*s);
    }
    if (!seen_atoms_) {
      fail(fmt::format("no Atoms section (the header declares {} atoms)", natoms_));
    }
    if (nbonds_ > 0 && !seen_bonds_)
      fail(fmt::format("no Bonds section (the header declares {} bonds)", nbonds_));
    if (nangles_ > 0 && !seen_angles_)
      fail(fmt::format("no Angles section (the header declares {} angles)", nangles_));
    if ((nbonds_ > 0 || nangles_ > 0) && !is_molecular_style(data_.atom_style))
      fail(
          fmt::format("the file has bonds or angles, but its Atoms section is atom_style {} "
                      "(no molecule ids): use atom_style bond, angle or molecular",
                      data_.atom_style));
    data_.has_velocities = seen_velocities_;
    return std::move(data_);
  }

 private:
  [[noreturn]] void fail(std::string_view what) const { fail_at(line_, what); }
  [[noreturn]] void fail_at(std::size_t line, std::string_view what) const {
    throw DataFileError(fmt::format("{}:{}: {}", path_, line, what));
  }

  // Reads the next line into content_ (comment removed, trimmed) and comment_ (the text after
  // '#', trimmed). False at the end of the file.
  bool next_raw() {
    std::string_view raw;
    try {
      if (!source_.next(raw)) return false;
    } catch (const std::system_error& e) {
      throw DataFileError(fmt::format("{}:{}: read error: {}", path_, line_, e.code().message()));
    } catch (const std::length_error&) {
      fail_at(line_ + 1, fmt::format("a line longer than {} MiB (is this a LAMMPS data file?)",
                                     kMaxLine >> 20));
    }
    ++line_;
    // Line breaks of a lone CR (classic Mac OS) make the whole file its first line (issue 31:
    // reported as a missing 'xlo xhi' line).
    if (const auto cr = raw.find('\r'); cr != std::string_view::npos && cr + 1 < raw.size())
      fail_at(line_,
              "the lines end in a lone CR (carriage return, classic Mac OS), not LF or CR LF: "
              "convert the file (tr '\\r' '\\n' < in > out)");
    const auto hash = raw.find('#');
    content_ = trim(raw.substr(0, hash));
    comment_ = hash == std::string_view::npos ? std::string_view{} : trim(raw.substr(hash + 1));
    return true;
  }

  // The next line with content (blank and comment-only lines skipped). False at the end.
  bool next_content() {
    while (next_raw()) {
      if (!content_.empty()) return true;
    }
    return false;
  }

  template <typename T>
  T integer(std::string_view tok, std::string_view what) const {
    if (!tok.empty() && tok.front() == '+') tok.remove_prefix(1);
    // A count or id below zero is named as such (issue 31: "-5 atoms" was "not an integer").
    if constexpr (std::is_unsigned_v<T>) {
      if (tok.size() > 1 && tok.front() == '-' &&
          tok.find_first_not_of("0123456789", 1) == std::string_view::npos)
        fail(fmt::format("{} must not be negative: '{}'", what, tok));
    }
    T v{};
    const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec == std::errc::result_out_of_range) {
      fail(fmt::format("{} is out of range: '{}'", what, tok));
    }
    if (ec != std::errc{} || end != tok.data() + tok.size()) {
      fail(fmt::format("{} is not an integer: '{}'", what, tok));
    }
    return v;
  }

  double real(std::string_view tok, std::string_view what) const {
    std::string_view t = tok;
    if (!t.empty() && t.front() == '+') t.remove_prefix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc{} || end != t.data() + t.size()) {
      fail(fmt::format("{} is not a number: '{}'", what, tok));
    }
    if (!std::isfinite(v)) fail(fmt::format("{} must be finite: '{}'", what, tok));
    return v;
  }

  // Header lines up to the first section keyword; returns whether a section line is current.
  bool read_header() {
    std::array<bool, 3> have_box{false, false, false};
    bool have_types = false;
    bool have_line;
    while ((have_line = next_content())) {
      if (find_section(content_)) break;
      const auto tok = split(content_);
      auto words = [&](std::size_t from) {
        std::string s;
        for (std::size_t i = from; i < tok.size(); ++i)
          s += fmt::format("{}{}", i > from ? " " : "", tok[i]);
        return s;
      };
      if (tok.size() >= 4 && tok[tok.size() - 3] == "xy" && tok[tok.size() - 2] == "xz" &&
          tok[tok.size() - 1] == "yz") {
        fail(
            "triclinic boxes are not supported (the header has 'xy xz yz'); scanmd needs an "
            "orthogonal box");
      }
      if (tok.size() == 4 &&
          (words(2) == "xlo xhi" || words(2) == "ylo yhi" || words(2) == "zlo zhi")) {
        const int axis = tok[2][0] - 'x';
        const std::string name(tok[2].substr(0, 1));
        const double lo = real(tok[0], name + "lo");
        const double hi = real(tok[1], name + "hi");
        if (!(hi > lo)) fail(fmt::format("{}hi must be > {}lo (got {} {})", name, name, lo, hi));
        data_.lo[axis] = lo;
        data_.hi[axis] = hi;
        have_box[axis] = true;
        continue;
      }
      if (tok.size() < 2) fail(fmt::format("unrecognised header line '{}'", content_));
      const std::string what = words(1);
      if (what == "atoms") {
        natoms_ = integer<std::uint64_t>(tok[0], "the number of atoms");
        if (natoms_ > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          fail("the number of atoms is out of range");
        }

      } else if (what == "atom types") {
        const long long t = integer<long long>(tok[0], "the number of atom types");
        if (t < 1 || t > kMaxAtomTypes) {
          fail(fmt::format("the number of atom types must be 1..{} (got {})", kMaxAtomTypes, t));
        }
        data_.atom_types = static_cast<int>(t);
        have_types = true;
      } else if (what == "bonds" || what == "angles") {
        (what == "bonds" ? nbonds_ : nangles_) =
            integer<std::uint64_t>(tok[0], fmt::format("the number of {}", what));
      } else if (what == "bond types" || what == "angle types") {
        const long long t = integer<long long>(tok[0], fmt::format("the number of {}", what));
        if (t < 0 || t > kMaxAtomTypes)
          fail(fmt::format("the number of {} must be 0..{} (got {})", what, kMaxAtomTypes, t));
        (what == "bond types" ? data_.bond_types : data_.angle_types) = static_cast<int>(t);
      } else if (what == "dihedrals" || what == "impropers" || what == "ellipsoids" ||
                 what == "lines" || what == "triangles" || what == "bodies") {
        if (integer<std::uint64_t>(tok[0], fmt::format("the number of {}", what)) != 0) {
          fail(
              fmt::format("'{}': scanmd reads atom_style atomic, bond, angle and molecular "
                          "without {}",
                          content_, what));
        }
      } else if (what == "dihedral types" || what == "improper types" ||
                 what == "extra bond per atom" || what == "extra angle per atom" ||
                 what == "extra dihedral per atom" || what == "extra improper per atom" ||
                 what == "extra special per atom") {
        integer<std::uint64_t>(tok[0], fmt::format("the number of {}", what));  // unused
      } else {
        fail(fmt::format("unrecognised header line '{}'", content_));
      }
    }
    // Problems of the header as a whole: reported at the first section (or the end).
    if (natoms_ > 0 && !have_types) fail("the header has no 'atom types' line");
    for (int axis = 0; axis < 3; ++axis) {
      if (!have_box[axis]) {
        const char c = static_cast<char>('x' + axis);
        fail(fmt::format("the header has no '{}lo {}hi' line", c, c));
      }
    }
    return have_line;
  }

  // Data lines of a counted section: calls `row(tokens)` `count` times. Returns whether the line
  // after them is current (a section keyword), false at the end of the file. `early(k)` is
  // called (and must throw) when a section keyword or the end of the file comes after k lines.
  template <typename Row, typename Early>
  bool counted(std::uint64_t count, Row&& row, Early&& early) {
    for (std::uint64_t k = 0; k < count; ++k) {
      if (!next_content() || find_section(content_)) early(k);
      row(split(content_));
    }
    return next_content();
  }

  bool read_section(const SectionName& s) {
    switch (s.kind) {
      case Kind::Masses:
        if (seen_masses_) fail("a second Masses section");
        seen_masses_ = true;
        return read_masses();
      case Kind::Atoms:
        if (seen_atoms_) fail("a second Atoms section");
        seen_atoms_ = true;
        return read_atoms();
      case Kind::Velocities:
        if (!seen_atoms_) fail("the Velocities section comes before the Atoms section");
        if (seen_velocities_) fail("a second Velocities section");
        seen_velocities_ = true;
        return read_velocities();
      case Kind::Bonds:
        if (nbonds_ == 0) fail("a Bonds section, but the header declares no bonds ('N bonds')");
        if (!seen_atoms_) fail("the Bonds section comes before the Atoms section");
        if (seen_bonds_) fail("a second Bonds section");
        seen_bonds_ = true;
        return read_bonds();
      case Kind::Angles:
        if (nangles_ == 0)
          fail("an Angles section, but the header declares no angles ('N angles')");
        if (!seen_atoms_) fail("the Angles section comes before the Atoms section");
        if (seen_angles_) fail("a second Angles section");
        seen_angles_ = true;
        return read_angles();
      case Kind::Unsupported:
        fail(
            fmt::format("a {} section: scanmd reads atom_style atomic, bond, angle and "
                        "molecular without dihedrals or impropers",
                        s.name));
      case Kind::Skip:
        break;
    }
    bool have_line;
    while ((have_line = next_content())) {
      if (find_section(content_)) break;
    }
    return have_line;
  }

  bool read_masses() {
    const auto types = static_cast<std::size_t>(data_.atom_types);
    data_.masses.assign(types, 0.0);
    std::vector<std::size_t> line_of(types, 0);
    return counted(
        types,
        [&](const std::vector<std::string_view>& tok) {
          if (tok.size() != 2) {
            fail(fmt::format("Masses: expected 2 fields (type mass), got {}", tok.size()));
          }
          const long long type = integer<long long>(tok[0], "Masses: atom type");
          if (type < 1 || type > data_.atom_types) {
            fail(fmt::format("Masses: atom type {} is outside 1..{} (the header's atom types)",
                             type, data_.atom_types));
          }
          const auto t = static_cast<std::size_t>(type - 1);
          if (line_of[t] != 0) {
            fail(fmt::format("Masses: atom type {} given twice (also on line {})", type,
                             line_of[t]));
          }
          const double m = real(tok[1], "Masses: mass");
          if (!(m > 0)) fail(fmt::format("Masses: mass of type {} must be > 0 (got {})", type, m));
          data_.masses[t] = m;
          line_of[t] = line_;
        },
        [&](std::uint64_t k) {
          fail(fmt::format("Masses section ends after {} of {} lines (one per atom type)", k,
                           types));
        });
  }

  bool read_atoms() {
    if (!comment_.empty()) {
      const auto style = split(comment_).front();
      if (style != "atomic" && !is_molecular_style(style)) {
        fail(
            fmt::format("the Atoms section is for atom_style {}; scanmd reads atom_style "
                        "atomic (id type x y z [ix iy iz]), bond, angle and molecular (id "
                        "molecule type x y z [ix iy iz])",
                        style));
      }
      data_.atom_style = std::string(style);
    } else if (nbonds_ > 0 || nangles_ > 0 || data_.bond_types > 0 || data_.angle_types > 0) {
      data_.atom_style = "molecular";  // no style comment, but a topology: id molecule type ...
    }
    const bool mol = is_molecular_style(data_.atom_style);
    const std::size_t first = mol ? 1 : 0;  // the molecule id's column
    // Every atom takes a line of at least 10 bytes ("1 1 0 0 0\n"): a count the file cannot
    // hold is refused here, before memory for it is set aside.
    if (natoms_ > source_.bytes() / 10)
      fail(
          fmt::format("the header declares {} atoms, but the file's {} bytes cannot hold that "
                      "many atom lines (at least 10 bytes each)",
                      natoms_, source_.bytes()));
    try {
      data_.atoms.reserve(static_cast<std::size_t>(natoms_));
      index_of_.assign(static_cast<std::size_t>(natoms_) + 1, kNone);
      atom_line_.reserve(static_cast<std::size_t>(natoms_));
    } catch (const std::bad_alloc&) {
      fail(fmt::format("cannot allocate memory for {} atoms", natoms_));
    } catch (const std::length_error&) {
      fail(fmt::format("cannot allocate memory for {} atoms", natoms_));
    }
    return counted(
        natoms_,
        [&](const std::vector<std::string_view>& tok) {
          if (tok.size() != 5 + first && tok.size() != 8 + first) {
            fail(mol ? fmt::format("Atoms: expected 6 or 9 fields (atom_style {}: id molecule "
                                   "type x y z [ix iy iz]), got {}",
                                   data_.atom_style, tok.size())
                     : fmt::format("Atoms: expected 5 or 8 fields (atom_style atomic: id type x "
                                   "y z [ix iy iz]), got {}",
                                   tok.size()));
          }
          LammpsAtom a{};
          a.id = integer<std::uint64_t>(tok[0], "Atoms: atom id");
          if (a.id < 1 || a.id > natoms_) {
            fail(
                fmt::format("atom id {} is outside 1..{}: scanmd needs ids 1..N; renumber them "
                            "in LAMMPS with reset_atom_ids (reset_atoms id since 2023) before "
                            "write_data",
                            a.id, natoms_));
          }
          if (const std::size_t prev = index_of_[a.id]; prev != kNone) {
            fail(fmt::format("duplicate atom id {} (also on line {})", a.id, atom_line_[prev]));
          }
          if (mol) a.molecule = integer<std::int64_t>(tok[1], "Atoms: molecule id");
          const long long type = integer<long long>(tok[1 + first], "Atoms: atom type");
          if (type < 1 || type > data_.atom_types) {
            fail(fmt::format("Atoms: atom type {} is outside 1..{} (the header's atom types)", type,
                             data_.atom_types));
          }
          a.type = static_cast<int>(type);
          a.x = real(tok[2 + first], "Atoms: x");
          a.y = real(tok[3 + first], "Atoms: y");
          a.z = real(tok[4 + first], "Atoms: z");
          if (tok.size() == 8 + first) {
            a.ix = integer<int>(tok[5 + first], "Atoms: image flag ix");
            a.iy = integer<int>(tok[6 + first], "Atoms: image flag iy");
            a.iz = integer<int>(tok[7 + first], "Atoms: image flag iz");
          }
          check_wrappable(a, tok, first);
          index_of_[a.id] = data_.atoms.size();
          atom_line_.push_back(line_);
          data_.atoms.push_back(a);
        },
        [&](std::uint64_t k) {
          fail(fmt::format("the Atoms section ends after {} of {} atom lines (truncated file?)", k,
                           natoms_));
        });
  }

  // The run wraps every position into the box by the full count of box lengths, adding that
  // count to the image flag (base/box.hpp). A coordinate whose image flag would then leave the
  // 32-bit range (or whose distance to the box is not even finite) is an error here, naming the
  // line, rather than a wrong image flag later.
  void check_wrappable(const LammpsAtom& a, const std::vector<std::string_view>& tok,
                       std::size_t first) const {
    const double q[3] = {a.x, a.y, a.z};
    const int image[3] = {a.ix, a.iy, a.iz};
    for (int axis = 0; axis < 3; ++axis) {
      const double length = data_.hi[axis] - data_.lo[axis];
      double r = q[axis] - data_.lo[axis];
      int im = image[axis];
      if (wrap_far_coordinate(r, im, length)) continue;
      const char c = "xyz"[axis];
      fail(fmt::format(
          "Atoms: atom {}: {} = {} (image flag {}) lies {:.3g} box lengths from the "
          "box [{}, {}): its image flag would not fit 32 bits (|i{}| <= 2147483647)",
          a.id, c, tok[2 + first + axis], image[axis],
          std::floor((q[axis] - data_.lo[axis]) / length), data_.lo[axis], data_.hi[axis], c));
    }
  }

  // An atom id of a Bonds or Angles line: one of the Atoms section's.
  std::uint64_t atom_of(std::string_view tok, std::string_view section, std::uint64_t n) {
    const auto id = integer<std::uint64_t>(tok, fmt::format("{}: atom id", section));
    if (id < 1 || id > natoms_ || index_of_[id] == kNone)
      fail(fmt::format("{}: {} {} names atom {}, which is not in the Atoms section", section,
                       section == "Bonds" ? "bond" : "angle", n, id));
    return id;
  }

  int topology_type(std::string_view tok, std::string_view section, int types) {
    const long long t = integer<long long>(tok, fmt::format("{}: type", section));
    if (t < 1 || t > types)
      fail(fmt::format("{}: {} type {} is outside 1..{} (the header's {} types)", section,
                       section == "Bonds" ? "bond" : "angle", t, types,
                       section == "Bonds" ? "bond" : "angle"));
    return static_cast<int>(t);
  }

  // Each line 'n type a b' (n ignored: LAMMPS numbers them 1..N).
  bool read_bonds() {
    if (nbonds_ > source_.bytes() / 8)
      fail(fmt::format("the header declares {} bonds, more than the file can hold", nbonds_));
    data_.bonds.reserve(static_cast<std::size_t>(nbonds_));
    return counted(
        nbonds_,
        [&](const std::vector<std::string_view>& tok) {
          if (tok.size() != 4)
            fail(fmt::format("Bonds: expected 4 fields (n type atom1 atom2), got {}", tok.size()));
          const auto n = integer<std::uint64_t>(tok[0], "Bonds: bond number");
          LammpsBond b{topology_type(tok[1], "Bonds", data_.bond_types), 0, 0};
          b.a = atom_of(tok[2], "Bonds", n);
          b.b = atom_of(tok[3], "Bonds", n);
          if (b.a == b.b) fail(fmt::format("Bonds: bond {} joins atom {} to itself", n, b.a));
          data_.bonds.push_back(b);
        },
        [&](std::uint64_t k) {
          fail(fmt::format("the Bonds section ends after {} of {} lines", k, nbonds_));
        });
  }

  bool read_angles() {
    if (nangles_ > source_.bytes() / 10)
      fail(fmt::format("the header declares {} angles, more than the file can hold", nangles_));
    data_.angles.reserve(static_cast<std::size_t>(nangles_));
    return counted(
        nangles_,
        [&](const std::vector<std::string_view>& tok) {
          if (tok.size() != 5)
            fail(fmt::format("Angles: expected 5 fields (n type atom1 atom2 atom3), got {}",
                             tok.size()));
          const auto n = integer<std::uint64_t>(tok[0], "Angles: angle number");
          LammpsAngle a{topology_type(tok[1], "Angles", data_.angle_types), 0, 0, 0};
          a.a = atom_of(tok[2], "Angles", n);
          a.b = atom_of(tok[3], "Angles", n);
          a.c = atom_of(tok[4], "Angles", n);
          if (a.a == a.b || a.b == a.c || a.a == a.c)
            fail(fmt::format("Angles: angle {} names atom {} twice", n,
                             a.a == a.b || a.a == a.c ? a.a : a.b));
          data_.angles.push_back(a);
        },
        [&](std::uint64_t k) {
          fail(fmt::format("the Angles section ends after {} of {} lines", k, nangles_));
        });
  }

  bool read_velocities() {
    std::vector<std::size_t> vline(data_.atoms.size(), 0);
    return counted(
        natoms_,
        [&](const std::vector<std::string_view>& tok) {
          if (tok.size() != 4) {
            fail(fmt::format("Velocities: expected 4 fields (id vx vy vz), got {}", tok.size()));
          }
          const auto id = integer<std::uint64_t>(tok[0], "Velocities: atom id");
          if (id < 1 || id > natoms_ || index_of_[id] == kNone) {
            fail(fmt::format("Velocities: atom id {} is not in the Atoms section", id));
          }
          const std::size_t i = index_of_[id];
          if (vline[i] != 0) {
            fail(fmt::format("Velocities: duplicate atom id {} (also on line {})", id, vline[i]));
          }
          LammpsAtom& a = data_.atoms[i];
          a.vx = real(tok[1], "Velocities: vx");
          a.vy = real(tok[2], "Velocities: vy");
          a.vz = real(tok[3], "Velocities: vz");
          vline[i] = line_;
        },
        [&](std::uint64_t k) {
          std::vector<std::uint64_t> missing;
          for (std::size_t i = 0; i < data_.atoms.size(); ++i) {
            if (vline[i] == 0) missing.push_back(data_.atoms[i].id);
          }
          std::sort(missing.begin(), missing.end());
          fail(
              fmt::format("the Velocities section ends after {} of {} lines: no velocity for "
                          "atom id{} {}",
                          k, natoms_, missing.size() == 1 ? "" : "s", id_list(missing)));
        });
  }

  Source& source_;
  const std::string& path_;
  std::size_t line_ = 0;
  std::string_view content_, comment_;  // views into the source's line, valid until the next

  LammpsData data_{};
  std::uint64_t natoms_ = 0;
  bool seen_masses_ = false, seen_atoms_ = false, seen_velocities_ = false;
  bool seen_bonds_ = false, seen_angles_ = false;
  std::uint64_t nbonds_ = 0, nangles_ = 0;
  std::vector<std::size_t> index_of_;   // atom id -> index into data_.atoms (kNone: not seen)
  std::vector<std::size_t> atom_line_;  // line of each atom, in file order
};

}  // namespace

LammpsData read_lammps_data(const std::string& path) {
  Source source(path);
  return Parser(source, path).parse();
}

LammpsData parse_lammps_data(std::string_view text, const std::string& name) {
  Source source(text);
  return Parser(source, name).parse();
}

namespace {

std::string errno_text(int err) {
  return std::error_code(err != 0 ? err : EIO, std::generic_category()).message();
}

// "<path>.tmp" open for writing; removed on destruction unless commit() renamed it to `path`.
class TempFile {
 public:
  explicit TempFile(const std::string& path) : path_(path), tmp_(path + ".tmp") {
    errno = 0;
    file_ = std::fopen(tmp_.c_str(), "wb");
    if (!file_) fail("cannot create " + tmp_, errno);
  }
  ~TempFile() {
    if (file_) std::fclose(file_);
    if (!committed_) std::remove(tmp_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void write(const fmt::memory_buffer& text) {
    errno = 0;
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail("write error", errno);
  }

  // Flush, fsync, close, rename over `path`, then sync the folder (best effort, as checkpoints).
  void commit() {
    errno = 0;
    if (std::fflush(file_) != 0) fail("write error", errno);
    if (::fsync(::fileno(file_)) != 0) fail("cannot sync " + tmp_, errno);
    std::FILE* f = std::exchange(file_, nullptr);
    if (std::fclose(f) != 0) fail("write error", errno);
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
      fail("cannot rename " + tmp_ + " to it", errno);
    committed_ = true;
    const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
      ::fsync(fd);
      ::close(fd);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what, int err) const {
    throw std::runtime_error(
        fmt::format("{}: cannot write LAMMPS data file: {}: {}", path_, what, errno_text(err)));
  }

  std::string path_, tmp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

}  // namespace

void write_lammps_data(const std::string& path, const LammpsData& data, std::string_view title) {
  if (data.atom_types < 1 ||
      (!data.masses.empty() && data.masses.size() != static_cast<std::size_t>(data.atom_types)))
    throw std::invalid_argument(fmt::format("{}: write_lammps_data: {} atom types with {} masses",
                                            path, data.atom_types, data.masses.size()));
  TempFile file(path);
  fmt::memory_buffer text;
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  auto out = std::back_inserter(text);
  auto flush_if_full = [&] {
    if (text.size() >= kPiece) {
      file.write(text);
      text.clear();
    }
  };

  std::string line1(title);
  std::replace_if(
      line1.begin(), line1.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  const bool mol = is_molecular_style(data.atom_style);
  fmt::format_to(out, "{}\n\n{} atoms\n{} atom types\n", line1, data.atoms.size(), data.atom_types);
  if (mol)
    fmt::format_to(out, "{} bonds\n{} bond types\n{} angles\n{} angle types\n", data.bonds.size(),
                   data.bond_types, data.angles.size(), data.angle_types);
  fmt::format_to(out, "\n");
  for (int axis = 0; axis < 3; ++axis) {
    const char c = static_cast<char>('x' + axis);
    fmt::format_to(out, "{:.17g} {:.17g} {}lo {}hi\n", data.lo[axis], data.hi[axis], c, c);
  }
  if (!data.masses.empty()) {
    fmt::format_to(out, "\nMasses\n\n");
    for (std::size_t t = 0; t < data.masses.size(); ++t)
      fmt::format_to(out, "{} {:.17g}\n", t + 1, data.masses[t]);
  }
  fmt::format_to(out, "\nAtoms # {}\n\n", mol ? data.atom_style : std::string("atomic"));
  for (const LammpsAtom& a : data.atoms) {
    if (mol)
      fmt::format_to(out, "{} {} {} {:.17g} {:.17g} {:.17g} {} {} {}\n", a.id, a.molecule, a.type,
                     a.x, a.y, a.z, a.ix, a.iy, a.iz);
    else
      fmt::format_to(out, "{} {} {:.17g} {:.17g} {:.17g} {} {} {}\n", a.id, a.type, a.x, a.y, a.z,
                     a.ix, a.iy, a.iz);
    flush_if_full();
  }
  if (data.has_velocities) {
    fmt::format_to(out, "\nVelocities\n\n");
    for (const LammpsAtom& a : data.atoms) {
      fmt::format_to(out, "{} {:.17g} {:.17g} {:.17g}\n", a.id, a.vx, a.vy, a.vz);
      flush_if_full();
    }
  }
  if (mol && !data.bonds.empty()) {
    fmt::format_to(out, "\nBonds\n\n");
    std::size_t n = 0;
    for (const LammpsBond& b : data.bonds) {
      fmt::format_to(out, "{} {} {} {}\n", ++n, b.type, b.a, b.b);
      flush_if_full();
    }
  }
  if (mol && !data.angles.empty()) {
    fmt::format_to(out, "\nAngles\n\n");
    std::size_t n = 0;
    for (const LammpsAngle& a : data.angles) {
      fmt::format_to(out, "{} {} {} {} {}\n", ++n, a.type, a.a, a.b, a.c);
      flush_if_full();
    }
  }
  file.write(text);
  file.commit();
}

}  // namespace scanmd::io
