// EAM files and tables (see eam_file.hpp). The gridding and the splines follow LAMMPS's PairEAM
// (file2array, array2spline, interpolate) operation for operation, so that the tables agree with
// LAMMPS's to the bit.
#include "physics/manybody/eam_file.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "physics/pair/pair_config.hpp"

namespace scanmd::eam {

namespace {

// Words of a file with their line numbers, read line by line (LAMMPS's PotentialFileReader:
// next_values(n) takes a line of at least n words, next_dvector(n) takes n numbers across lines).
class Reader {
 public:
  Reader(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  int line() const { return line_; }
  const std::string& name() const { return name_; }
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw FileError(fmt::format("{}:{}: {}", name_, line, what));
  }
  [[noreturn]] void fail_end(const std::string& what) const {
    throw FileError(fmt::format("{}:{}: the file ends {}", name_, line_, what));
  }

  // The next line, as it is (comments are not cut: LAMMPS's EAM reader keeps '#' in data).
  std::optional<std::string_view> raw() {
    if (at_ >= text_.size()) return std::nullopt;
    const std::size_t end = text_.find('\n', at_);
    const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
    const std::string_view l = text_.substr(at_, stop - at_);
    at_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++line_;
    return l;
  }
  void skip_line(const std::string& what) {
    if (!raw()) fail_end(fmt::format("before {}", what));
  }
  // The words of the next line, which must have at least n (blank lines are skipped).
  std::vector<std::string_view> values(std::size_t n, const std::string& what) {
    while (auto l = raw()) {
      auto w = words(*l);
      if (w.empty()) continue;
      if (w.size() < n)
        fail(line_, fmt::format("{}: expected {} values, found {}", what, n, w.size()));
      return w;
    }
    fail_end(fmt::format("before {}", what));
  }
  // n numbers across lines into out[1..n].
  void numbers(int n, std::vector<double>& out, const std::string& what) {
    out.assign(static_cast<std::size_t>(n) + 1, 0.0);
    int got = 0;
    while (got < n) {
      if (pending_.empty()) {
        auto l = raw();
        if (!l) fail_end(fmt::format("after {} of the {} values of {}", got, n, what));
        pending_ = words(*l);
        pending_line_ = line_;
        next_ = 0;
      }
      while (next_ < pending_.size() && got < n)
        out[static_cast<std::size_t>(++got)] = number(pending_[next_++], pending_line_, what);
      if (next_ >= pending_.size()) pending_.clear();
    }
    // LAMMPS's next_dvector reads whole lines: the rest of a line is not carried over.
    pending_.clear();
  }
  double number(std::string_view w, int line, const std::string& what) const {
    double v = 0.0;
    const char* b = w.data();
    const char* e = w.data() + w.size();
    if (!w.empty() && *b == '+') ++b;
    const auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e)
      fail(line, fmt::format("{}: '{}' is not a number", what, std::string(w)));
    if (!std::isfinite(v)) fail(line, fmt::format("{}: {} is not finite", what, std::string(w)));
    return v;
  }
  int integer(std::string_view w, int line, const std::string& what) const {
    int v = 0;
    const char* b = w.data();
    const char* e = w.data() + w.size();
    const auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e)
      fail(line, fmt::format("{}: '{}' is not an integer", what, std::string(w)));
    return v;
  }
  std::size_t bytes() const { return text_.size(); }

  static std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
      const std::size_t b = line.find_first_not_of(" \t\r\f\v", i);
      if (b == std::string_view::npos) break;
      const std::size_t e = line.find_first_of(" \t\r\f\v", b);
      out.push_back(line.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
      i = e == std::string_view::npos ? line.size() : e;
    }
    return out;
  }

 private:
  std::string_view text_;
  std::string name_;
  std::size_t at_ = 0;
  int line_ = 0;
  std::vector<std::string_view> pending_;
  std::size_t next_ = 0;
  int pending_line_ = 0;
};

