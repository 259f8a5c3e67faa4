// Unit tests of the input deck (io/deck.hpp): defaults, every key, --set overrides, the to_toml()
// round trip, and every error class with its exact file:line:col and key. The bad-deck catalogue
// (tests/io/bad_decks/, also run end-to-end through `scanmd run`) is checked here via load_deck.
#include "io/deck.hpp"

#include "physics/pair/styles.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace {

using scanmd::Backend;
using scanmd::Method;
using scanmd::io::Deck;
using scanmd::io::DeckError;
using scanmd::io::load_deck;
using scanmd::io::parse_deck;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

// The message of the DeckError that parsing throws ("" and a test failure when it does not throw).
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_deck(text, "d.toml", overrides);
  } catch (const DeckError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no DeckError for deck:\n" << text;
  return {};
}

std::string load_error_of(const std::string& path) {
  try {
    load_deck(path);
  } catch (const DeckError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no DeckError for " << path;
  return {};
}

void expect_same(const Deck& a, const Deck& b) {
  EXPECT_EQ(a.system.lattice, b.system.lattice);
  EXPECT_EQ(a.system.density, b.system.density);
  EXPECT_EQ(a.system.cells, b.system.cells);
  EXPECT_EQ(a.system.temperature, b.system.temperature);
  EXPECT_EQ(a.system.seed, b.system.seed);
  EXPECT_EQ(a.system.mass, b.system.mass);
  EXPECT_EQ(a.potential.style, b.potential.style);
  EXPECT_EQ(a.potential.coeffs, b.potential.coeffs);
  EXPECT_EQ(a.potential.strings, b.potential.strings);
  EXPECT_EQ(a.potential.cutoff, b.potential.cutoff);
  EXPECT_EQ(a.potential.shift, b.potential.shift);
  EXPECT_EQ(a.system.type_fractions, b.system.type_fractions);
  EXPECT_EQ(a.potential.tail, b.potential.tail);
  EXPECT_EQ(a.potential.mixing, b.potential.mixing);
  ASSERT_EQ(a.potential.pairs.size(), b.potential.pairs.size());
  for (std::size_t k = 0; k < a.potential.pairs.size(); ++k) {
    EXPECT_EQ(a.potential.pairs[k].types, b.potential.pairs[k].types);
    EXPECT_EQ(a.potential.pairs[k].values, b.potential.pairs[k].values);
    EXPECT_EQ(a.potential.pairs[k].cutoff, b.potential.pairs[k].cutoff);
    EXPECT_EQ(a.potential.pairs[k].strings, b.potential.pairs[k].strings);
  }
  EXPECT_EQ(a.region.style, b.region.style);
  EXPECT_EQ(a.region.axis, b.region.axis);
  EXPECT_EQ(a.region.lo, b.region.lo);
  EXPECT_EQ(a.region.hi, b.region.hi);
  EXPECT_EQ(a.region.center, b.region.center);
  EXPECT_EQ(a.region.radius, b.region.radius);
  EXPECT_EQ(a.neighbor.skin, b.neighbor.skin);
  EXPECT_EQ(a.run.dt, b.run.dt);
  EXPECT_EQ(a.run.steps, b.run.steps);
  EXPECT_EQ(a.run.backend, b.run.backend);
  EXPECT_EQ(a.decomposition.method, b.decomposition.method);
  EXPECT_EQ(a.decomposition.grid, b.decomposition.grid);
  EXPECT_EQ(a.decomposition.balance, b.decomposition.balance);
  EXPECT_EQ(a.decomposition.balance_every, b.decomposition.balance_every);
  EXPECT_EQ(a.decomposition.balance_tolerance, b.decomposition.balance_tolerance);
  EXPECT_EQ(a.thermostat.style, b.thermostat.style);
  EXPECT_EQ(a.thermostat.temperature, b.thermostat.temperature);
  EXPECT_EQ(a.thermostat.damping, b.thermostat.damping);
  EXPECT_EQ(a.thermostat.seed, b.thermostat.seed);
  EXPECT_EQ(a.thermostat.chain, b.thermostat.chain);
  EXPECT_EQ(a.output.data_file, b.output.data_file);
  EXPECT_EQ(a.output.thermo_every, b.output.thermo_every);
  EXPECT_EQ(a.output.trajectory, b.output.trajectory);
  EXPECT_EQ(a.output.trajectory_every, b.output.trajectory_every);
  EXPECT_EQ(a.output.trajectory_force, b.output.trajectory_force);
  EXPECT_EQ(a.output.checkpoint, b.output.checkpoint);
  EXPECT_EQ(a.output.checkpoint_every, b.output.checkpoint_every);
  EXPECT_EQ(a.output.overwrite, b.output.overwrite);
}

// Every key with a value different from its default.
const char* const kFullDeck = R"(# every key, none at its default
[system]
lattice = "fcc"
density = 0.9
cells = [10, 12, 14]
temperature = 0.0
seed = 12345
mass = 2.5

[potential]
style = "lj"
epsilon = 1.5
sigma = 0.9
cutoff = 3.0
shift = true
tail = true
mixing = "arithmetic"

[neighbor]
skin = 0.0

[run]
dt = 0.002
steps = 0
backend = "cuda"

[decomposition]
method = "neutral-territory"
grid = [2, 3, 4]
balance = "pairs"
balance_every = 500
balance_tolerance = 1.2

[thermostat]
style = "nose-hoover"
temperature = 0.7
damping = 0.25
seed = 99
chain = 5

[output]
thermo_every = 0
data_file = "final.data"
trajectory = "traj/out.h5"
trajectory_every = 10
trajectory_force = true
checkpoint = "chk.h5"
checkpoint_every = 1000
overwrite = true
)";

std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::path(::testing::TempDir()) / name;
  std::ofstream(p) << text;
  return p;
}

// ---------------------------------------------------------------------------------------------

TEST(Deck, DefaultsAreTheLammpsLjBenchmark) {
  const Deck d = parse_deck("", "empty.toml");
  EXPECT_EQ(d.path, "empty.toml");
  EXPECT_EQ(d.system.lattice, "fcc");
  EXPECT_EQ(d.system.density, 0.8442);
  EXPECT_EQ(d.system.cells, (std::array<int, 3>{20, 20, 20}));
  EXPECT_EQ(d.system.temperature, 1.44);
  EXPECT_EQ(d.system.seed, 87287u);
  EXPECT_EQ(d.system.mass, std::vector<double>{1.0});
  EXPECT_EQ(d.potential.style, "lj");
  EXPECT_EQ(d.potential.coeffs.at("epsilon"), 1.0);
  EXPECT_EQ(d.potential.coeffs.at("sigma"), 1.0);
  EXPECT_EQ(d.potential.cutoff, 2.5);
  EXPECT_FALSE(d.potential.shift);
  EXPECT_EQ(d.neighbor.skin, 0.3);
  EXPECT_EQ(d.run.dt, 0.005);
  EXPECT_EQ(d.run.steps, 100);
  EXPECT_EQ(d.run.backend, Backend::Auto);
  EXPECT_EQ(d.decomposition.method, Method::HalfShell);
  EXPECT_EQ(d.decomposition.grid, (std::array<int, 3>{0, 0, 0}));
  EXPECT_EQ(d.output.thermo_every, 50);
  EXPECT_EQ(d.output.trajectory, "");
  EXPECT_EQ(d.output.trajectory_every, 0);
  EXPECT_FALSE(d.output.trajectory_force);
  EXPECT_EQ(d.output.checkpoint, "");
  EXPECT_EQ(d.output.checkpoint_every, 0);
  EXPECT_FALSE(d.output.overwrite);
  // The struct defaults and the parsed defaults agree; a parsed deck also writes out the style's
  // default coefficients (the struct leaves them to PairPotential::make).
  Deck defaults;
  defaults.potential.coeffs = {{"epsilon", 1.0}, {"sigma", 1.0}};
  expect_same(d, defaults);
}

