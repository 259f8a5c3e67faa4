// The deck's keys, one row each: the one place a key is defined. A row says how the key is read
// (its checks and error messages), how the resolved deck prints it and when (Deck::to_toml walks
// the rows), its type, default, physical dimension and documentation (`scanmd deck-reference`
// prints them as docs/deck.md), and a valid value other than its default (the deck tests set it
// and read the resolved deck back). The sections of a deck are those of the rows, in row order:
// the order of the resolved deck and of the reference.
//
// Three rows stand for many keys: every pair style's coefficients read through the row whose
// key is kCoefficientKey, and its string keys (the table style's file, keyword, table_style)
// through kStringKey's (their names, defaults, domains, dimensions, examples and documentation
// are the styles' own, physics/pair/*.hpp); [[potential.pair]] is one row of tables. A key of
// one region style is an ordinary row with a condition (`when`): it is used and printed only
// with that value of another key (`region.lo` with `region.style = "slab"`).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/dimension.hpp"

namespace scanmd::io {

struct Deck;
class KeyReader;  // io/deck_reader.hpp

// The row that reads every pair coefficient ("epsilon", "d0", ...), and the row that reads every
// string key of a pair style ("file", "keyword", "table_style"): find_deck_key maps them to these.
inline constexpr std::string_view kCoefficientKey = "<coefficient>";
inline constexpr std::string_view kStringKey = "<string key>";

// Another key's value that a key needs to mean something: "region.style" = "\"slab\"" (the value
// as TOML text, as the resolved deck prints it).
struct KeyCondition {
  std::string_view key;
  std::string_view value;
  bool empty() const { return key.empty(); }
};

struct DeckKey {
  std::string_view section = {};
  std::string_view key = {};
  // The type column of the reference, with the range the reader enforces ("float > 0",
  // "[int, int, int], ≥ 1"); for keys that name one of a list, `choices` gives the list instead.
  std::string_view type = {};
  std::vector<std::string_view> (*choices)() = nullptr;
  Dimension dimension = Dimension::None;
  // The meaning, Markdown. Links into the manual are written `page.md#anchor` (the reference
  // is docs/deck.md, beside the manual's pages); {styles:shift}, {styles:tail} and {styles:mixing} become the
  // pair styles the flag applies to, {styles} every style with its aliases.
  std::string_view doc = {};
  // The key is used, and printed, only when this holds (empty: always).
  KeyCondition when = {};
  // Printed only when its value differs from the default (an empty list, the whole-box region).
  bool only_if_set = false;
  // The default column when the default Deck's value is no default (keys a style requires).
  std::string_view default_text = {};
  // A valid value other than the default, TOML text (as `--set key=VALUE` takes it), and the
  // overrides it needs besides `when` ("section.key=value", one per line); empty only for a key
  // with a single allowed value.
  std::string_view sample = {};
  std::string_view sample_needs = {};
  // A --set value that does not read as a TOML string is taken as written (a bare word).
  bool is_string = false;
  void (*read)(Deck&, const KeyReader&) = nullptr;
  // The value as the resolved deck prints it (TOML text) ...
  std::string (*value)(const Deck&) = nullptr;
  // ... or, for the rows of many keys, their lines ("epsilon = 1.0\nsigma = 1.0\n").
  std::string (*lines)(const Deck&) = nullptr;
};

std::span<const DeckKey> deck_keys();
// The sections, in the order of the rows.
std::span<const std::string_view> deck_sections();
// "run.dt"
std::string full_name(const DeckKey& k);
// Whether the row stands for the keys of the pair styles (kCoefficientKey's, kStringKey's).
bool is_style_keys_row(const DeckKey& k);
// The row of "section.key" (a pair coefficient's is kCoefficientKey's, a style's string key's
// kStringKey's), or nullptr.
const DeckKey* find_deck_key(std::string_view section, std::string_view key);
const DeckKey* find_deck_key(std::string_view full_name);
// Whether the key's condition holds in `deck`.
bool key_is_used(const DeckKey& k, const Deck& deck);
// Whether the resolved deck prints the key: used, and (only_if_set) not at its default.
bool key_is_printed(const DeckKey& k, const Deck& deck);
// The default as TOML text (the value of a default Deck), or default_text.
std::string default_value_text(const DeckKey& k);

}  // namespace scanmd::io