struct Grid {
  int nrho, nr;
  double drho, dr, cut;
};

// "nrho drho nr dr cut", checked: the counts at least 5 (the spline's stencil), the spacings and
// the cutoff positive, and no more values than the file's bytes can hold (each needs at least
// two bytes), so that a hostile header cannot make us allocate.
Grid read_grid(Reader& in, std::size_t values_per_point_rho, std::size_t values_per_point_r) {
  const auto w = in.values(5, "the grid line (nrho drho nr dr cut)");
  const int line = in.line();
  Grid g{};
  g.nrho = in.integer(w[0], line, "nrho");
  g.drho = in.number(w[1], line, "drho");
  g.nr = in.integer(w[2], line, "nr");
  g.dr = in.number(w[3], line, "dr");
  g.cut = in.number(w[4], line, "cut");
  if (g.nrho < 5) in.fail(line, fmt::format("nrho = {}: a table needs at least 5 points", g.nrho));
  if (g.nr < 5) in.fail(line, fmt::format("nr = {}: a table needs at least 5 points", g.nr));
  if (!(g.drho > 0)) in.fail(line, fmt::format("drho = {} must be > 0", g.drho));
  if (!(g.dr > 0)) in.fail(line, fmt::format("dr = {} must be > 0", g.dr));
  if (!(g.cut > 0)) in.fail(line, fmt::format("cut = {} must be > 0", g.cut));
  const double need = static_cast<double>(values_per_point_rho) * g.nrho +
                      static_cast<double>(values_per_point_r) * g.nr;
  if (need * 2 > static_cast<double>(in.bytes()))
    in.fail(line, fmt::format("nrho = {} and nr = {} call for {:.0f} values, more than the file's "
                              "{} bytes can hold",
                              g.nrho, g.nr, need, in.bytes()));
  return g;
}

}  // namespace

Funcfl parse_funcfl(std::string_view text, const std::string& name) {
  Reader in(text, name);
  Funcfl f;
  f.path = name;
  in.skip_line("the element line");
  const auto w = in.values(2, "the element line (Z mass)");
  in.integer(w[0], in.line(), "the atomic number");
  f.mass = in.number(w[1], in.line(), "the mass");
  if (!(f.mass > 0)) in.fail(in.line(), fmt::format("mass {} must be > 0", f.mass));
  const Grid g = read_grid(in, 1, 2);
  f.nrho = g.nrho;
  f.drho = g.drho;
  f.nr = g.nr;
  f.dr = g.dr;
  f.cut = g.cut;
  in.numbers(f.nrho, f.frho, "F(rho)");
  in.numbers(f.nr, f.zr, "Z(r)");
  in.numbers(f.nr, f.rhor, "rho(r)");
  return f;
}