TEST(Deck, LatticeBox) {
  Deck d;
  const double a = std::cbrt(4.0 / 0.8442);  // fcc: 4 sites per cubic cell of edge a
  EXPECT_NEAR(a, 1.6796, 1e-4);              // LAMMPS in.lj: lattice fcc 0.8442
  d.system.cells = {10, 20, 30};
  const scanmd::Vec3 box = scanmd::initial_box_length(d.system);
  EXPECT_DOUBLE_EQ(box.x, 10 * a);
  EXPECT_DOUBLE_EQ(box.y, 20 * a);
  EXPECT_DOUBLE_EQ(box.z, 30 * a);
  d.system.density = 4.0;
  EXPECT_DOUBLE_EQ(scanmd::initial_box_length(d.system).x, 10.0);
  d.system.box = scanmd::Vec3{3, 4, 5};  // a data file's box wins
  EXPECT_EQ(scanmd::initial_box_length(d.system).z, 5.0);
}

TEST(Deck, EnumNames) {
  EXPECT_EQ(scanmd::backend_name(Backend::Auto), "auto");
  EXPECT_EQ(scanmd::backend_name(Backend::Host), "host");
  EXPECT_EQ(scanmd::backend_name(Backend::Cuda), "cuda");
  EXPECT_EQ(scanmd::method_name(Method::HalfShell), "half-shell");
  EXPECT_EQ(scanmd::method_name(Method::NeutralTerritory), "neutral-territory");
  EXPECT_EQ(scanmd::method_name(Method::FullShell), "full-shell");
  // Every name reads back as its value.
  for (const auto& n : scanmd::kMethodNames)
    EXPECT_EQ(scanmd::method_from_name(n.name), n.value) << n.name;
}

TEST(Deck, EveryKeyIsParsed) {
  const Deck d = parse_deck(kFullDeck, "full.toml");
  EXPECT_EQ(d.system.density, 0.9);
  EXPECT_EQ(d.system.cells, (std::array<int, 3>{10, 12, 14}));
  EXPECT_EQ(d.system.temperature, 0.0);
  EXPECT_EQ(d.system.seed, 12345u);
  EXPECT_EQ(d.system.mass, std::vector<double>{2.5});
  EXPECT_EQ(d.potential.coeffs.at("epsilon"), 1.5);
  EXPECT_EQ(d.potential.coeffs.at("sigma"), 0.9);
  EXPECT_EQ(d.potential.cutoff, 3.0);
  EXPECT_TRUE(d.potential.shift);
  EXPECT_EQ(d.neighbor.skin, 0.0);
  EXPECT_EQ(d.run.dt, 0.002);
  EXPECT_EQ(d.run.steps, 0);
  EXPECT_EQ(d.run.backend, Backend::Cuda);
  EXPECT_EQ(d.decomposition.method, Method::NeutralTerritory);
  EXPECT_EQ(d.decomposition.grid, (std::array<int, 3>{2, 3, 4}));
  EXPECT_EQ(d.decomposition.balance, scanmd::Balance::Pairs);
  EXPECT_EQ(d.decomposition.balance_every, 500);
  EXPECT_EQ(d.decomposition.balance_tolerance, 1.2);
  EXPECT_EQ(d.output.thermo_every, 0);
  EXPECT_EQ(d.output.trajectory, "traj/out.h5");  // relative paths kept as given
  EXPECT_EQ(d.output.trajectory_every, 10);
  EXPECT_TRUE(d.output.trajectory_force);
  EXPECT_EQ(d.output.checkpoint, "chk.h5");
  EXPECT_EQ(d.output.checkpoint_every, 1000);
  EXPECT_TRUE(d.output.overwrite);
  EXPECT_TRUE(d.potential.tail);
  EXPECT_EQ(d.potential.mixing, scanmd::Mixing::Arithmetic);
  EXPECT_EQ(d.thermostat.style, scanmd::ThermostatStyle::NoseHoover);
  EXPECT_EQ(d.thermostat.temperature, 0.7);
  EXPECT_EQ(d.thermostat.damping, 0.25);
  EXPECT_EQ(d.thermostat.seed, 99u);
  EXPECT_EQ(d.thermostat.chain, 5);
  EXPECT_EQ(d.output.data_file, "final.data");
}

// Species keys: per-type masses, type fractions, a pair table (cutoff optional).
TEST(Deck, SpeciesKeysAndRoundTrip) {
  const char* const text = R"([system]
type_fractions = [0.75, 0.25]
mass = [1.0, 3.5]

[potential]
mixing = "none"

[[potential.pair]]
types = [1, 1]
epsilon = 1.0
sigma = 1.0

[[potential.pair]]
types = [2, 1]
epsilon = 1.5
sigma = 0.8
cutoff = 2.0

[[potential.pair]]
types = [2, 2]
epsilon = 0.5
sigma = 0.88
cutoff = 2.2
)";
  const Deck d = parse_deck(text, "ka.toml");
  EXPECT_EQ(d.system.type_fractions, (std::vector<double>{0.75, 0.25}));
  EXPECT_EQ(d.system.mass, (std::vector<double>{1.0, 3.5}));
  EXPECT_EQ(d.system.type_count(), 2);
  ASSERT_EQ(d.potential.pairs.size(), 3u);
  EXPECT_EQ(d.potential.pairs[1].types, (std::array<int, 2>{2, 1}));
  EXPECT_EQ(d.potential.pairs[1].cutoff, 2.0);
  EXPECT_FALSE(d.potential.pairs[0].cutoff.has_value());  // potential.cutoff
  EXPECT_EQ(d.import_cutoff(), 2.5 + 0.3);                // the largest pair cutoff
  EXPECT_EQ(d.where.at("potential.pair[2]"), "ka.toml:19:1");
  expect_same(d, parse_deck(d.to_toml(), "again.toml"));
}

