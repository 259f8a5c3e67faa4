// scanmd input deck: the TOML file a run is driven by (`scanmd run deck.toml`), as a plain struct.
// Defaults are the LAMMPS in.lj benchmark. load_deck() parses with toml++, validates every key and
// reports the first problem compiler-style (`deck.toml:12:5: run.dt: must be > 0 (got -0.001)`);
// `--set section.key=value` overrides are applied after the file. No MPI here: the caller decides
// which rank reads and how the error is shown.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.hpp"

namespace scanmd::io {

// The sections and their defaults are core/config.hpp's: a deck is a SimulationConfig read from
// a file.
struct Deck : SimulationConfig {
  std::string path;  // the deck file as given

  // The resolved deck: every key with its value (defaults included), valid TOML, sections in the
  // order above. parse_deck(to_toml(), ...) gives back the same Deck.
  std::string to_toml() const;
};

class DeckError : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

// Reads and validates; applies overrides ("section.key=value") after the file. Throws DeckError.
Deck load_deck(const std::string& path, const std::vector<std::string>& overrides = {});
// Same, from a string (for tests); `path` is only used in messages and stored in Deck::path.
Deck parse_deck(std::string_view text, const std::string& path,
                const std::vector<std::string>& overrides = {});

}  // namespace scanmd::io