Setfl parse_setfl(std::string_view text, const std::string& name, bool fs) {
  Reader in(text, name);
  Setfl s;
  s.path = name;
  s.fs = fs;
  for (int k = 0; k < 3; ++k) in.skip_line("the element count line");
  const auto head = in.values(1, "the element line (N el_1 .. el_N)");
  const int hl = in.line();
  const int n = in.integer(head[0], hl, "the element count");
  if (n < 1 || n > 1024) in.fail(hl, fmt::format("{} elements: a file has 1 .. 1024", n));
  if (head.size() != static_cast<std::size_t>(n) + 1)
    in.fail(hl, fmt::format("{} element name{} for {} element{}", head.size() - 1,
                            head.size() == 2 ? "" : "s", n, n == 1 ? "" : "s"));
  for (int k = 1; k <= n; ++k) s.elements.emplace_back(head[static_cast<std::size_t>(k)]);
  const std::size_t N = static_cast<std::size_t>(n);
  const Grid g = read_grid(in, N, N * (fs ? N : 1) + N * (N + 1) / 2);
  s.nrho = g.nrho;
  s.drho = g.drho;
  s.nr = g.nr;
  s.dr = g.dr;
  s.cut = g.cut;
  s.frho.resize(N);
  s.rhor.resize(fs ? N * N : N);
  for (std::size_t i = 0; i < N; ++i) {
    const std::string& el = s.elements[i];
    const auto w = in.values(2, fmt::format("the line of element {} (Z mass ...)", el));
    in.integer(w[0], in.line(), fmt::format("the atomic number of {}", el));
    const double mass = in.number(w[1], in.line(), fmt::format("the mass of {}", el));
    if (!(mass > 0)) in.fail(in.line(), fmt::format("mass {} of {} must be > 0", mass, el));
    s.mass.push_back(mass);
    in.numbers(s.nrho, s.frho[i], fmt::format("F(rho) of {}", el));
    if (fs) {
      for (std::size_t j = 0; j < N; ++j)
        in.numbers(s.nr, s.rhor[i * N + j],
                   fmt::format("rho(r) of {} due to {}", s.elements[j], el));
    } else {
      in.numbers(s.nr, s.rhor[i], fmt::format("rho(r) of {}", el));
    }
  }
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      s.z2r.emplace_back();
      in.numbers(s.nr, s.z2r.back(),
                 fmt::format("r*phi(r) of {}-{}", s.elements[i], s.elements[j]));
    }
  return s;
}

void interpolate(int n, double delta, const double* f, double* spline) {
  auto s = [&](int m, int k) -> double& { return spline[static_cast<std::size_t>(m) * 7 + k]; };
  for (int m = 1; m <= n; ++m) s(m, 6) = f[m];
  s(1, 5) = s(2, 6) - s(1, 6);
  s(2, 5) = 0.5 * (s(3, 6) - s(1, 6));
  s(n - 1, 5) = 0.5 * (s(n, 6) - s(n - 2, 6));
  s(n, 5) = s(n, 6) - s(n - 1, 6);
  for (int m = 3; m <= n - 2; ++m)
    s(m, 5) = ((s(m - 2, 6) - s(m + 2, 6)) + 8.0 * (s(m + 1, 6) - s(m - 1, 6))) / 12.0;
  for (int m = 1; m <= n - 1; ++m) {
    s(m, 4) = 3.0 * (s(m + 1, 6) - s(m, 6)) - 2.0 * s(m, 5) - s(m + 1, 5);
    s(m, 3) = s(m, 5) + s(m + 1, 5) - 2.0 * (s(m + 1, 6) - s(m, 6));
  }
  s(n, 4) = 0.0;
  s(n, 3) = 0.0;
  for (int m = 1; m <= n; ++m) {
    s(m, 2) = s(m, 5) / delta;
    s(m, 1) = 2.0 * s(m, 4) / delta;
    s(m, 0) = 3.0 * s(m, 3) / delta;
  }
}

namespace {

// LAMMPS's 4-point Lagrange interpolation of a file's values f[1..n] (spacing d) at x.
double regrid(const std::vector<double>& f, int n, double d, double x) {
  constexpr double sixth = 1.0 / 6.0;
  double p = x / d + 1.0;
  int k = static_cast<int>(p);
  k = std::min(k, n - 2);
  k = std::max(k, 2);
  p -= k;
  p = std::min(p, 2.0);
  const double cof1 = -sixth * p * (p - 1.0) * (p - 2.0);
  const double cof2 = 0.5 * (p * p - 1.0) * (p - 2.0);
  const double cof3 = -0.5 * p * (p + 1.0) * (p - 2.0);
  const double cof4 = sixth * p * (p * p - 1.0);
  const auto K = static_cast<std::size_t>(k);
  return cof1 * f[K - 1] + cof2 * f[K] + cof3 * f[K + 1] + cof4 * f[K + 2];
}

// The lower-triangle index of the pair (a, b) of files or elements (LAMMPS's type2z2r).
std::int32_t z2r_index(int a, int b) {
  int row = a, col = b;
  if (row < col) std::swap(row, col);
  int n = 0;
  for (int m = 0; m < row; ++m) n += m + 1;
  return n + col;
}

void spline_all(Tables& t) {
  const auto splines = [](int count, int n, double delta, const std::vector<double>& grid,
                          std::vector<double>& out) {
    const std::size_t row = static_cast<std::size_t>(n) + 1;
    out.assign(static_cast<std::size_t>(count) * row * 7, 0.0);
    for (int i = 0; i < count; ++i)
      interpolate(n, delta, grid.data() + static_cast<std::size_t>(i) * row,
                  out.data() + static_cast<std::size_t>(i) * row * 7);
  };
  splines(t.nfrho, t.nrho, t.drho, t.frho_grid, t.frho);
  splines(t.nrhor, t.nr, t.dr, t.rhor_grid, t.rhor);
  splines(t.nz2r, t.nr, t.dr, t.z2r_grid, t.z2r);
}

}  // namespace