// The table style's string keys: read, relative to the deck's directory, written back by
// to_toml, and taken from --set as bare words.
TEST(Deck, TableStyleStringKeysAndRoundTrip) {
  const std::string dir = SCANMD_BAD_DECKS_DIR;
  const char* const text = R"([system]
type_fractions = [0.5, 0.5]

[potential]
style = "table"
table_style = "spline"
table_points = 500
cutoff = 2.0

[[potential.pair]]
types = [1, 1]
file = "tables/short.table"
keyword = "LJ"

[[potential.pair]]
types = [1, 2]
file = "tables/short.table"
keyword = "LJ"
cutoff = 1.5

[[potential.pair]]
types = [2, 2]
file = "tables/short.table"
keyword = "LJ"
)";
  const Deck d = parse_deck(text, dir + "/table.toml");
  EXPECT_EQ(d.potential.base_dir, dir);
  EXPECT_EQ(d.potential.strings.at("table_style"), "spline");
  EXPECT_EQ(d.potential.coeffs.at("table_points"), 500.0);
  ASSERT_EQ(d.potential.pairs.size(), 3u);
  EXPECT_EQ(d.potential.pairs[1].strings.at("file"), "tables/short.table");
  expect_same(d, parse_deck(d.to_toml(), dir + "/again.toml"));
  const Deck one = parse_deck(
      "[potential]\nstyle = \"table\"\ntable_style = \"linear\"\ntable_points = 100\n"
      "file = \"tables/none.table\"\nkeyword = \"LJ\"\ncutoff = 1.8\n",
      dir + "/one.toml", {"potential.file=tables/short.table", "potential.keyword=LJ"});
  EXPECT_EQ(one.potential.strings.at("file"), "tables/short.table");
  expect_same(one, parse_deck(one.to_toml(), dir + "/again.toml"));
  // Per-pair keys in [potential] with pair tables, and string keys of the wrong type.
  std::string with_keyword = text;
  with_keyword.replace(with_keyword.find("cutoff = 2.0\n"), 13, "cutoff = 2.0\nkeyword = \"LJ\"\n");
  EXPECT_THAT(error_of(with_keyword),
              HasSubstr("d.toml:9:11: potential.keyword: is not used when [[potential.pair]] "
                        "tables are given: give it per pair"));
  EXPECT_THAT(error_of("[potential]\nstyle = \"table\"\nkeyword = 3\n"),
              HasSubstr("d.toml:3:11: potential.keyword: expected a string, got integer 3"));
}

TEST(Deck, OtherEnumValues) {
  EXPECT_EQ(parse_deck("[run]\nbackend = \"host\"\n", "d.toml").run.backend, Backend::Host);
  EXPECT_EQ(parse_deck("[run]\nbackend = \"auto\"\n", "d.toml").run.backend, Backend::Auto);
  EXPECT_EQ(parse_deck("decomposition.method = \"full-shell\"\n", "d.toml").decomposition.method,
            Method::FullShell);
  EXPECT_EQ(parse_deck("decomposition.method = \"half-shell\"\n", "d.toml").decomposition.method,
            Method::HalfShell);
}

TEST(Deck, IntegerForADoubleKeyIsFine) {
  const Deck d = parse_deck("[system]\ndensity = 1\ntemperature = 2\n[run]\ndt = 1\n", "d.toml");
  EXPECT_EQ(d.system.density, 1.0);
  EXPECT_EQ(d.system.temperature, 2.0);
  EXPECT_EQ(d.run.dt, 1.0);
}

TEST(Deck, DottedKeysAndInlineTablesWork) {
  const Deck d = parse_deck("run.steps = 7\nsystem = { cells = [5, 6, 7] }\n", "d.toml");
  EXPECT_EQ(d.run.steps, 7);
  EXPECT_EQ(d.system.cells, (std::array<int, 3>{5, 6, 7}));
}

TEST(Deck, LoadDeckReadsAFile) {
  const auto p = temp_file("scanmd_full_deck.toml", kFullDeck);
  const Deck d = load_deck(p.string());
  EXPECT_EQ(d.path, p.string());
  expect_same(d, parse_deck(kFullDeck, p.string()));
  const Deck o = load_deck(p.string(), {"run.steps=3"});
  EXPECT_EQ(o.run.steps, 3);
}

// ---------------------------------------------------------------------------------------------
// --set overrides

TEST(DeckOverrides, ValuesOfEveryKind) {
  const Deck d = parse_deck(
      "[run]\nsteps = 100\n", "d.toml",
      {"decomposition.method=neutral-territory", "decomposition.grid=[2,2,2]", "run.steps=200",
       "run.dt=0.001", "output.trajectory=out.h5", "output.overwrite=true", "potential.shift=true",
       "system.density=1", "run.backend=\"host\""});
  EXPECT_EQ(d.decomposition.method, Method::NeutralTerritory);  // bare word
  EXPECT_EQ(d.decomposition.grid, (std::array<int, 3>{2, 2, 2}));
  EXPECT_EQ(d.run.steps, 200);  // replaces the file's value
  EXPECT_EQ(d.run.dt, 0.001);
  EXPECT_EQ(d.output.trajectory, "out.h5");
  EXPECT_TRUE(d.output.overwrite);
  EXPECT_TRUE(d.potential.shift);
  EXPECT_EQ(d.system.density, 1.0);
  EXPECT_EQ(d.run.backend, Backend::Host);  // quoted TOML string
}

TEST(DeckOverrides, StringKeysTakeTheTextAsWritten) {
  const Deck d = parse_deck(
      "", "d.toml",
      {"output.trajectory=2024", "output.checkpoint = run 1/chk.h5 ", "output.trajectory_every=5"});
  EXPECT_EQ(d.output.trajectory, "2024");
  EXPECT_EQ(d.output.checkpoint, "run 1/chk.h5");  // trimmed
  EXPECT_EQ(d.output.trajectory_every, 5);
  EXPECT_EQ(parse_deck("", "d.toml", {"output.trajectory=\"a \\\"b\\\".h5\""}).output.trajectory,
            "a \"b\".h5");
  EXPECT_EQ(parse_deck("", "d.toml", {"output.trajectory="}).output.trajectory, "");
}

TEST(DeckOverrides, LastOverrideWins) {
  const Deck d = parse_deck("", "d.toml", {"run.steps=1", "run.steps=2"});
  EXPECT_EQ(d.run.steps, 2);
}

TEST(DeckOverrides, ReplaceAnInvalidFileValue) {
  // Overrides are applied after the file: the file's value is replaced before it is checked.
  const Deck d = parse_deck("[run]\ndt = -1\n", "d.toml", {"run.dt=0.01"});
  EXPECT_EQ(d.run.dt, 0.01);
}

