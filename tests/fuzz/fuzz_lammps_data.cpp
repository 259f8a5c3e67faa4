// Fuzz target: the LAMMPS data file reader (io/lammps_data.cpp) on any bytes, read from memory
// (parse_lammps_data). Run by libFuzzer (scripts/fuzz.sh) and, over the committed corpora, by
// the ordinary test build (replay_main.cpp: tests fuzz.replay.lammps_data).
// Properties checked beyond "no crash, no leak, no undefined behaviour, no hang":
//   - a refusal is a DataFileError naming the file ("fuzz.data:LINE: ..." or "fuzz.data: ...");
//   - what is accepted keeps the reader's promises: ids 1..N each once, types within the
//     header's, finite positions and velocities, positive finite masses (one per type), lo < hi.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "io/lammps_data.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_lammps_data: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const scanmd::io::LammpsData d = scanmd::io::parse_lammps_data(text, "fuzz.data");
    if (d.atoms.empty()) fail("accepted without atoms", "");
    if (d.atom_types < 1) fail("accepted without atom types", "");
    if (!d.masses.empty() && d.masses.size() != static_cast<std::size_t>(d.atom_types))
      fail("masses do not match the atom types", "");
    for (const double m : d.masses)
      if (!(m > 0) || !std::isfinite(m)) fail("a mass that is not positive and finite", "");
    for (int a = 0; a < 3; ++a)
      if (!(d.lo[a] < d.hi[a]) || !std::isfinite(d.hi[a] - d.lo[a]))
        fail("a box that is not lo < hi", "");
    std::vector<bool> seen(d.atoms.size() + 1, false);
    for (const scanmd::io::LammpsAtom& a : d.atoms) {
      if (a.id < 1 || a.id > d.atoms.size() || seen[a.id]) fail("ids are not 1..N once each", "");
      seen[a.id] = true;
      if (a.type < 1 || a.type > d.atom_types) fail("a type outside the header's", "");
      for (const double q : {a.x, a.y, a.z, a.vx, a.vy, a.vz})
        if (!std::isfinite(q)) fail("a position or velocity that is not finite", "");
    }
  } catch (const scanmd::io::DataFileError& e) {
    const std::string m = e.what();
    if (!m.starts_with("fuzz.data:")) fail("a refusal that does not name the file", m);
  }
  return 0;
}