EamView Tables::view() const {
  EamView v;
  v.frho = frho.data();
  v.rhor = rhor.data();
  v.z2r = z2r.data();
  v.type2frho = type2frho.data();
  v.type2rhor = type2rhor.data();
  v.type2z2r = type2z2r.data();
  v.types = types;
  v.nrho = nrho;
  v.nr = nr;
  v.rdr = 1.0 / dr;
  v.rdrho = 1.0 / drho;
  v.rhomax = rhomax;
  v.cutoff_sq = cut * cut;
  return v;
}

Tables tables_from_funcfl(const std::vector<Funcfl>& files, const std::vector<int>& map) {
  Tables t;
  t.format = Format::Funcfl;
  t.types = static_cast<int>(map.size());
  const int nf = static_cast<int>(files.size());
  double rmax = 0.0;
  for (int i = 0; i < nf; ++i) {
    if (std::find(map.begin(), map.end(), i) == map.end()) continue;  // not active
    const Funcfl& f = files[static_cast<std::size_t>(i)];
    t.dr = std::max(t.dr, f.dr);
    t.drho = std::max(t.drho, f.drho);
    rmax = std::max(rmax, (f.nr - 1) * f.dr);
    t.rhomax = std::max(t.rhomax, (f.nrho - 1) * f.drho);
    t.cut = std::max(t.cut, f.cut);
  }
  // LAMMPS: nr, nrho from the range and the spacing (0.5 for the round-off of the division).
  t.nr = static_cast<int>(rmax / t.dr + 0.5);
  t.nrho = static_cast<int>(t.rhomax / t.drho + 0.5);
  const std::size_t rho_row = static_cast<std::size_t>(t.nrho) + 1;
  const std::size_t r_row = static_cast<std::size_t>(t.nr) + 1;

  t.nfrho = nf + 1;  // + the zero function LAMMPS keeps for non-EAM types
  t.frho_grid.assign(static_cast<std::size_t>(t.nfrho) * rho_row, 0.0);
  for (int i = 0; i < nf; ++i) {
    const Funcfl& f = files[static_cast<std::size_t>(i)];
    for (int m = 1; m <= t.nrho; ++m)
      t.frho_grid[static_cast<std::size_t>(i) * rho_row + static_cast<std::size_t>(m)] =
          regrid(f.frho, f.nrho, f.drho, (m - 1) * t.drho);
  }
  t.nrhor = nf;
  t.rhor_grid.assign(static_cast<std::size_t>(t.nrhor) * r_row, 0.0);
  for (int i = 0; i < nf; ++i) {
    const Funcfl& f = files[static_cast<std::size_t>(i)];
    for (int m = 1; m <= t.nr; ++m)
      t.rhor_grid[static_cast<std::size_t>(i) * r_row + static_cast<std::size_t>(m)] =
          regrid(f.rhor, f.nr, f.dr, (m - 1) * t.dr);
  }
  t.nz2r = nf * (nf + 1) / 2;
  t.z2r_grid.assign(static_cast<std::size_t>(t.nz2r) * r_row, 0.0);
  int n = 0;
  for (int i = 0; i < nf; ++i) {
    const Funcfl& fi = files[static_cast<std::size_t>(i)];
    for (int j = 0; j <= i; ++j, ++n) {
      const Funcfl& fj = files[static_cast<std::size_t>(j)];
      for (int m = 1; m <= t.nr; ++m) {
        const double r = (m - 1) * t.dr;
        const double zri = regrid(fi.zr, fi.nr, fi.dr, r);
        const double zrj = regrid(fj.zr, fj.nr, fj.dr, r);
        t.z2r_grid[static_cast<std::size_t>(n) * r_row + static_cast<std::size_t>(m)] =
            27.2 * 0.529 * zri * zrj;
      }
    }
  }
  const int T = t.types;
  for (int a = 0; a < T; ++a) {
    t.type2frho.push_back(map[static_cast<std::size_t>(a)]);
    t.mass.push_back(files[static_cast<std::size_t>(map[static_cast<std::size_t>(a)])].mass);
  }
  for (int a = 0; a < T; ++a)
    for (int b = 0; b < T; ++b) {
      t.type2rhor.push_back(map[static_cast<std::size_t>(a)]);
      t.type2z2r.push_back(
          z2r_index(map[static_cast<std::size_t>(a)], map[static_cast<std::size_t>(b)]));
    }
  for (const Funcfl& f : files) t.source.push_back(f.path);
  spline_all(t);
  return t;
}