TEST(DeckOverrides, ErrorsAreLocatedAtTheOverride) {
  EXPECT_EQ(error_of("[run]\ndt = 0.005\n", {"run.dt=-1"}),
            "--set run.dt=-1: run.dt: must be > 0 (got -1)");
  EXPECT_EQ(error_of("", {"run.steps=1.5"}),
            "--set run.steps=1.5: run.steps: expected an integer, got float 1.5");
  EXPECT_EQ(error_of("", {"decomposition.grid=[2,2]"}),
            "--set decomposition.grid=[2,2]: decomposition.grid: expected an array of 3 "
            "non-negative integers, got an array of 2 elements");
  EXPECT_THAT(error_of("", {"decomposition.method=hs"}),
              StartsWith("--set decomposition.method=hs: decomposition.method: must be one of "
                         "\"half-shell\", \"neutral-territory\", \"full-shell\", \"eighth-shell\", "
                         "\"midpoint\" (got \"hs\")"));
  EXPECT_EQ(error_of("", {"run.stpes=5"}),
            "--set run.stpes=5: unknown key 'run.stpes'; did you mean 'run.steps'?");
  EXPECT_THAT(error_of("", {"nosuchthing=5"}),
              StartsWith("--set nosuchthing=5: unknown key 'nosuchthing'"));
  EXPECT_EQ(error_of("", {"run.steps"}), "--set run.steps: expected section.key=value");
  EXPECT_THAT(error_of("[neighbor]\nskin = 2.0\n", {"system.cells=[1,2,2]"}),
              StartsWith("--set system.cells=[1,2,2]: system.cells: box 1.68 along x is not "
                         "longer than neighbor.skin = 2"));
}

// ---------------------------------------------------------------------------------------------
// to_toml round trip

TEST(DeckToml, DefaultsRoundTrip) {
  const Deck d = parse_deck("", "d.toml");
  const std::string t = d.to_toml();
  expect_same(parse_deck(t, "resolved.toml"), d);
  EXPECT_THAT(t, HasSubstr("mass = 1.0\n"));  // a float stays a float
  EXPECT_THAT(t, HasSubstr("epsilon = 1.0\n"));
  EXPECT_THAT(t, HasSubstr("density = 0.8442\n"));
  EXPECT_THAT(t, HasSubstr("cells = [20, 20, 20]\n"));
  EXPECT_THAT(t, HasSubstr("backend = \"auto\"\n"));
  EXPECT_THAT(t, HasSubstr("method = \"half-shell\"\n"));
  EXPECT_THAT(t, HasSubstr("trajectory = \"\"\n"));
  // sections in the order of the struct
  const auto at = [&](const char* s) { return t.find(s); };
  EXPECT_LT(at("[system]"), at("[potential]"));
  EXPECT_LT(at("[potential]"), at("[neighbor]"));
  EXPECT_LT(at("[neighbor]"), at("[run]"));
  EXPECT_LT(at("[run]"), at("[decomposition]"));
  EXPECT_LT(at("[decomposition]"), at("[output]"));
  EXPECT_NE(at("[output]"), std::string::npos);
}

TEST(DeckToml, EveryKeyRoundTrips) {
  const Deck d = parse_deck(kFullDeck, "full.toml");
  expect_same(parse_deck(d.to_toml(), "resolved.toml"), d);
  EXPECT_EQ(parse_deck(d.to_toml(), "full.toml").to_toml(), d.to_toml());
}

TEST(DeckToml, RegionsRoundTrip) {
  const Deck slab = parse_deck(
      "[system]\ncells = [8, 8, 30]\ndensity = 0.73\n"
      "[region]\nstyle = \"slab\"\naxis = \"y\"\nlo = 1.5\nhi = 9.25\n",
      "slab.toml");
  EXPECT_EQ(slab.region.style, scanmd::RegionStyle::Slab);
  EXPECT_EQ(slab.region.axis, 1);
  expect_same(parse_deck(slab.to_toml(), "resolved.toml"), slab);
  EXPECT_THAT(slab.to_toml(), HasSubstr("[region]\nstyle = \"slab\"\naxis = \"y\"\nlo = 1.5\n"));
  const Deck sphere = parse_deck(
      "[system]\ncells = [12, 12, 12]\n"
      "[region]\nstyle = \"sphere\"\ncenter = [10, 10.5, 11]\nradius = 7\n",
      "sphere.toml");
  EXPECT_EQ(sphere.region.center, (std::array<double, 3>{10.0, 10.5, 11.0}));
  expect_same(parse_deck(sphere.to_toml(), "resolved.toml"), sphere);
  // The whole box (the default) writes no [region] section.
  EXPECT_THAT(parse_deck("", "d.toml").to_toml(), Not(HasSubstr("[region]")));
}

TEST(DeckToml, AwkwardValuesRoundTrip) {
  Deck d;
  d.system.density = 1.0 / 3.0;
  d.system.cells = {40, 41, 42};
  d.system.temperature = 1e-300;
  d.potential.coeffs = {{"epsilon", 1234567.8901234567},  // below 2^22: the fixed point holds it
                        {"sigma", 0.1}};
  d.potential.cutoff = 1.0;
  d.neighbor.skin = 5e-324;  // smallest denormal
  d.run.dt = 1e-5;
  d.run.steps = 9007199254740992;  // 2^53, the most steps a deck may ask for (issue 15)
  d.system.seed = 9223372036854775807u;
  d.output.trajectory = "dir with space/\"quoted\"\\back\tslash\n.h5";
  d.output.checkpoint = "ünïcödé.h5";
  const std::string t = d.to_toml();
  const Deck back = parse_deck(t, "resolved.toml");
  expect_same(back, d);
  EXPECT_THAT(t, HasSubstr("cutoff = 1.0\n"));
  EXPECT_THAT(t, HasSubstr("epsilon = 1234567.8901234567\n"));
}

// ---------------------------------------------------------------------------------------------
// Errors: syntax, file, unknown keys, types, ranges, box

TEST(DeckErrors, SyntaxErrorHasLineAndColumn) {
  EXPECT_THAT(error_of("[run]\nsteps = 100\ndt = = 1\n"),
              MatchesRegex("d\\.toml:3:[0-9]+: syntax error: .+"));
  EXPECT_THAT(error_of("[system]\nlattice = \"fcc\n"),
              MatchesRegex("d\\.toml:2:[0-9]+: syntax error: .+"));
  EXPECT_THAT(error_of("[run]\nsteps = 1\nsteps = 2\n"),  // redefinition
              MatchesRegex("d\\.toml:3:[0-9]+: syntax error: .+"));
}

TEST(DeckErrors, MissingOrUnreadableFile) {
  EXPECT_EQ(load_error_of("/nonexistent/dir/deck.toml"),
            "/nonexistent/dir/deck.toml: cannot open deck: No such file or directory");
  EXPECT_EQ(load_error_of(::testing::TempDir()),
            ::testing::TempDir() + ": cannot open deck: Is a directory");
}

