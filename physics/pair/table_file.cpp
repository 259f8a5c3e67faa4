// LAMMPS pair table files and the internal table (see table_file.hpp). The construction follows
// LAMMPS's PairTable (spline_table, compute_table, and the Numerical Recipes spline / splint it
// uses) operation for operation, so that the tables, and the forces, agree with LAMMPS's to the
// last bits the same IEEE operations give.
#include "physics/pair/table_file.hpp"

#include "physics/pair/table.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

namespace scanmd::table {

namespace {

// The text's lines, '#' comments cut off (as LAMMPS's reader does), with their numbers.
struct Lines {
  std::string_view text;
  std::size_t at = 0;
  int number = 0;
  // The next line as it is (nullopt at the end).
  std::optional<std::string_view> raw() {
    if (at >= text.size()) return std::nullopt;
    const std::size_t end = text.find('\n', at);
    const std::size_t stop = end == std::string_view::npos ? text.size() : end;
    std::string_view line = text.substr(at, stop - at);
    at = stop + (end == std::string_view::npos ? 0 : 1);
    ++number;
    return line;
  }
  // The next line with words in it, its comment cut off (nullopt at the end).
  std::optional<std::string_view> next() {
    while (auto line = raw()) {
      std::string_view l = *line;
      if (const auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
      if (l.find_first_not_of(" \t\r\f\v") != std::string_view::npos) return l;
    }
    return std::nullopt;
  }
};

std::vector<std::string_view> words_of(std::string_view line) {
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

std::optional<double> number_of(std::string_view w) {
  if (!w.empty() && w.front() == '+') w.remove_prefix(1);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc() || end != w.data() + w.size()) return std::nullopt;
  return v;
}

std::optional<long long> integer_of(std::string_view w) {
  if (!w.empty() && w.front() == '+') w.remove_prefix(1);
  long long v = 0;
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc() || end != w.data() + w.size()) return std::nullopt;
  return v;
}

std::string shown(std::string_view s) {
  constexpr std::size_t kMax = 60;
  std::string out(s.substr(0, kMax));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (s.size() > kMax) out += "...";
  return out;
}

// Numerical Recipes' cubic spline through (x, y) with end slopes yp1, ypn: its second
// derivatives (LAMMPS PairTable::spline, the same operations in the same order).
std::vector<double> spline(const double* x, const double* y, int n, double yp1, double ypn) {
  std::vector<double> y2(static_cast<std::size_t>(n)), u(static_cast<std::size_t>(n));
  if (yp1 > 0.99e30) {
    y2[0] = u[0] = 0.0;
  } else {
    y2[0] = -0.5;
    u[0] = (3.0 / (x[1] - x[0])) * ((y[1] - y[0]) / (x[1] - x[0]) - yp1);
  }
  for (int i = 1; i < n - 1; ++i) {
    const double sig = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1]);
    const double p = sig * y2[i - 1] + 2.0;
    y2[i] = (sig - 1.0) / p;
    u[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1]);
    u[i] = (6.0 * u[i] / (x[i + 1] - x[i - 1]) - sig * u[i - 1]) / p;
  }
  double qn = 0.0, un = 0.0;
  if (!(ypn > 0.99e30)) {
    qn = 0.5;
    un = (3.0 / (x[n - 1] - x[n - 2])) * (ypn - (y[n - 1] - y[n - 2]) / (x[n - 1] - x[n - 2]));
  }
  y2[n - 1] = (un - qn * u[n - 2]) / (qn * y2[n - 2] + 1.0);
  for (int k = n - 2; k >= 0; --k) y2[k] = y2[k] * y2[k + 1] + u[k];
  return y2;
}

// The spline's value at x (LAMMPS PairTable::splint: bisection, then the cubic).
double splint(const std::vector<double>& xa, const std::vector<double>& ya,
              const std::vector<double>& y2a, double x) {
  int klo = 0, khi = static_cast<int>(xa.size()) - 1;
  while (khi - klo > 1) {
    const int k = (khi + klo) >> 1;
    if (xa[k] > x)
      khi = k;
    else
      klo = k;
  }
  const double h = xa[khi] - xa[klo];
  const double a = (xa[khi] - x) / h;
  const double b = (x - xa[klo]) / h;
  return a * ya[klo] + b * ya[khi] +
         ((a * a * a - a) * y2a[klo] + (b * b * b - b) * y2a[khi]) * (h * h) / 6.0;
}

}  // namespace

