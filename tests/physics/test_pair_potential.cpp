// tests/physics/test_pair_potential.cpp — the pair potential built from deck coefficients
// (physics/pair/pair_potential.hpp): style names and aliases, the style's defaults, coefficient
// domains, missing and foreign coefficients, each error blaming the right deck key.
//
// Oracle: the contract in pair_potential.hpp and each style's kCoefficients / kDefaults /
// kDomains; the force constants against the evaluator's own make() (same bits).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <variant>

#include "physics/pair/pair_potential.hpp"

namespace scanmd {
namespace {

// The key and message of make()'s SpeciesError ("" when it succeeds).
std::pair<std::string, std::string> error_of(const PotentialSection& p, int types = 1) {
  try {
    (void)PairPotential::make(p, types);
  } catch (const SpeciesError& e) {
    return {e.key(), e.what()};
  }
  return {};
}

TEST(PairPotential, StyleNamesAndAliases) {
  EXPECT_EQ(canonical_pair_style("lj"), "lj");
  EXPECT_EQ(canonical_pair_style("lj/cut"), "lj");
  EXPECT_EQ(canonical_pair_style("lj/long"), "");
  PotentialSection p;
  p.style = "lj/cut";
  EXPECT_EQ(PairPotential::make(p, 1).style(), "lj");
  p.style = "nonsense";
  const auto [key, what] = error_of(p);
  EXPECT_EQ(key, "potential.style");
  EXPECT_NE(what.find("unknown pair style \"nonsense\""), std::string::npos) << what;
}

TEST(PairPotential, OneSpeciesTakesTheStylesDefaultsAndItsBits) {
  PotentialSection p;  // lj, no coefficients given: ε = σ = 1
  p.cutoff = 2.5;
  const PairPotential pot = PairPotential::make(p, 1);
  const LJCut::Params want = LJCut::make({1.0, 1.0}, 2.5, false);
  const auto& got = std::get<StyleTable<LJCut>>(pot.tables()).params.at(0);
  EXPECT_EQ(std::memcmp(&got, &want, sizeof want), 0);
  EXPECT_EQ(pot.max_cutoff(), 2.5);
  EXPECT_EQ(pot.key_of(0, 0, "sigma"), "potential.sigma");
}

TEST(PairPotential, DomainsAndMissingCoefficientsNameTheKey) {
  PotentialSection p;
  p.coeffs = {{"sigma", 0.0}};
  auto [key, what] = error_of(p);
  EXPECT_EQ(key, "potential.sigma");
  EXPECT_EQ(what, "must be > 0 (got 0)");
  p.coeffs = {{"epsilon", -1.0}};
  std::tie(key, what) = error_of(p);
  EXPECT_EQ(key, "potential.epsilon");
  EXPECT_EQ(what, "must be >= 0 (got -1)");
  // A pair table entry without sigma: the entry is blamed, the coefficient named.
  p = PotentialSection{};
  p.pairs = {{{1, 1}, {{"epsilon", 1.0}}, std::nullopt}};
  std::tie(key, what) = error_of(p);
  EXPECT_EQ(key, "potential.pair[0]");
  EXPECT_NE(what.find("needs sigma"), std::string::npos) << what;
  // An entry's coefficient out of its domain names the coefficient too.
  p.pairs = {{{1, 1}, {{"epsilon", 1.0}, {"sigma", -2.0}}, std::nullopt}};
  std::tie(key, what) = error_of(p);
  EXPECT_EQ(key, "potential.pair[0]");
  EXPECT_NE(what.find("sigma must be > 0 (got -2)"), std::string::npos) << what;
  // A name no coefficient of the style has.
  p.pairs = {{{1, 1}, {{"epsilon", 1.0}, {"sigma", 1.0}, {"kappa", 2.0}}, std::nullopt}};
  std::tie(key, what) = error_of(p);
  EXPECT_EQ(key, "potential.pair[0]");
  EXPECT_NE(what.find("kappa is not a coefficient of pair style \"lj\""), std::string::npos)
      << what;
}

}  // namespace
}  // namespace scanmd