// Issue 17, item 4: a deck is read only from a regular file of bounded size — /dev/zero and a
// FIFO are refused at once (they used to be read until memory ran out, or to wait forever).
TEST(DeckErrors, OnlyRegularFilesOfBoundedSizeAreRead) {
  EXPECT_EQ(load_error_of("/dev/zero"),
            "/dev/zero: cannot read deck: not a regular file (a deck is a TOML file)");
  const std::string fifo = (std::filesystem::path(::testing::TempDir()) / "deck_fifo").string();
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(load_error_of(fifo), fifo +
                                     ": cannot read deck: not a regular file (a deck is a TOML "
                                     "file)");
  std::filesystem::remove(fifo);
  const std::string big = (std::filesystem::path(::testing::TempDir()) / "big.toml").string();
  std::ofstream(big) << "[run]\nsteps = 1\n";
  std::filesystem::resize_file(big, 9u << 20);  // 9 MiB (of zeros after the first lines)
  EXPECT_EQ(load_error_of(big), big +
                                    ": cannot read deck: 9437184 bytes, more than the 8 MiB a "
                                    "deck may have (is it a deck?)");
  std::filesystem::remove(big);
}

// Issue 17, item 4: a megabyte-long unknown key or bad value is not echoed whole (nor takes
// seconds to find no suggestion for).
TEST(DeckErrors, LongKeysAndValuesAreNotEchoedWhole) {
  const std::string k(1 << 20, 'k');
  const auto start = std::chrono::steady_clock::now();
  const std::string msg = error_of("[run]\n" + k + " = 1\n");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(msg, "d.toml:2:1: unknown key 'run." + std::string(44, 'k') +
                     "... (1048580 characters)' (keys of [run]: dt, steps, backend, precision)");
  // A bound on the complexity, not a speed target: a suggestion search quadratic in the key's
  // length (2^40 steps) takes hours; the linear one well under a second in Release, over one
  // under the sanitizers (the test program unoptimised, two tests at once).
  EXPECT_LT(seconds, 10.0);
  const std::string set = error_of("", {"run." + k + "=1"});
  EXPECT_LT(set.size(), 400u) << set.substr(0, 400);
  EXPECT_THAT(set, HasSubstr("unknown key 'run.kkk"));
  EXPECT_THAT(set, HasSubstr("(1048580 characters)"));
  const std::string value = error_of("[run]\nbackend = \"" + std::string(1 << 20, 'x') + "\"\n");
  EXPECT_LT(value.size(), 400u) << value.substr(0, 400);
  EXPECT_THAT(value, StartsWith("d.toml:2:11: run.backend: must be one of"));
  EXPECT_THAT(value, HasSubstr("(1048576 characters)"));
  const std::string type = error_of("[run]\ndt = \"" + std::string(1 << 20, 'x') + "\"\n");
  EXPECT_LT(type.size(), 400u) << type.substr(0, 400);
  const std::string section = error_of("[" + std::string(1 << 20, 's') + "]\na = 1\n");
  EXPECT_LT(section.size(), 400u) << section.substr(0, 400);
  EXPECT_THAT(section, HasSubstr("(1048576 characters)"));
}

// Issue 17, item 4: an ε whose pair energy at the minimum (−ε) cannot be held by the 64-bit fixed
// point (2^22 per pair term) is refused naming its key, not blamed on overlaps at step 0.
TEST(DeckErrors, EpsilonBeyondTheFixedPointRange) {
  EXPECT_EQ(error_of("[potential]\nepsilon = 1e300\n"),
            "d.toml:2:11: potential.epsilon: epsilon = 1e+300 is beyond the 64-bit fixed point "
            "of the energies: a pair at its minimum has U = -epsilon, and one pair's term must "
            "stay below 2^22 = 4194304 (LJ units want epsilon of order 1)");
  EXPECT_THAT(error_of("[potential]\nepsilon = 4194304\n"),
              StartsWith("d.toml:2:11: potential.epsilon: epsilon = 4.1943e+06 is beyond"));
  // (with a time step below its time unit τ = 1/√ε = 4.9e-4, issue 15)
  EXPECT_NO_THROW(parse_deck("[potential]\nepsilon = 4194303\n[run]\ndt = 1e-4\n", "d.toml"));
  EXPECT_THAT(error_of("[system]\ntype_fractions = [0.5, 0.5]\n[potential]\nmixing = \"none\"\n"
                       "[[potential.pair]]\ntypes = [1, 1]\nepsilon = 1.0\nsigma = 1.0\n"
                       "[[potential.pair]]\ntypes = [1, 2]\nepsilon = 1e10\nsigma = 1.0\n"
                       "[[potential.pair]]\ntypes = [2, 2]\nepsilon = 1.0\nsigma = 1.0\n"),
              StartsWith("d.toml:9:1: potential.pair[1]: epsilon = 1e+10 is beyond the 64-bit"));
}

// Issue 17, item 5: the README promises that a grid's non-zero entries are kept and its zeros
// chosen; a mix used to be refused.
TEST(Deck, GridMayMixFixedAndChosenEntries) {
  for (const auto& [text, want] : std::vector<std::pair<std::string, std::array<int, 3>>>{
           {"[2, 0, 0]", {2, 0, 0}}, {"[0, 3, 0]", {0, 3, 0}}, {"[2, 0, 2]", {2, 0, 2}}}) {
    const Deck d = parse_deck("[decomposition]\ngrid = " + text + "\n", "d.toml");
    EXPECT_EQ(d.decomposition.grid, want) << text;
    EXPECT_EQ(parse_deck(d.to_toml(), "resolved.toml").decomposition.grid, want) << text;
  }
}

// Issue 17, item 2: every positive normal mass gets exact velocities (engine/velocities); a
// subnormal one cannot (m·v² overflows) and is refused naming the key.
TEST(DeckErrors, SubnormalMassIsRefused) {
  EXPECT_THAT(error_of("[system]\nmass = 1e-310\n"),
              StartsWith("d.toml:2:8: system.mass: mass 1e-310 is below the smallest normal "
                         "double (2.2250738585072014e-308)"));
  // (with a time step below its time unit τ = √m = 1e-150, issue 15)
  EXPECT_NO_THROW(parse_deck("[system]\nmass = 1e-300\n[run]\ndt = 1e-151\n", "d.toml"));
  EXPECT_NO_THROW(parse_deck("[system]\nmass = 1e300\n", "d.toml"));
}

// Issue 15, item 3: runs that cannot finish. run.steps is at most 2^53 (the time n·dt of a step
// is a double), and run.steps · run.dt must be finite.
TEST(DeckErrors, StepsBeyondTwoToThe53AreRefused) {
  EXPECT_EQ(parse_deck("[run]\nsteps = 9007199254740992\n", "d.toml").run.steps,
            std::int64_t{1} << 53);
  EXPECT_THAT(error_of("[run]\nsteps = 9007199254740993\n"),
              StartsWith("d.toml:2:9: run.steps: must be at most 2^53 = 9007199254740992 (got "
                         "9007199254740993)"));
  EXPECT_THAT(error_of("[run]\nsteps = 1\n", {"run.steps=1000000000000000000"}),
              StartsWith("--set run.steps=1000000000000000000: run.steps: must be at most 2^53"));
  // A finite dt and a finite step count whose product is not (an ideal gas, ε = 0: no time unit
  // bounds dt): blamed on run.dt when given.
  EXPECT_THAT(error_of("[[potential.pair]]\ntypes = [1, 1]\nepsilon = 0.0\nsigma = 1.0\n"
                       "[run]\nsteps = 1000000000000\ndt = 1e300\n"),
              StartsWith("d.toml:7:6: run.dt: run.steps · run.dt = 1000000000000 · 1e+300 is not "
                         "a finite time"));
}

