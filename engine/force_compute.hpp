// The force computes of a run, in a list: each interaction says what it needs of the engine, and
// each backend runs its own side of it (DESIGN.md §9).
//
//   kind     pair (every style of physics/pair), later many-body (EAM: density pass → reverse
//            sum → F'(ρ) → forward → force pass) and bonded (bonds, angles)
//   cutoff   the longest distance between two particles of one of its terms: the import cutoff
//            R is the largest over the list plus the skin, so every term's partners are present
//            as ghosts
//   fields   the per-particle fields it reads, needs refreshed on ghosts every step before it
//            runs (forward), or has summed from ghosts into owners after it runs (reverse): the
//            halo moves exactly the declared fields, and a field no compute declares does not
//            exist (base/particle_fields.hpp)
// StepBackend::compute_forces runs the list in order: the first compute writes the forces (it
// zeroes them first), every later one adds to them, and their totals add up. The host side of a
// compute is HostForceCompute (engine/host_force_computes.hpp), the CUDA side
// DeviceForceCompute (engine/cuda/device_force_computes.hpp); both are made from the same
// ForceComputeInfo.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/particle_fields.hpp"
#include "engine/config.hpp"

namespace scanmd {

enum class ForceKind : std::uint8_t { Pair, ManyBody, Bonded };

// How a compute uses a per-particle field.
enum class FieldAccess : std::uint8_t {
  Read,        // on owned particles and ghosts as the step left them (ids, types)
  Forward,     // owners' values copied to their ghosts every step before the compute
  ReverseSum,  // ghosts' fixed-point contributions summed into their owners after the compute
  // A many-body compute's own exchanges between its passes (it calls the halo itself; the
  // backend does not move these): EAM's density summed into owners, then F'(ρ) forwarded.
  PassReverseSum,
  PassForward,
  // Owners' values copied to their ghosts at every rebuild only (the topology: it does not
  // change between rebuilds, and the ghosts of a rebuild stay until the next).
  RebuildForward,
};

// The built-in fields every run has (base/particles.hpp); other names are optional fields.
inline constexpr std::string_view kPositionField = "x";
inline constexpr std::string_view kForceField = "f";
inline constexpr std::string_view kTypeField = "type";
inline constexpr std::string_view kIdField = "id";
inline constexpr std::string_view kEamDensityField = "eam_rho";
inline constexpr std::string_view kEamSlopeField = "eam_fp";
// The velocity the pair forces see (styles with kPairMotion: DPD): v at velocity Verlet's half
// step, copied from v after the first half kick and forwarded to the ghosts by the field halo.
// A State field: a checkpoint keeps the v(n − ½) that F(n) saw, so that a restart recomputes
// F(n) bit for bit (v(n) alone cannot give it back).
inline constexpr std::string_view kPairVelocityField = "v_pair";
inline FieldSpec pair_velocity_field() {
  return {std::string(kPairVelocityField), FieldKind::Real, 3, FieldLife::State};
}

struct FieldUse {
  std::string field;
  FieldAccess access;
};

// Which pair potential a pair compute runs: the run's pair style (Species::pair) or the
// dpd/tstat thermostat's (Species::tstat).
enum class PairSource : std::uint8_t { Potential, Thermostat };

struct ForceComputeInfo {
  ForceKind kind = ForceKind::Pair;
  PairSource source = PairSource::Potential;  // a pair compute's potential
  std::string name;                           // for the log: "pair lj"
  double cutoff = 0.0;                        // the longest reach of one of its terms
  std::vector<FieldUse> fields;
  // The optional per-particle fields it needs to exist (base/particle_fields.hpp), by name in
  // `fields` too: none for a pair compute but of a style that reads the pair's motion
  // (kPairVelocityField, forwarded).
  std::vector<FieldSpec> particle_fields;
  // The optional fields it forwards or reverse-sums (not x and f, which every step moves).
  std::vector<std::string> halo_fields(FieldAccess access) const;
};

// The computes a configuration calls for, in the order the step runs them: the pair compute of
// its pair style (with its largest pair cutoff), or the many-body compute of eam, eam/alloy,
// eam/fs (the files' cutoff; Scratch fields eam_rho, fixed point, and eam_fp); then with
// thermostat.style = "dpd/tstat" the thermostat's pair compute (its cutoff); then with a bond or
// angle style the bonded compute (engine/bonded_forces.hpp): its reach is the longest bond
// (bond_reach), twice that with angles (an angle's two ends), its fields the topology's
// (engine/topology.hpp: State, forwarded to the ghosts at every rebuild).
std::vector<ForceComputeInfo> force_computes(const SimulationConfig& config);
// The same without the bonded compute.
std::vector<ForceComputeInfo> nonbonded_computes(const SimulationConfig& config);

// The optional per-particle fields of the whole list, in order (each once), and those of them
// that live with the particle (FieldLife::State: migrated, checkpointed, given at a restart).
std::vector<FieldSpec> particle_fields(const std::vector<ForceComputeInfo>& computes);
std::vector<FieldSpec> state_fields(const std::vector<ForceComputeInfo>& computes);

// The optional fields the list forwards (or reverse-sums), each once, in order.
std::vector<std::string> halo_fields(const std::vector<ForceComputeInfo>& computes,
                                     FieldAccess access);

// The bytes one ghost record costs per step on the network: forward, the position and every
// field the computes forward (every step, or between a many-body compute's passes: EAM's F'),
// and reverse, the force and every field summed back into owners (EAM's density). A pair
// compute: 24 and 24; EAM: 32 and 32. (HaloExchange's bytes_per_step and `scanmd model`.)
struct HaloRecordBytes {
  long long forward = 24, reverse = 24;
};
HaloRecordBytes halo_record_bytes(const std::vector<ForceComputeInfo>& computes);

// The pair computes of the list: each of their pair terms is kept below the fixed point's
// per-term bound divided by this count (a particle's force gets terms from every one of them).
int pair_compute_count(const std::vector<ForceComputeInfo>& computes);

// The largest cutoff over the list (0 for none).
double force_reach(const std::vector<ForceComputeInfo>& computes);
// The largest cutoff of the computes that read the neighbour list (all but bonded ones): the
// list holds the pairs within it plus the skin, whatever the import cutoff (a FENE bond's R0
// may reach beyond the WCA cutoff; the bonds do not lengthen the pair list).
double list_reach(const std::vector<ForceComputeInfo>& computes);

// "pair lj (r_c 2.5)": the list for the log.
std::string describe(const std::vector<ForceComputeInfo>& computes);

}  // namespace scanmd