Tables tables_from_setfl(const Setfl& s, const std::vector<int>& map) {
  Tables t;
  t.format = s.fs ? Format::FinnisSinclair : Format::Setfl;
  t.types = static_cast<int>(map.size());
  t.nrho = s.nrho;
  t.nr = s.nr;
  t.drho = s.drho;
  t.dr = s.dr;
  t.rhomax = (t.nrho - 1) * t.drho;
  t.cut = s.cut;
  const int N = static_cast<int>(s.elements.size());
  const std::size_t rho_row = static_cast<std::size_t>(t.nrho) + 1;
  const std::size_t r_row = static_cast<std::size_t>(t.nr) + 1;
  t.nfrho = N + 1;
  t.frho_grid.assign(static_cast<std::size_t>(t.nfrho) * rho_row, 0.0);
  for (int i = 0; i < N; ++i)
    std::copy(
        s.frho[static_cast<std::size_t>(i)].begin(), s.frho[static_cast<std::size_t>(i)].end(),
        t.frho_grid.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * rho_row));
  t.nrhor = static_cast<int>(s.rhor.size());
  t.rhor_grid.assign(static_cast<std::size_t>(t.nrhor) * r_row, 0.0);
  for (int i = 0; i < t.nrhor; ++i)
    std::copy(
        s.rhor[static_cast<std::size_t>(i)].begin(), s.rhor[static_cast<std::size_t>(i)].end(),
        t.rhor_grid.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * r_row));
  t.nz2r = N * (N + 1) / 2;
  t.z2r_grid.assign(static_cast<std::size_t>(t.nz2r) * r_row, 0.0);
  for (int i = 0; i < t.nz2r; ++i)
    std::copy(
        s.z2r[static_cast<std::size_t>(i)].begin(), s.z2r[static_cast<std::size_t>(i)].end(),
        t.z2r_grid.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * r_row));
  const int T = t.types;
  for (int a = 0; a < T; ++a) {
    const int e = map[static_cast<std::size_t>(a)];
    t.type2frho.push_back(e);
    t.mass.push_back(s.mass[static_cast<std::size_t>(e)]);
  }
  for (int a = 0; a < T; ++a)
    for (int b = 0; b < T; ++b) {
      const int ea = map[static_cast<std::size_t>(a)], eb = map[static_cast<std::size_t>(b)];
      t.type2rhor.push_back(s.fs ? ea * N + eb : ea);
      t.type2z2r.push_back(z2r_index(ea, eb));
    }
  t.source.push_back(s.path);
  spline_all(t);
  return t;
}