// Issue 15, item 3: σ and ε whose force constants 48εσ¹², 24εσ⁶ are not normal doubles, and a
// time step beyond the Lennard-Jones time unit τ = σ√(m/ε), are refused naming the key furthest
// from LJ units.
TEST(DeckErrors, ScalesThatCanOnlyOverflowAreRefused) {
  EXPECT_THAT(error_of("[potential]\nsigma = 1e-300\n"),
              StartsWith("d.toml:2:9: potential.sigma: sigma = 1e-300: sigma^12 = 1e-3600 is "
                         "below the smallest normal double"));
  EXPECT_THAT(error_of("[potential]\nsigma = 1e26\n"),
              StartsWith("d.toml:2:9: potential.sigma: sigma = 1e+26: sigma^12 = 1e+312 "
                         "overflows a double"));
  EXPECT_THAT(error_of("[potential]\nepsilon = 1e-310\n"),
              StartsWith("d.toml:2:11: potential.epsilon: epsilon = 1e-310 with sigma = 1: the "
                         "force constant 48 epsilon sigma^12 = 4.8e-309 is not a normal double"));
  // σ inside the range, with a time step below its time unit, is fine.
  EXPECT_NO_THROW(parse_deck("[potential]\nsigma = 1e-25\n[run]\ndt = 1e-26\n", "d.toml"));
  // The time unit: each key takes the blame when it is the one far from LJ units.
  EXPECT_THAT(error_of("[run]\ndt = 1e308\n"),
              StartsWith("d.toml:2:6: run.dt: run.dt = 1e+308 is 1e+308 times the Lennard-Jones "
                         "time unit tau = sigma sqrt(m/epsilon) = 1 of types 1-1 (sigma = 1, m = "
                         "1, epsilon = 1): particles would cross the repulsive core"));
  EXPECT_THAT(error_of("[system]\nmass = 1e-300\n[run]\ndt = 0.001\n"),
              StartsWith("d.toml:2:8: system.mass: run.dt = 0.001 is 1e+147 times"));
  EXPECT_THAT(error_of("[potential]\nsigma = 1e-20\n"),
              StartsWith("d.toml:2:9: potential.sigma: run.dt = 0.005 is 5e+17 times"));
  EXPECT_THAT(error_of("[potential]\nepsilon = 1e6\n"),
              StartsWith("d.toml:2:11: potential.epsilon: run.dt = 0.005 is 5 times the "
                         "Lennard-Jones time unit tau = sigma sqrt(m/epsilon) = 0.001"));
  // Exactly one time unit is allowed; the lighter mass of a pair sets it.
  EXPECT_NO_THROW(parse_deck("[run]\ndt = 1\n", "d.toml"));
  EXPECT_THAT(error_of("[system]\ntype_fractions = [0.5, 0.5]\nmass = [1.0, 0.01]\n"
                       "[[potential.pair]]\ntypes = [1, 1]\nepsilon = 1.0\nsigma = 1.0\n"
                       "[[potential.pair]]\ntypes = [2, 2]\nepsilon = 1.0\nsigma = 1.0\n"
                       "[run]\ndt = 0.5\n"),
              StartsWith("d.toml:13:6: run.dt: run.dt = 0.5 is 5 times the Lennard-Jones time "
                         "unit tau = sigma sqrt(m/epsilon) = 0.1 of types 2-2"));
}

// Issue 15, item 6: inputs on which Debian's toml++ 3.3 reaches undefined behaviour (found by
// fuzzing: tests/fuzz/regressions/deck/) are the syntax errors they are, reported where they
// are; non-ASCII text inside strings and comments stays fine.
TEST(DeckErrors, TomlPitfallsAreSyntaxErrors) {
  EXPECT_EQ(error_of("[run]\nsteps = 1\n\xc2\xb7 = 2\n"),
            "d.toml:3:1: syntax error: a non-ASCII character outside a string or comment (TOML "
            "allows them only there)");
  EXPECT_EQ(error_of("[run]\nsteps = 38.x\"\xc9\x91\"\n"),
            "d.toml:2:14: syntax error: a non-ASCII character outside a string or comment (TOML "
            "allows them only there)");
  EXPECT_EQ(error_of("[neighbor]\nskin = 0.3\n[# a comment, not a name\n"),
            "d.toml:3:2: syntax error: expected a table name (a bare key or a quoted one) after "
            "'['");
  EXPECT_EQ(error_of("[system]\ncells = [5,} 5, 5]\n"),
            "d.toml:2:12: syntax error: '}' inside an array (it closes no inline table)");
  EXPECT_EQ(error_of("[output]\ntrajectory = \"t.h5\ncheckpoint = \"c.h5\"\n"),
            "d.toml:2:14: syntax error: a string that does not end on its line");
  // Fine: non-ASCII in comments and strings (basic, literal, multi-line), quoted keys, arrays
  // of arrays whose lines start with '[', inline tables, and a bare word given by --set.
  const Deck d = parse_deck(
      "# caf\xc3\xa9 \xc2\xb7\n[output]  # \xe3\x80\x81\ntrajectory = \"caf\xc3\xa9.h5\"\n"
      "checkpoint = 'd\xc3\xa9j\xc3\xa0.h5'\nimports = \"\"\"x\xc2\xb7\"\"\"\n"
      "[system]\ncells = [\n  5,\n  5, 5]  # \xc2\xb7\nmass = [\n1.0\n]\n",
      "d.toml", {"output.data_file=d\xc3\xa9j\xc3\xa0.data"});
  EXPECT_EQ(d.output.trajectory, "caf\xc3\xa9.h5");
  EXPECT_EQ(d.output.checkpoint, "d\xc3\xa9j\xc3\xa0.h5");
  EXPECT_EQ(d.output.imports, "x\xc2\xb7");
  EXPECT_EQ(d.output.data_file, "d\xc3\xa9j\xc3\xa0.data");
  EXPECT_EQ(d.system.cells, (std::array<int, 3>{5, 5, 5}));
}

