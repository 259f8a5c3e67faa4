// The table style (physics/pair/table.hpp, physics/pair/table_file.hpp): a LAMMPS table file of a
// smooth analytic function, read and interpolated onto the internal table, must give back the
// function between the points (linear: to O(Δ²); spline: far closer), the file's own values at
// the points of a table that matches them, NaN inside the inner radius; the reader's errors name
// the file and the line; PairPotential's errors name the deck key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "physics/pair/pair_potential.hpp"
#include "physics/pair/table.hpp"
#include "physics/pair/table_file.hpp"

namespace scanmd {
namespace {

using ::testing::HasSubstr;

// U(r) = e^(−r) cos(2r) + 1/r²: smooth, with curvature of both signs over [0.8, 3].
double u_of(double r) {
  return std::exp(-r) * std::cos(2 * r) + 1 / (r * r);
}
double f_of(double r) {  // −dU/dr
  return std::exp(-r) * (std::cos(2 * r) + 2 * std::sin(2 * r)) + 2 / (r * r * r);
}
double df_of(double r) {  // dF/dr (FPRIME)
  return std::exp(-r) * (3 * std::cos(2 * r) - 4 * std::sin(2 * r)) - 6 / (r * r * r * r);
}

// A file section of n points from r = 0.8 to 3 (own r column), or in the given spacing line.
std::string section_text(const std::string& keyword, int n, const std::string& spacing = "") {
  std::string s = fmt::format("# a comment\n\n{}\nN {} {}\n\n", keyword, n, spacing);
  for (int i = 0; i < n; ++i) {
    double r = 0.8 + (3.0 - 0.8) * i / (n - 1);
    if (spacing.starts_with("RSQ")) r = std::sqrt(0.64 + (9.0 - 0.64) * i / (n - 1));
    s += fmt::format("{} {:.17g} {:.17g} {:.17g}\n", i + 1, r, u_of(r), f_of(r));
  }
  return s;
}

struct Built {
  std::vector<double> block;
  Table::Params p;
};
Built built(const table::Section& s, table::Interpolation how, int points, double cutoff) {
  const table::Internal t = table::build(s, how, points, cutoff);
  Built b;
  b.block = {static_cast<double>(t.points), how == table::Interpolation::Spline ? 1.0 : 0.0,
             t.innersq, t.invdelta, t.deltasq6};
  b.block.insert(b.block.end(), t.arrays.begin(), t.arrays.end());
  b.p = Table::make({}, cutoff, false, b.block.data());
  return b;
}

// Largest error of F and U over r in (0.8, cutoff), relative to max(|value|, 1).
std::pair<double, double> max_error(const Table::Params& p, double cutoff) {
  double ef = 0, eu = 0;
  for (int k = 1; k < 5000; ++k) {
    const double r = 0.8 + (cutoff - 0.8) * (k + 0.37) / 5001.0;
    const PairTerms<double> t = Table::eval(r * r, p);
    ef = std::max(ef, std::fabs(t.fpair * r - f_of(r)) / std::max(1.0, std::fabs(f_of(r))));
    eu = std::max(eu, std::fabs(t.energy - u_of(r)) / std::max(1.0, std::fabs(u_of(r))));
  }
  return {ef, eu};
}

TEST(TableStyle, LinearAndSplineFollowTheAnalyticFunction) {
  // The file's end slopes of F exact (FPRIME): the splines through its points are then O(h⁴).
  const table::Section s = table::parse_section(
      section_text("F", 400, fmt::format("FPRIME {:.17g} {:.17g}", df_of(0.8), df_of(3.0))),
      "f.table", "F");
  ASSERT_EQ(s.r.size(), 400u);
  const auto [lf, lu] = max_error(built(s, table::Interpolation::Linear, 2000, 3.0).p, 3.0);
  const auto [sf, su] = max_error(built(s, table::Interpolation::Spline, 2000, 3.0).p, 3.0);
  // Linear in r² over bins of Δ(r²) ≈ 4e-3: errors ~ Δ²/8 · |d²F/d(r²)²|; the cubic splines
  // far below.
  EXPECT_LT(lf, 1e-4);
  EXPECT_LT(lu, 1e-4);
  EXPECT_LT(sf, 1e-7);
  EXPECT_LT(su, 1e-7);
  // Halving the bins quarters the linear error.
  const auto [lf2, lu2] = max_error(built(s, table::Interpolation::Linear, 4000, 3.0).p, 3.0);
  EXPECT_LT(lf2, 0.3 * lf);
  EXPECT_LT(lu2, 0.3 * lu);
  // Without FPRIME (end secants) and below the file's end, LAMMPS's construction stays close.
  const table::Section plain = table::parse_section(section_text("F", 400), "f.table", "F");
  const auto [pf, pu] = max_error(built(plain, table::Interpolation::Spline, 2000, 2.9).p, 2.9);
  EXPECT_LT(pf, 1e-4);
  EXPECT_LT(pu, 1e-6);
}

TEST(TableStyle, AMatchingRsqTableKeepsTheFilesValuesAtItsPoints) {
  const table::Section s =
      table::parse_section(section_text("M", 300, "RSQ 0.8 3.0"), "m.table", "M");
  const Built b = built(s, table::Interpolation::Linear, 300, 3.0);
  const double* e = b.p.data + 300;
  const double* f = e + 300;
  for (std::size_t i = 0; i < 300; ++i) {
    const double r2 = b.p.data[i];
    EXPECT_EQ(e[i], s.e[i]);
    EXPECT_EQ(f[i], s.f[i] / std::sqrt(r2));
    if (i == 299) break;
    // At the point itself (or a rounding below it, the end of the bin before).
    const PairTerms<double> t = Table::eval(r2, b.p);
    EXPECT_NEAR(t.energy, s.e[i], 1e-14 * std::max(1.0, std::fabs(s.e[i])));
    EXPECT_NEAR(t.fpair, f[i], 1e-14 * std::max(1.0, std::fabs(f[i])));
  }
}

TEST(TableStyle, RAndRsqSpacingReplaceTheFilesColumn) {
  const table::Section r = table::parse_section(section_text("A", 11, "R 1.0 2.0"), "a", "A");
  EXPECT_EQ(r.r[5], 1.0 + (2.0 - 1.0) * 5.0 / 10.0);
  const table::Section q =
      table::parse_section(section_text("B", 11, "RSQ 0.8 3.0 FPRIME 1 2"), "b", "B");
  EXPECT_EQ(q.r[10], 3.0);
  EXPECT_TRUE(q.fprime);
  EXPECT_EQ(q.fphi, 2.0);
}

TEST(TableStyle, InsideTheInnerRadiusForceIsNaN) {
  const table::Section s = table::parse_section(section_text("F", 50), "f.table", "F");
  const Built b = built(s, table::Interpolation::Spline, 100, 2.5);
  EXPECT_TRUE(std::isnan(Table::eval(0.7 * 0.7, b.p).fpair));
  EXPECT_FALSE(std::isnan(Table::eval(0.8 * 0.8, b.p).fpair));
  EXPECT_THAT(Table::overflow_cause(0.7, b.p, ""), HasSubstr("inner radius 0.8"));
}

std::string file_error(const std::string& text, const std::string& keyword = "F") {
  try {
    table::parse_section(text, "t.table", keyword);
  } catch (const table::FileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TableFile, ErrorsNameTheFileAndTheLine) {
  const std::string good = section_text("F", 5);  // keyword at line 3, points at lines 6..10
  EXPECT_THAT(file_error(good, "G"), HasSubstr("t.table: no section \"G\""));
  std::string fewer = good.substr(0, good.rfind("5 "));
  EXPECT_THAT(file_error(fewer), HasSubstr("t.table:9: the file ends after 4 of the 5 points"));
  std::string nan = good;
  nan.replace(nan.find("3 "), 1, "3 nan 1 2\n#");
  EXPECT_THAT(file_error(nan), HasSubstr("t.table:8: point 3 of 5: r, e and f must be finite"));
  std::string word = good;
  word.replace(word.find("2 "), 1, "2 0.9 x");
  EXPECT_THAT(file_error(word), HasSubstr("t.table:7: point 2 of 5: expected \"index r e f\""));
  EXPECT_THAT(file_error("F\nN 5 BITMAP 1 2\n\n"), HasSubstr("t.table:2: BITMAP tables"));
  EXPECT_THAT(file_error("F\nN 5 RQ 1 2\n\n"), HasSubstr("t.table:2: unknown word \"RQ\""));
  EXPECT_THAT(file_error("F\nR 1 2\n\n"),
              HasSubstr("t.table:2: the parameter line does not set N"));
  EXPECT_THAT(file_error("F\nN 1\n\n1 1 1 1\n"), HasSubstr("N = 1: a table has 2 to 2^24 points"));
  EXPECT_THAT(file_error("F\nN 2\n1 1 1 1\n2 2 1 1\n"),
              HasSubstr("t.table:3: expected a blank line after the parameter line"));
  EXPECT_THAT(file_error("F\nN 2\n\n1 1 1 1\n2 1 1 1\n"),
              HasSubstr("t.table:5: point 2 of 2: r = 1 "
                        "does not increase"));
}

// PairPotential from a deck's [potential] of style table: the file is read, and what cannot be
// used names its key.
struct Files {
  std::filesystem::path dir;
  Files() {
    dir = std::filesystem::temp_directory_path() /
          fmt::format("scanmd_test_table_{}", static_cast<long>(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "f.table") << section_text("F", 200);
  }
  ~Files() { std::filesystem::remove_all(dir); }
};

std::string species_error(const PotentialSection& p, int types = 1) {
  try {
    PairPotential::make(p, types);
  } catch (const SpeciesError& e) {
    return e.key() + ": " + e.what();
  }
  return "no error";
}

TEST(TableStyle, PairPotentialReadsTheFileRelativeToTheDeck) {
  const Files files;
  PotentialSection p;
  p.style = "table";
  p.base_dir = files.dir.string();
  p.cutoff = 2.5;
  p.coeffs = {{"table_points", 1000}};
  p.strings = {{"file", "f.table"}, {"keyword", "F"}, {"table_style", "spline"}};
  const PairPotential pot = PairPotential::make(p, 1);
  pot.visit([&]<class E>(const StyleTable<E>& t) {
    if constexpr (std::is_same_v<E, Table>) {
      ASSERT_TRUE(t.data);
      EXPECT_EQ(t.data->size(), Table::kHeaderSize + 5 * 1000u);
      const PairTerms<double> v = Table::eval(1.7 * 1.7, t.params[0]);
      EXPECT_NEAR(v.energy, u_of(1.7), 1e-8);
      // A copy keeps its pointers valid (the data is shared).
      const PairPotential copy = pot;
      EXPECT_EQ(std::get<StyleTable<Table>>(copy.tables()).params[0].data, t.params[0].data);
    } else {
      ADD_FAILURE() << "not the table style";
    }
  });

  PotentialSection q = p;
  q.strings["file"] = "missing.table";
  EXPECT_THAT(species_error(q), HasSubstr("potential.file: cannot open table file"));
  q = p;
  q.strings["keyword"] = "H";
  EXPECT_THAT(species_error(q), HasSubstr("potential.keyword: "));
  EXPECT_THAT(species_error(q), HasSubstr("no section \"H\""));
  q = p;
  q.cutoff = 3.5;
  EXPECT_THAT(species_error(q), HasSubstr("potential.cutoff: the cutoff 3.5 is outside the table"));
  q = p;
  q.coeffs["table_points"] = 10.5;
  EXPECT_THAT(species_error(q), HasSubstr("potential.table_points: must be a whole number"));
  q = p;
  q.strings["table_style"] = "cubic";
  EXPECT_THAT(species_error(q), HasSubstr("potential.table_style: must be \"linear\" or"));
  q = p;
  q.strings.erase("table_style");
  EXPECT_THAT(species_error(q), HasSubstr("needs potential.table_style"));
  q = p;
  q.strings.erase("keyword");
  EXPECT_THAT(species_error(q), HasSubstr("needs potential.keyword"));
  // Two types: every pair listed, a file problem blames the pair's table.
  q = p;
  q.strings = {{"table_style", "linear"}};
  q.pairs = {{{1, 1}, {}, {}, {{"file", "f.table"}, {"keyword", "F"}}},
             {{1, 2}, {}, 2.0, {{"file", "f.table"}, {"keyword", "F"}}},
             {{2, 2}, {}, {}, {{"file", "nope.table"}, {"keyword", "F"}}}};
  EXPECT_THAT(species_error(q, 2), HasSubstr("potential.pair[2]: cannot open table file"));
  q.pairs[2].strings["file"] = "f.table";
  EXPECT_EQ(species_error(q, 2), "no error");
  q.pairs.pop_back();
  EXPECT_THAT(species_error(q, 2), HasSubstr("no coefficients for types [2, 2]"));
}

}  // namespace
}  // namespace scanmd
