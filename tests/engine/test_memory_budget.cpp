// tests/engine/test_memory_budget.cpp — the memory estimate per pair style
// (engine/memory_budget.hpp): a tabulated style's data is counted, one block of 5 × table_points
// doubles per unordered pair of types, on top of what the same run costs with Lennard-Jones.
#include <gtest/gtest.h>

#include "engine/config.hpp"
#include "engine/memory_budget.hpp"

namespace scanmd {
namespace {

SimulationConfig two_type_run(const std::string& style) {
  SimulationConfig c;
  c.system.cells = {8, 8, 8};
  c.system.type_fractions = {0.5, 0.5};
  c.system.mass = {1.0};
  c.potential.style = style;
  c.potential.cutoff = 2.5;
  if (style == "table") c.potential.coeffs["table_points"] = 1 << 20;
  return c;
}

double estimate(const SimulationConfig& c) {
  const Box box = Box::make(initial_box_length(c.system));
  return estimate_rank_memory(c, RankGrid({1, 1, 1}, box), 0, 2048, 0).bytes;
}

TEST(MemoryBudget, CountsATablesDataPerPairOfTypes) {
  const MemoryEstimate table = estimate_rank_memory(
      two_type_run("table"),
      RankGrid({1, 1, 1}, Box::make(initial_box_length(two_type_run("table").system))), 0, 2048, 0);
  // Three unordered pairs of types, each 5 × 2^20 doubles (and a header).
  const double data = 3.0 * 5.0 * (1 << 20) * 8.0;
  EXPECT_GE(table.pair_bytes, data);
  EXPECT_LT(table.pair_bytes, data + 4096.0);
  // The rest of the estimate is the style's: the same run with lj differs by the data only
  // (and the tenth the estimate adds on top of every term).
  const double extra = estimate(two_type_run("table")) - estimate(two_type_run("lj"));
  EXPECT_GT(extra, data);
  EXPECT_LT(extra, 1.1 * data + 8192.0);
}

}  // namespace
}  // namespace scanmd