TEST(DeckErrors, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(error_of("[run]\ndt = 0.005\nstpes = 100\n"),
            "d.toml:3:1: unknown key 'run.stpes'; did you mean 'run.steps'?");
  EXPECT_EQ(error_of("[output]\n  thermo_evry = 10\n"),
            "d.toml:2:3: unknown key 'output.thermo_evry'; did you mean 'output.thermo_every'?");
  // a key in the wrong section
  EXPECT_EQ(error_of("[run]\nskin = 0.3\n"),
            "d.toml:2:1: unknown key 'run.skin'; did you mean 'neighbor.skin'?");
  // a key outside any section
  EXPECT_EQ(error_of("steps = 100\n"),
            "d.toml:1:1: unknown key 'steps'; did you mean 'run.steps'?");
  // nothing close: list the keys of the section
  EXPECT_EQ(error_of("[run]\nfoo = 1\n"),
            "d.toml:2:1: unknown key 'run.foo' (keys of [run]: dt, steps, backend, precision)");
  // a sub-table of a section
  EXPECT_THAT(error_of("[run.extra]\nx = 1\n"), StartsWith("d.toml:1:6: unknown key 'run.extra'"));
}

TEST(DeckErrors, UnknownSection) {
  EXPECT_EQ(error_of("[system]\n[rnu]\nsteps = 1\n"),
            "d.toml:2:2: unknown section 'rnu'; did you mean 'run'?");
  EXPECT_EQ(error_of("[barostat]\nt = 1\n"),
            "d.toml:1:2: unknown section 'barostat' (sections: system, region, potential, bond, "
            "angle, special_bonds, neighbor, run, decomposition, thermostat, velocity, minimize, "
            "output)");
  EXPECT_EQ(error_of("[thermostat]\nt = 1\n"),
            "d.toml:2:1: unknown key 'thermostat.t' (keys of [thermostat]: style, temperature, "
            "damping, seed, chain, gamma, cutoff)");
  EXPECT_EQ(error_of("run = 5\n"),
            "d.toml:1:7: run: expected a table (a [run] section), got integer 5");
}

TEST(DeckErrors, FirstProblemInFileOrderIsReported) {
  EXPECT_THAT(error_of("[output]\nzzz = 1\n[run]\naaa = 1\n"),
              StartsWith("d.toml:2:1: unknown key 'output.zzz'"));
  EXPECT_THAT(error_of("[run]\nsteps = -1\n[output]\nthermo_every = -1\n"),
              StartsWith("d.toml:2:9: run.steps:"));
  EXPECT_THAT(error_of("[run]\nsteps = -1\n[run.x]\n"),
              StartsWith("d.toml:3:6: unknown key 'run.x'"));
}

TEST(DeckErrors, WrongType) {
  struct Case {
    const char* deck;
    const char* message;
  };
  const Case cases[] = {
      {"[system]\ncells = \"20x20x20\"\n",
       "d.toml:2:9: system.cells: expected an array of 3 positive integers, got string "
       "\"20x20x20\""},
      {"[system]\ncells = [20, 20]\n",
       "d.toml:2:9: system.cells: expected an array of 3 positive integers, got an array of 2 "
       "elements"},
      {"[system]\ncells = [20, 2.5, 20]\n",
       "d.toml:2:14: system.cells: expected an array of 3 positive integers, got float 2.5 at "
       "index 1"},
      {"[decomposition]\ngrid = 2\n",
       "d.toml:2:8: decomposition.grid: expected an array of 3 non-negative integers, got "
       "integer 2"},
      {"[run]\nsteps = 1.5\n", "d.toml:2:9: run.steps: expected an integer, got float 1.5"},
      {"[run]\nsteps = 100.0\n", "d.toml:2:9: run.steps: expected an integer, got float 100.0"},
      {"[run]\nsteps = \"100\"\n",
       "d.toml:2:9: run.steps: expected an integer, got string \"100\""},
      {"[system]\ndensity = \"0.8\"\n",
       "d.toml:2:11: system.density: expected a number, got string \"0.8\""},
      {"[system]\ndensity = true\n",
       "d.toml:2:11: system.density: expected a number, got boolean true"},
      {"[system]\nseed = 1.0\n", "d.toml:2:8: system.seed: expected an integer, got float 1.0"},
      {"[potential]\nshift = 1\n",
       "d.toml:2:9: potential.shift: expected a boolean (true or false), got integer 1"},
      {"[output]\ntrajectory = 5\n",
       "d.toml:2:14: output.trajectory: expected a string, got integer 5"},
      {"[run]\nbackend = [1]\n", "d.toml:2:11: run.backend: expected a string, got array of 1"},
      {"[run]\ndt = 1979-05-27\n", "d.toml:2:6: run.dt: expected a number, got date"},
      {"[output]\noverwrite = { a = 1 }\n",
       "d.toml:2:13: output.overwrite: expected a boolean (true or false), got table"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.deck);
    EXPECT_EQ(error_of(c.deck), c.message);
  }
}

TEST(DeckErrors, OutOfRange) {
  struct Case {
    const char* section;
    const char* line;     // "key = value"
    const char* message;  // after "d.toml:2:<column of the value>: section.key: "
    int column = 0;       // where not the value's: the offending array element's
  };
  const Case cases[] = {
      {"run", "dt = -0.001", "must be > 0 (got -0.001)"},
      {"run", "dt = 0", "must be > 0 (got 0)"},
      {"run", "dt = inf", "must be a finite number (got inf)"},
      {"run", "steps = -1", "must be >= 0 (got -1)"},
      {"run", "backend = \"gpu\"", "must be one of \"auto\", \"host\", \"cuda\" (got \"gpu\")"},
      {"system", "density = 0", "must be > 0 (got 0)"},
      {"system", "density = -0.8", "must be > 0 (got -0.8)"},
      {"system", "density = nan", "must be a finite number (got nan)"},
      {"system", "temperature = -1", "must be >= 0 (got -1)"},
      {"system", "seed = -1", "must be >= 0 (got -1)"},
      {"system", "mass = 0", "must be > 0 (got 0)"},
      {"system", "lattice = \"bcc\"", "must be one of \"fcc\" (got \"bcc\")"},
      {"potential", "cutoff = 0", "must be > 0 (got 0)"},
      {"potential", "sigma = 0.0", "must be > 0 (got 0)"},
      {"potential", "epsilon = -1", "must be >= 0 (got -1)"},
      {"neighbor", "skin = -0.1", "must be >= 0 (got -0.1)"},
      {"decomposition", "method = \"hs\"",
       "must be one of \"half-shell\", \"neutral-territory\", \"full-shell\", \"eighth-shell\", "
       "\"midpoint\" (got \"hs\")"},
      {"decomposition", "grid = [2, -1, 2]", "entries must be >= 0 (got -1 at index 1)", 12},
      {"output", "thermo_every = -1", "must be >= 0 (got -1)"},
      {"output", "trajectory_every = -5", "must be >= 0 (got -5)"},
      {"output", "checkpoint_every = -1", "must be >= 0 (got -1)"},
  };
  for (const auto& c : cases) {
    const std::string line = c.line;
    const std::string key = line.substr(0, line.find(' '));
    const std::size_t column =
        c.column > 0 ? static_cast<std::size_t>(c.column) : line.find('=') + 3;
    const std::string deck = std::string("[") + c.section + "]\n" + line + "\n";
    SCOPED_TRACE(deck);
    EXPECT_EQ(error_of(deck), "d.toml:2:" + std::to_string(column) + ": " + c.section + "." + key +
                                  ": " + c.message);
  }
}