Section parse_section(std::string_view text, const std::string& name, const std::string& keyword) {
  Lines lines{text};
  auto at = [&](int line, const std::string& what) {
    return FileError(fmt::format("{}:{}: {}", name, line, what));
  };
  // The keyword: the first word of a line (LAMMPS TableFileReader::find_section_start).
  bool found = false;
  while (auto line = lines.next()) {
    const auto w = words_of(*line);
    if (!w.empty() && w.front() == keyword) {
      found = true;
      break;
    }
  }
  if (!found)
    throw KeywordError(fmt::format("{}: no section \"{}\" (a line starting with the keyword)", name,
                                   shown(keyword)));
  const int keyword_line = lines.number;
  const auto param = lines.next();
  if (!param)
    throw at(keyword_line, fmt::format("section \"{}\" ends before its parameter line "
                                       "(N n [R|RSQ rlo rhi] [FPRIME fplo fphi])",
                                       shown(keyword)));
  Section s;
  s.param_line = lines.number;
  const auto words = words_of(*param);
  long long n = 0;
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string_view w = words[k];
    auto value = [&](std::string_view what) {
      if (k + 1 >= words.size()) throw at(s.param_line, fmt::format("{} needs {}", w, what));
      const auto v = number_of(words[++k]);
      if (!v || !std::isfinite(*v))
        throw at(s.param_line,
                 fmt::format("{}: expected a finite number, got \"{}\"", w, shown(words[k])));
      return *v;
    };
    if (w == "N") {
      if (k + 1 >= words.size()) throw at(s.param_line, "N needs the number of points");
      const auto v = integer_of(words[++k]);
      if (!v)
        throw at(s.param_line, fmt::format("N: expected an integer, got \"{}\"", shown(words[k])));
      n = *v;
    } else if (w == "R" || w == "RSQ") {
      s.spacing = w == "R" ? Spacing::R : Spacing::RSQ;
      s.rlo = value("rlo and rhi");
      s.rhi = value("rlo and rhi");
    } else if (w == "FPRIME") {
      s.fprime = true;
      s.fplo = value("fplo and fphi");
      s.fphi = value("fplo and fphi");
    } else if (w == "BITMAP") {
      throw at(s.param_line,
               "BITMAP tables are not supported (only the linear and spline table "
               "styles are): write the table with R, RSQ or its own r column");
    } else {
      throw at(s.param_line,
               fmt::format("unknown word \"{}\" in the parameter line (expected N n [R|RSQ rlo "
                           "rhi] [FPRIME fplo fphi])",
                           shown(w)));
    }
  }
  if (n == 0) throw at(s.param_line, "the parameter line does not set N (N n: the point count)");
  if (n < 2 || n > (1LL << 24))
    throw at(s.param_line, fmt::format("N = {}: a table has 2 to 2^24 points", n));
  if (s.spacing != Spacing::File && !(s.rlo < s.rhi))
    throw at(s.param_line, fmt::format("{} {} {}: rlo must be below rhi",
                                       s.spacing == Spacing::R ? "R" : "RSQ", s.rlo, s.rhi));
  // LAMMPS skips the line after the parameter line whatever it holds: it must be blank here, so
  // that no point is lost unseen.
  if (const auto skipped = lines.raw()) {
    std::string_view l = *skipped;
    if (const auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
    if (l.find_first_not_of(" \t\r\f\v") != std::string_view::npos)
      throw at(lines.number,
               fmt::format("expected a blank line after the parameter line (LAMMPS skips this "
                           "line), got \"{}\"",
                           shown(*skipped)));
  }
  const std::size_t count = static_cast<std::size_t>(n);
  for (std::size_t i = 0; i < count; ++i) {  // (grown as read: N may promise more than is there)
    const auto line = lines.next();
    if (!line)
      throw at(lines.number,
               fmt::format("the file ends after {} of the {} points of section \"{}\" (N {} at "
                           "line {})",
                           i, n, shown(keyword), n, s.param_line));
    const auto w = words_of(*line);
    std::optional<double> v[3];
    if (w.size() >= 4) {
      for (int c = 0; c < 3; ++c) v[c] = number_of(w[static_cast<std::size_t>(c) + 1]);
    }
    if (w.size() < 4 || !integer_of(w[0]) || !v[0] || !v[1] || !v[2])
      throw at(lines.number, fmt::format("point {} of {}: expected \"index r e f\", got \"{}\"",
                                         i + 1, n, shown(*line)));
    if (!std::isfinite(*v[0]) || !std::isfinite(*v[1]) || !std::isfinite(*v[2]))
      throw at(lines.number,
               fmt::format("point {} of {}: r, e and f must be finite numbers (got \"{}\")", i + 1,
                           n, shown(*line)));
    // R / RSQ: r from the spacing, as LAMMPS computes it.
    double r = *v[0];
    if (s.spacing == Spacing::R) {
      r = s.rlo + (s.rhi - s.rlo) * static_cast<double>(i) / static_cast<double>(n - 1);
    } else if (s.spacing == Spacing::RSQ) {
      r = s.rlo * s.rlo +
          (s.rhi * s.rhi - s.rlo * s.rlo) * static_cast<double>(i) / static_cast<double>(n - 1);
      r = std::sqrt(r);
    }
    if (i > 0 && !(r > s.r[i - 1]))
      throw at(lines.number, fmt::format("point {} of {}: r = {} does not increase (the point "
                                         "before has r = {})",
                                         i + 1, n, r, s.r[i - 1]));
    s.r.push_back(r);
    s.e.push_back(*v[1]);
    s.f.push_back(*v[2]);
  }
  return s;
}