bool is_eam_style(std::string_view style) {
  return style == "eam" || style == "eam/alloy" || style == "eam/fs";
}

std::string resolve_path(const std::string& name, const std::string& base_dir) {
  namespace fs = std::filesystem;
  const fs::path p(name);
  if (p.is_absolute()) return name;
  const fs::path here = base_dir.empty() ? p : fs::path(base_dir) / p;
  std::error_code ec;
  if (fs::exists(here, ec)) return here.string();
  if (const char* dir = std::getenv("LAMMPS_POTENTIALS"); dir != nullptr && *dir != '\0') {
    const fs::path there = fs::path(dir) / p;
    if (fs::exists(there, ec)) return there.string();
  }
  // Debian's lammps-data.
  const fs::path debian = fs::path("/usr/share/lammps/potentials") / p;
  if (fs::exists(debian, ec)) return debian.string();
  return here.string();
}

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::shared_ptr<const Tables> load(const PotentialSection& pot, int types) {
  const std::string& style = pot.style;
  if (style == "eam") {
    if (pot.files.empty())
      throw KeyError("potential.files",
                     "eam needs potential.files: a DYNAMO funcfl file per atom type (or one "
                     "for all), e.g. files = [\"Cu_u3.eam\"]");
    if (pot.files.size() != 1 && pot.files.size() != static_cast<std::size_t>(types))
      throw KeyError("potential.files",
                     fmt::format("{} files for {} atom types: give one per type, or one for all",
                                 pot.files.size(), types));
    std::vector<Funcfl> files;
    std::vector<std::string> names;
    std::vector<int> map;
    for (int t = 0; t < types; ++t) {
      const std::string& name = pot.files[pot.files.size() == 1 ? 0 : static_cast<std::size_t>(t)];
      // A file named twice is read once (LAMMPS compares the names).
      const auto it = std::find(names.begin(), names.end(), name);
      if (it != names.end()) {
        map.push_back(static_cast<int>(it - names.begin()));
        continue;
      }
      const std::string path = resolve_path(name, pot.base_dir);
      files.push_back(parse_funcfl(read_potential_file(path, "EAM potential file"), path));
      names.push_back(name);
      map.push_back(static_cast<int>(files.size()) - 1);
    }
    return std::make_shared<const Tables>(tables_from_funcfl(files, map));
  }
  const bool fs = style == "eam/fs";
  if (!pot.files.empty())
    throw KeyError(
        "potential.files",
        fmt::format("{} reads one file: potential.file (with potential.elements)", style));
  const auto f = pot.strings.find("file");
  if (f == pot.strings.end() || f->second.empty())
    throw KeyError("potential.style",
                   fmt::format("{} needs potential.file (a {} file) and potential.elements", style,
                               fs ? "Finnis-Sinclair setfl" : "DYNAMO setfl"));
  const std::string path = resolve_path(f->second, pot.base_dir);
  const Setfl s = parse_setfl(read_potential_file(path, "EAM potential file"), path, fs);
  if (pot.elements.size() != static_cast<std::size_t>(types))
    throw KeyError("potential.elements",
                   fmt::format("{} element{} for {} atom type{}: give the element of every type "
                               "(type 1 first); {} has {}",
                               pot.elements.size(), pot.elements.size() == 1 ? "" : "s", types,
                               types == 1 ? "" : "s", path, joined(s.elements)));
  std::vector<int> map;
  for (const std::string& el : pot.elements) {
    const auto it = std::find(s.elements.begin(), s.elements.end(), el);
    if (it == s.elements.end())
      throw KeyError("potential.elements", fmt::format("element '{}' is not in {} (it has {})", el,
                                                       path, joined(s.elements)));
    map.push_back(static_cast<int>(it - s.elements.begin()));
  }
  return std::make_shared<const Tables>(tables_from_setfl(s, map));
}

}  // namespace scanmd::eam
