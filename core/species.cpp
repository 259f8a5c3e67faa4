// Species tables and lattice types (see species.hpp).
#include "core/species.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

#include <fmt/format.h>

namespace scanmd {

namespace {

std::string pair_name(int i, int j) {
  return fmt::format("[{}, {}]", i, j);
}

double mix_distance(Mixing m, double a, double b) {
  return m == Mixing::Arithmetic ? 0.5 * (a + b) : std::sqrt(a * b);
}

// A pair at its minimum has U = −ε; one pair's energy term must stay below the fixed-point
// limit 2^62 units of 2^-40 (base/fixed_point.hpp), so an ε at or above 2^22 cannot run at all.
void check_epsilon(const std::string& key, double epsilon) {
  constexpr double kMax = 4194304.0;  // 2^22
  if (!(epsilon < kMax))
    throw SpeciesError(key, fmt::format("epsilon = {:.6g} is beyond the 64-bit fixed point of the "
                                        "energies: a pair at its minimum has U = -epsilon, and "
                                        "one pair's term must stay below 2^22 = 4194304 (LJ "
                                        "units want epsilon of order 1)",
                                        epsilon));
}

std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

Species make_species(const SimulationConfig& config) {
  const PotentialSection& pot = config.potential;
  const int T = config.system.type_count();
  Species s;
  s.types = T;

  if (T < 1 || T > kMaxAtomTypes)
    throw SpeciesError("system.type_fractions",
                       fmt::format("{} atom types: a run has 1..{}", T, kMaxAtomTypes));
  const std::vector<double>& mass = config.system.mass;
  if (mass.size() != 1 && mass.size() != static_cast<std::size_t>(T))
    throw SpeciesError("system.mass", fmt::format("{} masses given for {} atom type{}: give one "
                                                  "for every type, or one for all",
                                                  mass.size(), T, T == 1 ? "" : "s"));
  for (int t = 0; t < T; ++t) s.mass.push_back(config.system.mass_of(t));
  // Velocities go as m^-1/2 and kinetic terms as m·v²: a subnormal mass (below 2^-1022) has too
  // few digits for either (1e-310 overflowed v² and read as "moves too fast").
  for (const double m : s.mass)
    if (!(m >= std::numeric_limits<double>::min()))
      throw SpeciesError("system.mass",
                         fmt::format("mass {} is below the smallest normal double ({}): its "
                                     "velocities and kinetic energy cannot be computed exactly",
                                     m, std::numeric_limits<double>::min()));

  std::vector<std::optional<PairCoefficients>> given(static_cast<std::size_t>(T) * T);
  if (pot.pairs.empty()) {
    // Several types with one set of coefficients is more likely a forgotten table than meant.
    if (T > 1)
      throw SpeciesError("potential.pair",
                         fmt::format("no coefficients for types [2, 2] and the other pairs of {} "
                                     "atom types: list them as [[potential.pair]] tables "
                                     "(types = [i, j], epsilon, sigma, cutoff)",
                                     T));
    check_epsilon("potential.epsilon", pot.epsilon);
    given[0] = PairCoefficients{pot.epsilon, pot.sigma, pot.cutoff};
  }
  for (std::size_t k = 0; k < pot.pairs.size(); ++k) {
    const PairCoeffs& c = pot.pairs[k];
    const std::string key = fmt::format("potential.pair[{}]", k);
    for (const int t : c.types)
      if (t < 1 || t > T)
        throw SpeciesError(key, fmt::format("types {}: type {} does not exist (types are 1..{})",
                                            pair_name(c.types[0], c.types[1]), t, T));
    check_epsilon(key, c.epsilon);
    const int i = c.types[0] - 1, j = c.types[1] - 1;
    if (given[i * T + j])
      throw SpeciesError(
          key, fmt::format("types {} are given twice", pair_name(c.types[0], c.types[1])));
    given[i * T + j] = given[j * T + i] =
        PairCoefficients{c.epsilon, c.sigma, c.cutoff.value_or(pot.cutoff)};
  }
  for (int i = 0; i < T; ++i)
    if (!given[i * T + i])
      throw SpeciesError("potential.pair",
                         fmt::format("no coefficients for types {} (every like pair is listed: "
                                     "add [[potential.pair]] types = {}, epsilon, sigma)",
                                     pair_name(i + 1, i + 1), pair_name(i + 1, i + 1)));
  for (int i = 0; i < T; ++i)
    for (int j = i + 1; j < T; ++j) {
      if (given[i * T + j]) continue;
      if (pot.mixing == Mixing::None)
        throw SpeciesError("potential.pair",
                           fmt::format("no coefficients for types {} (potential.mixing = \"none\" "
                                       "needs every pair listed)",
                                       pair_name(i + 1, j + 1)));
      const PairCoefficients& a = *given[i * T + i];
      const PairCoefficients& b = *given[j * T + j];
      given[i * T + j] = given[j * T + i] = PairCoefficients{
          std::sqrt(a.epsilon * b.epsilon), mix_distance(pot.mixing, a.sigma, b.sigma),
          mix_distance(pot.mixing, a.cutoff, b.cutoff)};
    }
  for (const auto& g : given) {
    s.coeffs.push_back(*g);
    s.lj.push_back(LJParams::make(g->epsilon, g->sigma, g->cutoff, pot.shift));
    s.max_cutoff = std::max(s.max_cutoff, g->cutoff);
  }
  return s;
}

TailCorrection Species::tail(const std::vector<long long>& count) const {
  TailCorrection t;
  for (int i = 0; i < types; ++i)
    for (int j = 0; j < types; ++j) {
      const PairCoefficients& c = pair(i, j);
      const double sig2 = c.sigma * c.sigma, sig6 = sig2 * sig2 * sig2;
      const double rc3 = c.cutoff * c.cutoff * c.cutoff, rc6 = rc3 * rc3, rc9 = rc3 * rc6;
      const double prefactor = 8.0 * std::numbers::pi * static_cast<double>(count[i]) *
                               static_cast<double>(count[j]) * c.epsilon * sig6 / (9.0 * rc9);
      t.energy += prefactor * (sig6 - 3.0 * rc6);
      t.pressure += 2.0 * prefactor * (2.0 * sig6 - 3.0 * rc6);
    }
  return t;
}

std::vector<std::uint64_t> type_counts(const std::vector<double>& fractions, std::uint64_t n) {
  std::vector<std::uint64_t> counts(fractions.size());
  std::vector<std::pair<double, std::size_t>> remainder;
  std::uint64_t assigned = 0;
  for (std::size_t t = 0; t < fractions.size(); ++t) {
    const double exact = fractions[t] * static_cast<double>(n);
    counts[t] = static_cast<std::uint64_t>(std::floor(exact));
    assigned += counts[t];
    remainder.emplace_back(exact - std::floor(exact), t);
  }
  std::stable_sort(remainder.begin(), remainder.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; assigned < n && k < remainder.size(); ++k, ++assigned)
    ++counts[remainder[k].second];
  // Rounding of f·n can leave more than T sites over only if the fractions do not sum to 1.
  if (assigned < n) counts.back() += n - assigned;
  return counts;
}

LatticeTypes::LatticeTypes(const std::vector<double>& fractions, std::uint64_t n,
                           std::uint64_t seed)
    : n_(n), seed_(seed) {
  std::uint64_t sum = 0;
  for (const std::uint64_t c :
       type_counts(fractions.empty() ? std::vector<double>{1.0} : fractions, n))
    upper_.push_back(sum += c);
  int bits = 1;
  while (bits < 64 && (std::uint64_t{1} << bits) < n) ++bits;
  half_bits_ = (bits + 1) / 2;
}

// A balanced Feistel network on 2·half_bits bits is a permutation of [0, 4^half_bits); cycle
// walking (re-applying it until the value falls below n) restricts it to a permutation of [0, n).
std::uint64_t LatticeTypes::permute(std::uint64_t k) const {
  const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
  do {
    std::uint64_t left = k >> half_bits_, right = k & mask;
    for (std::uint64_t round = 0; round < 4; ++round) {
      const std::uint64_t f = splitmix(seed_ ^ splitmix(round ^ (right << 8))) & mask;
      const std::uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    k = (left << half_bits_) | right;
  } while (k >= n_);
  return k;
}

std::uint32_t LatticeTypes::operator()(std::uint64_t id) const {
  const std::uint64_t slot = permute(id - 1);
  return static_cast<std::uint32_t>(std::upper_bound(upper_.begin(), upper_.end(), slot) -
                                    upper_.begin());
}

}  // namespace scanmd