// An unknown style names every style of physics/pair/styles.hpp with its aliases, in list order.
TEST(DeckErrors, UnknownStyleNamesEveryStyle) {
  std::string names;
  scanmd::for_each_pair_style([&]<class E>() {
    names += std::string(names.empty() ? "" : ", ") + "\"" + std::string(E::kName) + "\"";
    for (const auto alias : E::kAliases) names += ", \"" + std::string(alias) + "\"";
  });
  EXPECT_THAT(names, ::testing::HasSubstr("\"lj\", \"lj/cut\", \"lj/smooth/linear\""));
  EXPECT_EQ(error_of("[potential]\nstyle = \"lj/long\"\n"),
            "d.toml:2:9: potential.style: must be one of " + names +
                ", \"eam\", \"eam/alloy\", \"eam/fs\" (got \"lj/long\")");
}

TEST(DeckErrors, ArrayEntriesOutOfRangePointAtTheEntry) {
  EXPECT_EQ(error_of("[system]\ncells = [20, 0, 20]\n"),
            "d.toml:2:14: system.cells: entries must be >= 1 (got 0 at index 1)");
  EXPECT_EQ(error_of("[decomposition]\ngrid = [1, 1, -2]\n"),
            "d.toml:2:15: decomposition.grid: entries must be >= 0 (got -2 at index 2)");
  EXPECT_EQ(error_of("[system]\ncells = [20, 20, 3000000000]\n"),
            "d.toml:2:18: system.cells: entries must be <= 2147483647 (got 3000000000 at index 2)");
}

TEST(DeckErrors, ZeroIsAllowedWhereDocumented) {
  const Deck d = parse_deck(
      "[run]\nsteps = 0\n[system]\ntemperature = 0\nseed = 0\n[neighbor]\nskin = 0\n"
      "[output]\nthermo_every = 0\n[decomposition]\ngrid = [0, 0, 0]\n",
      "d.toml");
  EXPECT_EQ(d.run.steps, 0);
  EXPECT_EQ(d.system.seed, 0u);
  EXPECT_EQ(d.output.thermo_every, 0);
}

TEST(DeckErrors, BoxNotLongerThanSkin) {
  // Boxes shorter than 2·(cutoff + skin), even than the cutoff, are fine (several images).
  EXPECT_NO_THROW(parse_deck("[system]\ncells = [1, 2, 3]\n", "d.toml"));
  EXPECT_NO_THROW(parse_deck("[system]\ncells = [1, 1, 1]\n[potential]\ncutoff = 5.0\n", "d.toml"));
  // cells given: the message points at them
  EXPECT_EQ(error_of("[system]\ndensity = 0.8442\ncells = [20, 1, 20]\n[neighbor]\nskin = 1.7\n"),
            "d.toml:3:9: system.cells: box 1.68 along y is not longer than neighbor.skin = 1.7; "
            "use more cells or a shorter skin");
  // cells from the defaults (20): the last of skin / density that the file gives
  EXPECT_EQ(error_of("[system]\ndensity = 0.8442\n[neighbor]\nskin = 40.0\n"),
            "d.toml:4:8: neighbor.skin: box 33.59 along x is not longer than neighbor.skin = 40; "
            "use more cells or a shorter skin");
  // an override is named before anything in the file
  EXPECT_THAT(error_of("[system]\ncells = [2, 2, 2]\n", {"neighbor.skin=3.5"}),
              StartsWith("--set neighbor.skin=3.5: neighbor.skin: box 3.359 along x"));
}

// ---------------------------------------------------------------------------------------------
// The bad-deck catalogue: each deck's `# expect: <regex>` line, checked through load_deck.

TEST(DeckCatalogue, EveryBadDeckFailsAsExpected) {
  namespace fs = std::filesystem;
  std::vector<std::string> seen;
  for (const auto& entry : fs::directory_iterator(SCANMD_BAD_DECKS_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path());
    std::string line, expect;
    while (std::getline(in, line)) {
      if (line.rfind("# expect: ", 0) == 0) {
        expect = line.substr(10);
        break;
      }
    }
    ASSERT_FALSE(expect.empty()) << "no '# expect: <regex>' line";
    const std::string msg = load_error_of(entry.path().string());
    EXPECT_TRUE(std::regex_search(msg, std::regex(expect)))
        << "message: " << msg << "\nexpected (regex): " << expect;
    seen.push_back(entry.path().stem().string());
  }
  for (const char* name :
       {"syntax_error", "unknown_key", "wrong_type", "negative_dt", "box_too_small"}) {
    EXPECT_THAT(seen, ::testing::Contains(std::string(name)));
  }
}

TEST(DeckCatalogue, MissingFile) {
  const std::string path = std::string(SCANMD_BAD_DECKS_DIR) + "/no_such_deck.toml";
  EXPECT_THAT(load_error_of(path), HasSubstr("no_such_deck.toml: cannot open deck: "));
}

}  // namespace

// Issue 33: run.precision = "double" | "mixed". Another value, and mixed with a pair style that
// has no float variant (DPD, a table) or with EAM, are refused at deck reading naming the file,
// the line and the key; "mixed" with lj and morse reads.
TEST(DeckErrors, PrecisionValuesAndStyles) {
  EXPECT_THAT(error_of("[run]\nprecision = \"single\"\n"),
              StartsWith("d.toml:2:13: run.precision: must be one of \"double\", \"mixed\" (got "
                         "\"single\")"));
  EXPECT_EQ(parse_deck("[run]\nprecision = \"mixed\"\n", "d.toml").run.precision,
            scanmd::Precision::Mixed);
  EXPECT_EQ(parse_deck("", "d.toml").run.precision, scanmd::Precision::Double);
  EXPECT_NO_THROW(parse_deck(
      "[run]\nprecision = \"mixed\"\n[potential]\nstyle = \"morse\"\nd0 = 1.0\nalpha = 5.0\n"
      "r0 = 1.1\ncutoff = 2.2\n",
      "d.toml"));
  EXPECT_EQ(error_of("[run]\nprecision = \"mixed\"\n[potential]\nstyle = \"dpd\"\n"
                     "gamma = 4.5\ntemperature = 1.0\ncutoff = 1.0\n"),
            "d.toml:2:13: run.precision: run.precision = \"mixed\" supports pair styles \"lj\", "
            "\"lj/cut\", \"morse\"; style \"dpd\" is double only");
  EXPECT_THAT(error_of("[potential]\nstyle = \"yukawa\"\nkappa = 2.0\n[run]\nprecision = "
                       "\"mixed\"\n"),
              StartsWith("d.toml:5:13: run.precision: run.precision = \"mixed\" supports pair "
                         "styles \"lj\", \"lj/cut\", \"morse\"; style \"yukawa\" is double only"));
}
