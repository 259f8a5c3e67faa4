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

namespace scanmd::io {

enum class Backend { Auto, Host, Cuda };
enum class Method { HalfShell, NeutralTerritory, FullShell, EighthShell, Midpoint };

// "auto" / "host" / "cuda"
std::string_view to_string(Backend);
// "half-shell" / "neutral-territory" / "full-shell" / "eighth-shell" / "midpoint"
std::string_view to_string(Method);

struct SystemSection {
  std::string lattice = "fcc";
  double density = 0.8442;
  std::array<int, 3> cells{20, 20, 20};
  double temperature = 1.44;
  std::uint64_t seed = 87287;
  double mass = 1.0;
  // LAMMPS write_data file (atom_style atomic) to start from; empty: the lattice above. When set,
  // box, ids, positions, image flags and velocities come from the file (lattice, density, cells,
  // temperature and seed are not used), the mass from its Masses section (`mass` when it has
  // none), and the box size is checked by the run once the file is read.
  std::string data_file;
};

struct PotentialSection {
  std::string style = "lj";
  double epsilon = 1.0, sigma = 1.0, cutoff = 2.5;
  bool shift = false;
};

struct NeighborSection {
  double skin = 0.3;
};

struct RunSection {
  double dt = 0.005;
  std::int64_t steps = 100;
  Backend backend = Backend::Auto;
};

struct DecompositionSection {
  Method method = Method::HalfShell;
  std::array<int, 3> grid{0, 0, 0};  // all 0: chosen automatically
};

struct OutputSection {
  std::int64_t thermo_every = 50;  // 0: only at the start and the end
  std::string trajectory;          // empty: no trajectory
  std::int64_t trajectory_every = 0;
  bool trajectory_force = false;  // forces in the trajectory too
  std::string checkpoint;         // empty: no checkpoint
  std::int64_t checkpoint_every = 0;
  bool overwrite = false;
  std::string imports;  // CSV of per-rank import counts at every rebuild; empty: not written
};

struct Deck {
  SystemSection system;
  PotentialSection potential;
  NeighborSection neighbor;
  RunSection run;
  DecompositionSection decomposition;
  OutputSection output;
  std::string path;  // the deck file as given

  // The resolved deck: every key with its value (defaults included), valid TOML, sections in the
  // order above. parse_deck(to_toml(), ...) gives back the same Deck.
  std::string to_toml() const;
  // fcc: (4/density)^(1/3)
  double lattice_constant() const;
  // cells * lattice_constant
  std::array<double, 3> box_length() const;
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
