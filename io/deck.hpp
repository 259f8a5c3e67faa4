// scanmd input deck: the TOML file a run is driven by (`scanmd run deck.toml`), as a plain struct.
// Defaults are the LAMMPS in.lj benchmark. load_deck() parses with toml++, validates every key and
// reports the first problem compiler-style (`deck.toml:12:5: run.dt: must be > 0 (got -0.001)`);
// `--set section.key=value` overrides are applied after the file. No MPI here: the caller decides
// which rank reads and how the error is shown.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/config.hpp"

namespace scanmd::io {

// The sections and their defaults are engine/config.hpp's: a deck is a SimulationConfig read from
// a file.
struct Deck : SimulationConfig {
  std::string path;  // the deck file as given
  // Where each given key came from ("deck.toml:12:5" or "--set run.dt=0.01"), by its name
  // ("run.dt"); [[potential.pair]] entries as "potential.pair[k]" (0-based).
  std::map<std::string, std::string> where;

  // The resolved deck: every key with its value (defaults included), valid TOML, keys and
  // sections in the order of the key table (io/deck_keys.cpp), a key of one style only with that
  // style. parse_deck(to_toml(), ...) gives back the same Deck.
  std::string to_toml() const;
};

class DeckError : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

// The species of this deck (make_species) with `types` atom types, or a DeckError naming the key
// at fault and where it was given; `types_from` says where the count came from when it is not
// the deck's (e.g. "the data file melt.data"); `masses_from` names the file the masses came from
// when they did not come from the deck (a data file's Masses section), so that a mass at fault
// blames that file. The pair style checks its own coefficients (e.g. LJ: a σ or ε whose force
// constants are not normal doubles), and run.dt may not exceed the style's time unit of any
// pair (LJ: τ = σ√(m/ε)). Called by parse_deck for lattice starts, and by the run
// once a data file has been read.
// potential.style eam, eam/alloy, eam/fs: reads the files into deck.potential.eam (once, for
// every later make_species) and takes the masses from them unless system.mass is given; a
// DeckError naming the key, and the file and line of a bad file.
void load_eam(Deck& deck);

void check_species(const Deck& deck, const std::string& types_from = {},
                   const std::string& masses_from = {});

// The largest deck load_deck reads (decks are a few KiB; this only stops non-decks).
inline constexpr std::uintmax_t kMaxDeckBytes = std::uintmax_t{8} << 20;  // 8 MiB

// Reads and validates; applies overrides ("section.key=value") after the file. The deck must be
// a regular file of at most kMaxDeckBytes. Throws DeckError.
Deck load_deck(const std::string& path, const std::vector<std::string>& overrides = {});
// Same, from a string (for tests); `path` is only used in messages and stored in Deck::path.
Deck parse_deck(std::string_view text, const std::string& path,
                const std::vector<std::string>& overrides = {});

}  // namespace scanmd::io
