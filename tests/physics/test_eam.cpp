// EAM files and splines (physics/manybody/eam_file.hpp, eam.hpp) against independent oracles:
// the spline reproduces a cubic exactly inside the table (LAMMPS's 5-point slopes and Hermite
// cubics are exact for polynomials of degree ≤ 3), a single funcfl file's grid is the file's own
// values, the embedding beyond ρ_max is F' of the last point with the energy continued linearly,
// and every kind of bad file is refused naming the file and line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "physics/manybody/eam.hpp"
#include "physics/manybody/eam_file.hpp"

namespace {

using namespace scanmd;
using ::testing::HasSubstr;

double cubic(double x) {
  return 0.5 - 1.25 * x + 0.75 * x * x - 0.125 * x * x * x;
}
double cubic_slope(double x) {
  return -1.25 + 1.5 * x - 0.375 * x * x;
}

TEST(EamSpline, ReproducesACubicInsideTheTable) {
  const int n = 40;
  const double delta = 0.1;
  std::vector<double> f(n + 1), spline((n + 1) * 7);
  for (int m = 1; m <= n; ++m) f[m] = cubic((m - 1) * delta);
  eam::interpolate(n, delta, f.data(), spline.data());
  // Intervals whose both ends have the 5-point slope (m = 3 .. n − 3).
  for (int m = 3; m <= n - 3; ++m)
    for (const double p : {0.0, 0.25, 0.5, 0.9}) {
      const double x = (m - 1 + p) * delta;
      const double* c = &spline[static_cast<std::size_t>(m) * 7];
      EXPECT_NEAR(eam_value(c, p), cubic(x), 1e-13) << "m " << m << " p " << p;
      EXPECT_NEAR(eam_slope(c, p), cubic_slope(x), 1e-12) << "m " << m << " p " << p;
    }
}

// A funcfl file of n points per function: F(ρ) = cubic(ρ), Z(r) = 1 + r, ρ(r) = exp(−r).
std::string funcfl_text(int n, double drho, double dr, double cut) {
  std::string s = "test funcfl\n29 63.55 3.615 FCC\n";
  s += fmt::format("{} {:.17g} {} {:.17g} {:.17g}\n", n, drho, n, dr, cut);
  auto block = [&](auto&& g, double d) {
    for (int m = 0; m < n; ++m) s += fmt::format("{:.17g}{}", g(m * d), m % 5 == 4 ? "\n" : " ");
    if (n % 5 != 0) s += "\n";
  };
  block([](double x) { return cubic(x); }, drho);
  block([](double x) { return 1.0 + x; }, dr);
  block([](double x) { return std::exp(-x); }, dr);
  return s;
}

TEST(EamFuncfl, ReadsTheFileAndGridsItOnItsOwnPoints) {
  const eam::Funcfl f = eam::parse_funcfl(funcfl_text(50, 0.05, 0.1, 4.5), "t.eam");
  EXPECT_EQ(f.nrho, 50);
  EXPECT_EQ(f.nr, 50);
  EXPECT_DOUBLE_EQ(f.mass, 63.55);
  EXPECT_DOUBLE_EQ(f.cut, 4.5);
  EXPECT_DOUBLE_EQ(f.frho[1], cubic(0.0));
  EXPECT_DOUBLE_EQ(f.rhor[50], std::exp(-4.9));
  const eam::Tables t = eam::tables_from_funcfl({f}, {0});
  // LAMMPS's grid: nr = (n − 1)·dr / dr points, each a file point (Lagrange at a node).
  EXPECT_EQ(t.nr, 49);
  EXPECT_EQ(t.nrho, 49);
  for (int m = 1; m <= t.nr; ++m) {
    EXPECT_NEAR(t.rhor_grid[m], f.rhor[m], 1e-15) << m;
    EXPECT_NEAR(t.z2r_grid[m], 27.2 * 0.529 * f.zr[m] * f.zr[m], 1e-12) << m;
  }
  EXPECT_EQ(t.mass, std::vector<double>{63.55});
}

TEST(EamEmbedding, BeyondTheTableTakesTheLastSlopeAndExtendsLinearly) {
  const eam::Funcfl f = eam::parse_funcfl(funcfl_text(50, 0.05, 0.1, 4.5), "t.eam");
  const eam::Tables t = eam::tables_from_funcfl({f}, {0});
  const EamView v = t.view();
  const EamEmbedding at_max = eam_embedding(v, 0, t.rhomax);
  const EamEmbedding beyond = eam_embedding(v, 0, t.rhomax + 0.5);
  EXPECT_EQ(beyond.fp, at_max.fp);
  EXPECT_NEAR(beyond.energy, at_max.energy + 0.5 * at_max.fp, 1e-12);
  EXPECT_TRUE(eam_density_outside(v, t.rhomax + 0.5));
  EXPECT_FALSE(eam_density_outside(v, 0.5 * t.rhomax));
  // Inside: the cubic F and its slope (exact for a cubic away from the ends).
  EXPECT_NEAR(eam_embedding(v, 0, 1.0).energy, cubic(1.0), 1e-12);
  EXPECT_NEAR(eam_embedding(v, 0, 1.0).fp, cubic_slope(1.0), 1e-10);
}

std::string setfl_text(bool fs, int n = 10) {
  std::string s = "c1\nc2\nc3\n2 Ni Cu\n";
  s += fmt::format("{} 0.1 {} 0.1 0.8\n", n, n);
  auto block = [&](double v) {
    for (int m = 0; m < n; ++m) s += fmt::format("{} ", v + m);
    s += "\n";
  };
  for (int e = 0; e < 2; ++e) {
    s += fmt::format("{} {} 3.5 fcc\n", 28 + e, 58.69 + 5 * e);
    block(100 * e);                                                         // F
    for (int k = 0; k < (fs ? 2 : 1); ++k) block(1000 + 100 * e + 10 * k);  // ρ
  }
  for (int k = 0; k < 3; ++k) block(5000 + 100 * k);  // r·φ: Ni-Ni, Cu-Ni, Cu-Cu
  return s;
}

TEST(EamSetfl, MapsTypesToElementsAsLammps) {
  for (const bool fs : {false, true}) {
    SCOPED_TRACE(fs ? "fs" : "setfl");
    const eam::Setfl s = eam::parse_setfl(setfl_text(fs), "t.alloy", fs);
    EXPECT_EQ(s.elements, (std::vector<std::string>{"Ni", "Cu"}));
    // type 1 = Cu, type 2 = Ni
    const eam::Tables t = eam::tables_from_setfl(s, {1, 0});
    EXPECT_EQ(t.mass, (std::vector<double>{63.69, 58.69}));
    const EamView v = t.view();
    const EamPoint a{1, 0.0};  // r = 0: the first value of each function
    // The pair function of Cu-Cu is the third block, Cu-Ni the second.
    EXPECT_DOUBLE_EQ(eam_value(eam_coeff(v.z2r, v.nr, v.type2z2r[0], a.m), 0.0), 5200.0);
    EXPECT_DOUBLE_EQ(eam_value(eam_coeff(v.z2r, v.nr, v.type2z2r[1], a.m), 0.0), 5100.0);
    EXPECT_EQ(v.type2z2r[1], v.type2z2r[2]);
    // ρ at a Ni (type 2) due to a Cu (type 1): setfl, Cu's function (1100); fs, Cu's block's
    // function for Ni (LAMMPS rhor[Cu][Ni]: 1100).
    EXPECT_DOUBLE_EQ(eam_density(v, 1, 0, a), 1100.0);
    // ρ at a Cu due to a Ni: setfl, Ni's (1000); fs, Ni's block's second function (1010).
    EXPECT_DOUBLE_EQ(eam_density(v, 0, 1, a), fs ? 1010.0 : 1000.0);
    // F of Cu.
    EXPECT_DOUBLE_EQ(eam_value(eam_coeff(v.frho, v.nrho, v.type2frho[0], 1), 0.0), 100.0);
  }
}

void expect_error(const std::string& text, bool setfl, const std::string& what) {
  try {
    if (setfl)
      eam::parse_setfl(text, "bad.eam", false);
    else
      eam::parse_funcfl(text, "bad.eam");
    ADD_FAILURE() << "accepted; expected " << what;
  } catch (const eam::FileError& e) {
    EXPECT_THAT(e.what(), HasSubstr(what));
  }
}

TEST(EamFiles, BadFilesAreRefusedNamingFileAndLine) {
  const std::string good = funcfl_text(10, 0.1, 0.1, 0.8);
  // Truncated: the last line gone.
  expect_error(good.substr(0, good.rfind('\n', good.size() - 2) + 1), false,
               "bad.eam:8: the file ends after 5 of the 10 values of rho(r)");
  expect_error("c\n29 63.5\n", false, "bad.eam:2: the file ends before the grid line");
  // A word that is no number, a non-finite value.
  std::string word = good;
  word.replace(word.find("0.5 "), 3, "abc");
  expect_error(word, false, "bad.eam:4: F(rho): 'abc' is not a number");
  std::string inf = good;
  inf.replace(inf.find("0.5 "), 3, "inf");
  expect_error(inf, false, "bad.eam:4: F(rho): inf is not finite");
  std::string nan = good;
  nan.replace(nan.find("0.5 "), 3, "nan");
  expect_error(nan, false, "not finite");
  // Counts the file cannot hold; too few points; spacings.
  expect_error("c\n29 63.5\n100000000 0.1 10 0.1 0.8\n", false,
               "bad.eam:3: nrho = 100000000 and nr = 10 call for");
  expect_error("c\n29 63.5\n4 0.1 10 0.1 0.8\n", false, "bad.eam:3: nrho = 4");
  expect_error("c\n29 63.5\n10 0.1 10 -0.1 0.8\n", false, "bad.eam:3: dr = -0.1 must be > 0");
  expect_error("c\n29 63.5\n10 0.1 1e3 0.1 0.8\n", false, "bad.eam:3: nr: '1e3' is not an integer");
  // setfl: element names that do not match the count, a missing element block.
  expect_error("c1\nc2\nc3\n2 Ni\n", true, "bad.eam:4: 1 element name for 2 elements");
  const std::string alloy = setfl_text(false);
  expect_error(alloy.substr(0, alloy.rfind('\n', alloy.size() - 2) + 1), true,
               "bad.eam:13: the file ends after 0 of the 10 values of r*phi(r) of Cu-Cu");
  expect_error(alloy.substr(0, alloy.find("28 58.69")), true, "call for 70 values");
}

}  // namespace
