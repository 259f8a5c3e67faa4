// Unit tests of the key table (io/deck_keys.hpp) and the deck reference written from it: every
// key, set to its row's sample value, reads, is printed by the resolved deck (Deck::to_toml) and
// reads back to the same resolved deck; every pair style's coefficients and string keys
// likewise, with one species and with pair tables (the decks read from tests/physics/tables, so
// that the table style's example file is there). The tests walk the table and the style list, so a new key or
// style is covered without editing this file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io/deck.hpp"
#include "io/deck_keys.hpp"
#include "io/deck_reference.hpp"
#include "physics/pair/styles.hpp"

namespace {

using scanmd::io::Deck;
using scanmd::io::deck_keys;
using scanmd::io::DeckError;
using scanmd::io::DeckKey;
using scanmd::io::full_name;
using scanmd::io::parse_deck;
using ::testing::HasSubstr;

// A double as --set takes it (17 digits: reads back to the same value).
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The overrides a key's sample needs: its condition, then the row's sample_needs lines.
std::vector<std::string> needs_of(const DeckKey& k) {
  std::vector<std::string> sets;
  if (!k.when.empty()) sets.push_back(std::string(k.when.key) + "=" + std::string(k.when.value));
  std::string_view rest = k.sample_needs;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    sets.emplace_back(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  }
  return sets;
}

// The lines of section [name] in a resolved deck, up to the next table header.
std::string section_text(const std::string& resolved, std::string_view name) {
  const std::string header = "\n[" + std::string(name) + "]\n";
  const auto begin = resolved.find(header);
  if (begin == std::string::npos) return {};
  const auto end = resolved.find("\n[", begin + header.size() - 1);
  return resolved.substr(begin + header.size() - 1, end - (begin + header.size() - 1) + 1);
}

// A deck beside the pair tables the styles' examples name (a relative table file is relative
// to the deck's directory).
const std::string kDeckPath = SCANMD_PAIR_TABLES_DIR "/keys.toml";

Deck parsed(const std::string& text, const std::vector<std::string>& sets) {
  try {
    return parse_deck(text, kDeckPath, sets);
  } catch (const DeckError& e) {
    ADD_FAILURE() << "refused: " << e.what();
  }
  return Deck{};
}

// The resolved deck reads back to itself.
void expect_reads_back(const Deck& d) {
  const std::string resolved = d.to_toml();
  EXPECT_EQ(parsed(resolved, {}).to_toml(), resolved) << resolved;
}

TEST(DeckKeys, TheTableIsWellFormed) {
  std::set<std::string> names;
  const Deck defaults{};
  for (const DeckKey& k : deck_keys()) {
    SCOPED_TRACE(full_name(k));
    EXPECT_TRUE(names.insert(full_name(k)).second) << "a key given two rows";
    EXPECT_FALSE(k.doc.empty());
    EXPECT_TRUE(!k.type.empty() || k.choices) << "no type";
    ASSERT_TRUE(k.read);
    ASSERT_TRUE((k.value != nullptr) != (k.lines != nullptr)) << "a value or lines, not both";
    // A --set bare word is a string exactly for the keys whose values are strings.
    if (k.value) {
      EXPECT_EQ(k.is_string, k.value(defaults).starts_with('"'));
    }
    if (!k.when.empty()) {
      const DeckKey* other = scanmd::io::find_deck_key(k.when.key);
      ASSERT_TRUE(other && other->value && other->choices) << "condition on " << k.when.key;
      bool allowed = false;
      for (const std::string_view c : other->choices())  // the value quoted, as TOML
        allowed |= k.when.value.size() == c.size() + 2 && k.when.value.substr(1, c.size()) == c;
      EXPECT_TRUE(allowed) << k.when.value << " is not a value of " << k.when.key;
    }
  }
  // Sections in the order of the resolved deck.
  std::vector<std::string> sections(scanmd::io::deck_sections().begin(),
                                    scanmd::io::deck_sections().end());
  EXPECT_EQ(sections, (std::vector<std::string>{"system", "region", "potential", "bond", "angle",
                                                "special_bonds", "neighbor", "run", "decomposition",
                                                "thermostat", "velocity", "minimize", "output"}));
}

// Each key set to its sample, in a file and by --set: the value is not the default, the resolved
// deck prints it in its section, and reads back to the same resolved deck.
TEST(DeckKeys, EveryKeyRoundTripsWithItsSample) {
  const Deck defaults{};
  for (const DeckKey& k : deck_keys()) {
    if (scanmd::io::is_style_keys_row(k)) continue;  // the styles' keys: below
    SCOPED_TRACE(full_name(k));
    if (k.sample.empty()) {  // only a key with a single allowed value has no other to set
      ASSERT_TRUE(k.choices);
      EXPECT_EQ(k.choices().size(), 1u);
      continue;
    }
    const std::vector<std::string> needs = needs_of(k);
    std::vector<std::string> sets = needs;
    sets.push_back(full_name(k) + "=" + std::string(k.sample));
    const Deck by_set = parsed("", sets);
    const Deck in_file = parsed("[" + std::string(k.section) + "]\n" + std::string(k.key) + " = " +
                                    std::string(k.sample) + "\n",
                                needs);
    const std::string resolved = by_set.to_toml();
    EXPECT_EQ(in_file.to_toml(), resolved);
    EXPECT_TRUE(scanmd::io::key_is_printed(k, by_set));
    if (k.value) {
      const std::string v = k.value(by_set);
      EXPECT_NE(v, k.value(defaults)) << "the sample is the default";
      EXPECT_THAT(section_text(resolved, k.section),
                  HasSubstr("\n" + std::string(k.key) + " = " + v + "\n"));
      EXPECT_EQ(k.value(parsed(resolved, {})), v);
    } else {
      EXPECT_NE(k.lines(by_set), k.lines(defaults)) << "the sample is the default";
      EXPECT_THAT(resolved, HasSubstr(k.lines(by_set)));
    }
    expect_reads_back(by_set);
  }
}

// A key used only under a condition is not printed without it ([region] of the whole box).
TEST(DeckKeys, ConditionalKeysArePrintedOnlyWhenUsed) {
  const Deck d = parsed("", {});
  for (const DeckKey& k : deck_keys()) {
    if (k.when.empty() && !k.only_if_set) continue;
    SCOPED_TRACE(full_name(k));
    EXPECT_FALSE(scanmd::io::key_is_printed(k, d));
  }
  EXPECT_THAT(d.to_toml(), ::testing::Not(HasSubstr("[region]")));
}

// ... and refused when given without it, naming the condition.
TEST(DeckKeys, ConditionalKeysAreRefusedWithoutTheirCondition) {
  const Deck defaults{};
  for (const DeckKey& k : deck_keys()) {
    if (k.when.empty()) continue;
    SCOPED_TRACE(full_name(k));
    const std::string set = full_name(k) + "=" + std::string(k.sample);
    try {
      parse_deck("", "keys.toml", {set});
      ADD_FAILURE() << "accepted without " << k.when.key << " = " << k.when.value;
    } catch (const DeckError& e) {
      EXPECT_EQ(std::string(e.what()), "--set " + set + ": " + full_name(k) +
                                           ": is not used with " + std::string(k.when.key) + " = " +
                                           scanmd::io::find_deck_key(k.when.key)->value(defaults));
    }
  }
}

// A string as a TOML basic string (the examples hold no quote, backslash or control character).
std::string quoted(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

// The --set overrides of a one-species deck of style E with its examples: style-level keys,
// style, coefficients, string keys.
template <class E>
std::vector<std::string> one_species_sets() {
  std::vector<std::string> sets;
  for (std::size_t g = 0; g < E::kGlobals.size(); ++g)
    sets.push_back("potential." + std::string(E::kGlobals[g]) + "=" + number(E::kGlobalExample[g]));
  for (std::size_t g = 0; g < E::kStringGlobals.size(); ++g)
    sets.push_back("potential." + std::string(E::kStringGlobals[g]) + "=" +
                   quoted(E::kStringGlobalExample[g]));
  sets.push_back("potential.style=" + std::string(E::kName));
  for (std::size_t i = 0; i < E::kCoefficients.size(); ++i)
    sets.push_back("potential." + std::string(E::kCoefficients[i]) + "=" + number(E::kExample[i]));
  for (std::size_t i = 0; i < E::kStrings.size(); ++i)
    sets.push_back("potential." + std::string(E::kStrings[i]) + "=" + quoted(E::kStringExample[i]));
  return sets;
}

// Every pair style: its example coefficients and string keys (and style-level keys) for one
// species in [potential], and for two species in [[potential.pair]] tables listing every pair.
TEST(DeckKeys, EveryPairStyleRoundTrips) {
  scanmd::for_each_pair_style([]<class E>() {
    SCOPED_TRACE(std::string(E::kName));
    std::vector<std::string> globals;
    for (std::size_t g = 0; g < E::kGlobals.size(); ++g)
      globals.push_back("potential." + std::string(E::kGlobals[g]) + "=" +
                        number(E::kGlobalExample[g]));
    for (std::size_t g = 0; g < E::kStringGlobals.size(); ++g) {
      globals.push_back("potential." + std::string(E::kStringGlobals[g]) + "=" +
                        quoted(E::kStringGlobalExample[g]));
      if (!E::kStringGlobalDefaults[g].empty()) {
        EXPECT_NE(E::kStringGlobalExample[g], E::kStringGlobalDefaults[g]) << E::kStringGlobals[g];
      }
    }

    std::vector<std::string> one = globals;
    one.push_back("potential.style=" + std::string(E::kName));
    std::string table_entry;
    for (std::size_t i = 0; i < E::kCoefficients.size(); ++i) {
      const std::string name(E::kCoefficients[i]);
      one.push_back("potential." + name + "=" + number(E::kExample[i]));
      table_entry += ", " + name + " = " + number(E::kExample[i]);
      if (!std::isnan(E::kDefaults[i])) {
        EXPECT_NE(E::kExample[i], E::kDefaults[i]) << name;
      }
    }
    for (std::size_t i = 0; i < E::kStrings.size(); ++i) {
      const std::string name(E::kStrings[i]);
      one.push_back("potential." + name + "=" + quoted(E::kStringExample[i]));
      table_entry += ", " + name + " = " + quoted(E::kStringExample[i]);
    }
    const Deck single = parsed("", one);
    for (std::size_t i = 0; i < E::kCoefficients.size(); ++i)
      EXPECT_EQ(single.potential.coeffs.at(std::string(E::kCoefficients[i])), E::kExample[i]);
    for (std::size_t g = 0; g < E::kGlobals.size(); ++g)
      EXPECT_EQ(single.potential.coeffs.at(std::string(E::kGlobals[g])), E::kGlobalExample[g]);
    for (std::size_t i = 0; i < E::kStrings.size(); ++i)
      EXPECT_EQ(single.potential.strings.at(std::string(E::kStrings[i])), E::kStringExample[i]);
    for (std::size_t g = 0; g < E::kStringGlobals.size(); ++g)
      EXPECT_EQ(single.potential.strings.at(std::string(E::kStringGlobals[g])),
                E::kStringGlobalExample[g]);
    // Printed in [potential], each as the style's example.
    const std::string resolved = single.to_toml();
    for (std::size_t i = 0; i < E::kStrings.size(); ++i)
      EXPECT_THAT(section_text(resolved, "potential"),
                  HasSubstr("\n" + std::string(E::kStrings[i]) + " = " +
                            quoted(E::kStringExample[i]) + "\n"));
    for (std::size_t g = 0; g < E::kStringGlobals.size(); ++g)
      EXPECT_THAT(section_text(resolved, "potential"),
                  HasSubstr("\n" + std::string(E::kStringGlobals[g]) + " = " +
                            quoted(E::kStringGlobalExample[g]) + "\n"));
    expect_reads_back(single);

    std::vector<std::string> two = globals;
    two.push_back("potential.style=" + std::string(E::kName));
    two.push_back("system.type_fractions=[0.5, 0.5]");
    two.push_back("potential.pair=[{types = [1, 1]" + table_entry + "}, {types = [1, 2]" +
                  table_entry + ", cutoff = 2.0}, {types = [2, 2]" + table_entry + "}]");
    const Deck pairs = parsed("", two);
    ASSERT_EQ(pairs.potential.pairs.size(), 3u);
    for (std::size_t i = 0; i < E::kCoefficients.size(); ++i)
      EXPECT_EQ(pairs.potential.pairs[2].values.at(std::string(E::kCoefficients[i])),
                E::kExample[i]);
    for (std::size_t i = 0; i < E::kStrings.size(); ++i) {
      EXPECT_EQ(pairs.potential.pairs[2].strings.at(std::string(E::kStrings[i])),
                E::kStringExample[i]);
      EXPECT_FALSE(pairs.potential.strings.contains(std::string(E::kStrings[i])));
    }
    expect_reads_back(pairs);

    // A per-pair string key in [potential] with pair tables is refused, as a coefficient is.
    for (const std::string_view name : E::kStrings) {
      std::vector<std::string> both = two;
      both.push_back("potential." + std::string(name) + "=x");
      try {
        parse_deck("", kDeckPath, both);
        ADD_FAILURE() << "potential." << name << " accepted with pair tables";
      } catch (const DeckError& e) {
        EXPECT_THAT(e.what(), HasSubstr("potential." + std::string(name) +
                                        ": is not used when [[potential.pair]] tables are given"));
      }
    }
  });
}

// A style's string keys are refused with every other style, naming the style given.
TEST(DeckKeys, StringKeysOfOneStyleAreRefusedWithAnother) {
  scanmd::for_each_pair_style([]<class E>() {
    auto names = std::vector<std::string_view>(E::kStrings.begin(), E::kStrings.end());
    names.insert(names.end(), E::kStringGlobals.begin(), E::kStringGlobals.end());
    scanmd::for_each_pair_style([&]<class Other>() {
      if constexpr (!std::is_same_v<E, Other>) {
        for (const std::string_view name : names) {
          SCOPED_TRACE(std::string(name) + " with " + std::string(Other::kName));
          bool its_own = false;  // (a key both styles have would be no error)
          for (const std::string_view o : Other::kStrings) its_own |= o == name;
          for (const std::string_view o : Other::kStringGlobals) its_own |= o == name;
          if (its_own) continue;
          std::vector<std::string> sets = one_species_sets<Other>();
          parsed("", sets);  // (runs without it)
          sets.push_back("potential." + std::string(name) + "=x");
          try {
            parse_deck("", kDeckPath, sets);
            ADD_FAILURE() << "accepted";
          } catch (const DeckError& e) {
            EXPECT_THAT(e.what(), HasSubstr("potential." + std::string(name) + ": "));
            EXPECT_THAT(e.what(), HasSubstr(std::string(name) + " is not a key of pair style \"" +
                                            std::string(Other::kName) + "\""));
          }
        }
      }
    });
  });
}

// The reference names every key and every style.
TEST(DeckKeys, TheReferenceHasEveryKeyAndStyle) {
  const std::string md = scanmd::io::deck_reference();
  for (const DeckKey& k : deck_keys()) {
    if (scanmd::io::is_style_keys_row(k) || k.lines) continue;
    EXPECT_THAT(md, HasSubstr("| `" + full_name(k) + "` |"));
  }
  EXPECT_THAT(md, HasSubstr("| `[[potential.pair]]` |"));
  scanmd::for_each_pair_style([&]<class E>() {
    EXPECT_THAT(md, HasSubstr("\n### `" + std::string(E::kName) + "`"));
    for (const std::string_view c : E::kCoefficients)
      EXPECT_THAT(md, HasSubstr("| `" + std::string(c) + "` |"));
    for (const std::string_view c : E::kGlobals)
      EXPECT_THAT(md, HasSubstr("| `" + std::string(c) + "` (style-level) |"));
    for (const std::string_view c : E::kStrings)
      EXPECT_THAT(md, HasSubstr("| `" + std::string(c) + "` |"));
    for (const std::string_view c : E::kStringGlobals)
      EXPECT_THAT(md, HasSubstr("| `" + std::string(c) + "` (style-level) |"));
  });
}

}  // namespace