Section read_section(const std::string& path, const std::string& keyword) {
  return parse_section(read_potential_file(path, "table file"), path, keyword);
}

std::string cutoff_problem(const Section& s, double cutoff) {
  const double lo = s.inner(), hi = s.outer();
  if (!(lo > 0.0))
    return fmt::format("the table starts at r = {}: its inner radius must be > 0", lo);
  if (!(cutoff > lo) || cutoff > hi)
    return fmt::format("the cutoff {} is outside the table, which spans r = {} .. {}{}", cutoff, lo,
                       hi, cutoff > hi ? ": the table does not reach the cutoff" : "");
  return {};
}

Internal build(const Section& s, Interpolation style, int points, double cutoff) {
  const int n_file = static_cast<int>(s.r.size());
  const int tlm1 = points - 1;
  Internal t;
  t.style = style;
  t.points = points;
  const double inner = s.inner();
  t.innersq = inner * inner;
  t.delta = (cutoff * cutoff - t.innersq) / tlm1;
  t.invdelta = 1.0 / t.delta;
  // The file's own values serve as they are when they lie on the internal points.
  const bool match = style == Interpolation::Linear && n_file == points &&
                     s.spacing == Spacing::RSQ && s.rhi == cutoff;
  std::vector<double> e2file, f2file;
  if (!match) {
    // Splines through the file's points in r: e with slope −f at both ends; f with the FPRIME
    // slopes, else the end secants.
    e2file = spline(s.r.data(), s.e.data(), n_file, -s.f[0], -s.f[n_file - 1]);
    const double fplo = s.fprime ? s.fplo : (s.f[1] - s.f[0]) / (s.r[1] - s.r[0]);
    const double fphi =
        s.fprime ? s.fphi
                 : (s.f[n_file - 1] - s.f[n_file - 2]) / (s.r[n_file - 1] - s.r[n_file - 2]);
    f2file = spline(s.r.data(), s.f.data(), n_file, fplo, fphi);
  }
  const std::size_t N = static_cast<std::size_t>(points);
  t.arrays.assign(5 * N, 0.0);
  double* rsq = t.arrays.data();
  double* e = rsq + N;
  double* f = e + N;
  double* d1 = f + N;   // de (linear) or e2 (spline)
  double* d2 = d1 + N;  // df (linear) or f2 (spline)
  for (int i = 0; i < points; ++i) {
    const double x = t.innersq + i * t.delta;
    const double r = std::sqrt(x);
    rsq[i] = x;
    if (match) {
      e[i] = s.e[static_cast<std::size_t>(i)];
      f[i] = s.f[static_cast<std::size_t>(i)] / r;
    } else {
      e[i] = splint(s.r, s.e, e2file, r);
      f[i] = splint(s.r, s.f, f2file, r);
      if (style == Interpolation::Linear) f[i] = f[i] / r;
    }
  }
  if (style == Interpolation::Linear) {
    for (int i = 0; i < tlm1; ++i) {
      d1[i] = e[i + 1] - e[i];
      d2[i] = f[i + 1] - f[i];
    }
    return t;
  }
  t.deltasq6 = t.delta * t.delta / 6.0;
  // e in r²: end slopes dE/d(r²) = −f/(2r).
  const double ep0 = -f[0] / (2.0 * std::sqrt(t.innersq));
  const double epn = -f[tlm1] / (2.0 * cutoff);
  const std::vector<double> e2 = spline(rsq, e, points, ep0, epn);
  // f/r in r²: end slopes d(f/r)/d(r²) from FPRIME, else secants over a tenth of a bin.
  constexpr double kSecant = 0.1;
  double fp0 = 0.0, fpn = 0.0;
  if (s.fprime) {
    fp0 = (s.fplo / std::sqrt(t.innersq) - f[0] / t.innersq) / (2.0 * std::sqrt(t.innersq));
  } else {
    const double rsq1 = t.innersq;
    const double rsq2 = rsq1 + kSecant * t.delta;
    fp0 = (splint(s.r, s.f, f2file, std::sqrt(rsq2)) / std::sqrt(rsq2) - f[0] / std::sqrt(rsq1)) /
          (kSecant * t.delta);
  }
  if (s.fprime && cutoff == s.r[static_cast<std::size_t>(n_file - 1)]) {
    fpn = (s.fphi / cutoff - f[tlm1] / (cutoff * cutoff)) / (2.0 * cutoff);
  } else {
    const double rsq2 = cutoff * cutoff;
    const double rsq1 = rsq2 - kSecant * t.delta;
    fpn =
        (f[tlm1] / std::sqrt(rsq2) - splint(s.r, s.f, f2file, std::sqrt(rsq1)) / std::sqrt(rsq1)) /
        (kSecant * t.delta);
  }
  for (int i = 0; i < points; ++i) f[i] /= std::sqrt(rsq[i]);
  const std::vector<double> f2 = spline(rsq, f, points, fp0, fpn);
  std::copy(e2.begin(), e2.end(), d1);
  std::copy(f2.begin(), f2.end(), d2);
  return t;
}

}  // namespace scanmd::table

namespace scanmd {

std::variant<std::vector<double>, StyleKeyProblem> Table::tabulate(const Coefficients& c,
                                                                   const StringValues& s,
                                                                   double cutoff,
                                                                   const std::string& base_dir) {
  const std::string& style = s.at("table_style");
  if (style != "linear" && style != "spline")
    return StyleKeyProblem{"table_style",
                           fmt::format("must be \"linear\" or \"spline\" (got \"{}\"; LAMMPS's "
                                       "lookup and bitmap are not offered)",
                                       style)};
  const table::Interpolation how =
      style == "spline" ? table::Interpolation::Spline : table::Interpolation::Linear;
  const std::string& file = s.at("file");
  if (file.empty()) return StyleKeyProblem{"file", "must name a table file (got \"\")"};
  const std::string path = base_dir.empty() || file.front() == '/' ? file : base_dir + "/" + file;
  table::Section section;
  try {
    section = table::read_section(path, s.at("keyword"));
  } catch (const table::KeywordError& e) {
    return StyleKeyProblem{"keyword", e.what()};
  } catch (const table::FileError& e) {
    return StyleKeyProblem{"file", e.what()};
  }
  if (const std::string why = table::cutoff_problem(section, cutoff); !why.empty())
    return StyleKeyProblem{"cutoff", fmt::format("{} (table file {}, section \"{}\", line {})", why,
                                                 path, s.at("keyword"), section.param_line)};
  const table::Internal t = table::build(section, how, static_cast<int>(c[kPoints]), cutoff);
  std::vector<double> block(kHeaderSize);
  block[kHeaderPoints] = t.points;
  block[kHeaderSpline] = how == table::Interpolation::Spline ? 1.0 : 0.0;
  block[kHeaderInnerSq] = t.innersq;
  block[kHeaderInvDelta] = t.invdelta;
  block[kHeaderDeltaSq6] = t.deltasq6;
  for (const double v : t.arrays)
    if (!std::isfinite(v))
      return StyleKeyProblem{"file", fmt::format("{}: the table interpolated from section \"{}\" "
                                                 "holds values that are not finite",
                                                 path, s.at("keyword"))};
  block.insert(block.end(), t.arrays.begin(), t.arrays.end());
  return block;
}

}  // namespace scanmd
