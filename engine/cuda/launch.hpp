// engine/cuda/launch.hpp — the kernels of the CUDA time step as plain C++ launchers (internal to
// engine/cuda: the device_*.cpp classes and cuda_backend.cpp call them; the .cu files define them).
//
// Conventions: all pointers are device pointers; every launcher is asynchronous on `stream`,
// returns at once for an empty range (a zero-block grid is a launch error) and throws
// std::runtime_error naming the kernel when the launch fails. Particle counts fit in uint32
// (checked by the caller). Fixed-point forces (Fix3) are updated with 64-bit integer atomics on
// their unsigned bit patterns: two's complement addition is the same operation, and integer
// sums do not depend on the order of the atomics, so the bits equal the host's.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "base/box.hpp"
#include "base/vec3.hpp"
#include "decomposition/export_selection.hpp"
#include "decomposition/import_rule.hpp"
#include "engine/cell_list.hpp"
#include "engine/cuda/neighbor_runs.hpp"
#include "engine/topology.hpp"
#include "physics/bonded/bonded_config.hpp"
#include "physics/bonded/bonded_terms.hpp"
#include "physics/bonded/special_pair.hpp"
#include "physics/dynamics/fire.hpp"
#include "physics/dynamics/langevin.hpp"
#include "physics/manybody/eam.hpp"
#include "physics/pair/pair_style.hpp"

namespace scanmd::cuda_step {

inline constexpr unsigned long long kNone = ~0ull;  // "no offending index"

// Flags and sums the kernels write, one instance in device memory, mirrored to pinned host
// memory at the synchronisation points. Error fields hold the lowest offending index
// (atomicMin), kNone when none; they are set once at construction and never cleared (the run
// stops at the first error). 128-bit sums are two words (lo, hi) added with carry.
struct DeviceFlags {
  unsigned long long moved;           // some owned particle moved more than skin/2 (reset per step)
  unsigned long long pairs;           // pairs within the cutoff          (reset per force call)
  unsigned long long energy[2];       // Σ U, units 2^-40                 (reset per force call)
  unsigned long long virial[2];       // Σ r·F, units 2^-40               (reset per force call)
  unsigned long long bond_energy[2];  // the bonds' part of energy    (reset per force call)
  unsigned long long angle_energy[2];  // the angles' part of energy   (reset per force call)
  unsigned long long kinetic[2];       // Σ m v², units 2^-40              (reset per kinetic sum)
  unsigned long long max_terms;        // most list entries of one particle (reset per build)
  unsigned long long tower, plate, bonded;  // ghosts received: imported kinds (reset per build)
  unsigned long long census_count;          // owned particles          (reset per census)
  unsigned long long census_id[2];          // Σ id, 128 bits           (reset per census)
  unsigned long long census_id_sq[2];       // Σ id², 128 bits       (reset per census)
  unsigned long long bad_position;      // owned index: non-finite or outside [0, L) after the drift
  unsigned long long bad_cell;          // particle index: far outside the local domain when binned
  unsigned long long pair_overflow;     // neighbour-list entry whose pair term does not fit
  unsigned long long sum_overflow;      // export entry whose reverse force sum overflowed
  unsigned long long kinetic_overflow;  // owned index whose m v² does not fit
  unsigned long long work[2];           // Langevin work since the start, units 2^-40 (never reset)
  // FIRE minimisation (fire.cu): the maxima of fire_terms as the bit patterns of non-negative
  // doubles (t[0..2], vmax, fmax), and the quantised sums (reset per call).
  unsigned long long fire_max[5];
  unsigned long long fire_sum[3][2];
  unsigned long long bond_bad;         // bonded term index: a FENE bond beyond what it holds
  unsigned long long bonded_overflow;  // bonded term index whose force or energy does not fit
};
// The words of the per-force-call totals: pairs, energy, virial, bond_energy, angle_energy.
inline constexpr std::size_t kForceTotalWords = 9;

// ---- integrate.cu ------------------------------------------------------------------------------
struct IntegrateArgs {
  Vec3* x;
  Vec3* v;
  Int3* image;
  const Fix3* f;
  const Vec3* x_build;
  const std::uint32_t* type;
  std::uint32_t n_owned;
  double dt, dtf;        // dtf = dt / 2m of the one species
  const double* dtf_of;  // several species: dt / 2m per type (then dtf is not used); else null
  double moved_sq;       // (skin/2)²
  Box box;
  PairImages images;        // Explicit: a wrap counts as a move (moved_beyond_limit)
  const std::uint64_t* id;  // Langevin: the counter's particle id
  LangevinView langevin;    // inactive (drag null): plain velocity Verlet
  std::uint64_t step;       // Langevin counter of this kick
  DeviceFlags* flags;
  Fix3* zero_f;  // fused: f[i] zeroed once the half kick has read it; null: kept
};
// verlet_initial + wrap + position check + moved_beyond_limit (flags->moved).
void launch_initial_integrate(const IntegrateArgs& a, cudaStream_t stream);
// Per-type factors: `of` (device array by type) when several species, else the one `value`.
struct PerType {
  double value;
  const double* of;
  const std::uint32_t* type;
  SCANMD_HD double operator()(std::uint32_t i) const { return of != nullptr ? of[type[i]] : value; }
};
struct KickArgs {
  Vec3* v;
  const Fix3* f;
  const std::uint32_t* type;
  const std::uint64_t* id;
  std::uint32_t n_owned;
  PerType dtf;
  double half_dt;  // dt/2 (Langevin work)
  LangevinView langevin;
  std::uint64_t step;
  DeviceFlags* flags;
  bool reset_moved;  // fused: flags->moved = 0 for the next kick_drift (block 0, thread 0)
};
void launch_final_integrate(const KickArgs& a, cudaStream_t stream);
// v ← factor · v (Nosé–Hoover).
void launch_scale_velocities(Vec3* v, std::uint32_t n_owned, double factor, cudaStream_t stream);
// The owned v into three planes of 64-bit words (x, y, z components: a width-3 Real column of
// DeviceFields, the DPD pair velocity).
void launch_velocity_planes(const Vec3* v, std::uint32_t n_owned, std::uint64_t* px,
                            std::uint64_t* py, std::uint64_t* pz, cudaStream_t stream);
// flags->kinetic += Σ m v² (fixed point) over the owned particles.
void launch_twice_kinetic(const Vec3* v, std::uint32_t n_owned, PerType mass, DeviceFlags* flags,
                          cudaStream_t stream);

// ---- fire.cu -----------------------------------------------------------------------------------
// FIRE minimisation (physics/dynamics/fire.hpp) over the owned particles: flags->fire_max (reset
// by the caller) gets the maxima of fire_terms; flags->fire_sum the quantised sums (reset by the
// caller); the update is fire_update_particle with the position check (flags->bad_position) and
// the skin/2 test (flags->moved, reset by the caller).
struct FireArgs {
  Vec3* x;
  Vec3* v;
  Int3* image;
  const Fix3* f;
  const Vec3* x_build;
  std::uint32_t n_owned;
  PerType mass;
  double moved_sq;  // (skin/2)²
  Box box;
  PairImages images;
  DeviceFlags* flags;
};
void launch_fire_maxima(const FireArgs& a, cudaStream_t stream);
void launch_fire_sums(const FireArgs& a, const FireScales& scales, cudaStream_t stream);
void launch_fire_update(const FireArgs& a, const FireUpdate& u, cudaStream_t stream);

// ---- neighbors.cu ------------------------------------------------------------------------------
// Cell binning: q = x + shift·L, cell = grid.cell_of(q), key = flat cell index.
struct BinArgs {
  const Vec3* x;
  const Int3* shift;
  std::uint32_t n;
  Vec3 length;
  CellGrid grid;
  Vec3* q;
  Int3* cell;
  std::uint32_t* key;
  DeviceFlags* flags;
};
void launch_bin(const BinArgs& a, cudaStream_t stream);
// After the counting sort: rank[order[k]] = k, q_sorted[k] = q[order[k]], home_sorted[k] = ...
void launch_gather_sorted(const std::uint32_t* order, const Vec3* q, const Int3* home,
                          std::uint32_t n, std::uint32_t* rank, Vec3* q_sorted, Int3* home_sorted,
                          cudaStream_t stream);

// Pass 1: accepted candidates per element. Segmented mode (row_len == nullptr): writes
// run_count[e] and heads[e] = (e % 25 == 0). Atomic mode: run_offset[e] = atomicAdd(row_len[i],
// count) (row_len zeroed by the caller).
void launch_neighbor_count(const NeighborArgs& a, std::uint32_t* run_count, std::uint8_t* heads,
                           std::uint32_t* run_offset, std::uint64_t* row_len, cudaStream_t stream);
// Segmented mode (run_count != nullptr): row_len[i] = run_offset[last] + run_count[last] of
// row i. Both modes: terms[i] = row_len[i].
void launch_neighbor_rows(std::uint32_t n, const std::uint32_t* run_count,
                          const std::uint32_t* run_offset, std::uint64_t* row_len,
                          std::uint32_t* terms, cudaStream_t stream);
// Pass 2: neighbors[row_offset[i] + run_offset[e] + c] = c-th accepted j of element e;
// terms[j] += 1 for each.
void launch_neighbor_fill(const NeighborArgs& a, const std::uint32_t* run_offset,
                          const std::uint64_t* row_offset, std::uint32_t* neighbors,
                          std::uint32_t* terms, cudaStream_t stream);
// flags->max_terms = max(flags->max_terms, max terms[i]).
void launch_max_terms(const std::uint32_t* terms, std::uint32_t n, DeviceFlags* flags,
                      cudaStream_t stream);

// ---- forces.cu ---------------------------------------------------------------------------------
template <class E>
struct ForceArgs {
  const Vec3* x;
  const Int3* shift;  // image shifts (read with PairImages::Explicit only)
  const std::uint64_t* id;
  const std::uint32_t* type;
  const std::uint64_t* offsets;  // n + 1
  const std::uint32_t* neighbors;
  Fix3* f;  // zeroed by the caller
  std::uint32_t n, n_owned;
  Vec3 length, half_length;
  PairImages images;       // minimum image, or the shifts of the listed images (small boxes)
  typename E::Params one;  // one species: its pair (table not used)
  PairTable<E> table;      // several species (table.types > 1): by the pair's types, device memory
  double limit_sq;         // pair_term_limit_sq(max_terms)
  DeviceFlags* flags;
  // Styles that read the pair's motion (MotionStyle: DPD): the velocities the forces see (owned,
  // then ghosts: the three planes of the kPairVelocityField column, doubles' bits) and the step
  // of the pairs' random numbers; unused otherwise.
  const std::uint64_t* vx;
  const std::uint64_t* vy;
  const std::uint64_t* vz;
  std::uint64_t step;
};
// Four threads per row; flags->pairs (and energy, virial when with_energy) accumulate.
// Defined in forces.cu for every style of physics/pair/styles.hpp.
template <class E>
void launch_pair_forces(const ForceArgs<E>& a, bool with_energy, bool owned_shares_only,
                        cudaStream_t stream);

// ---- eam.cu ------------------------------------------------------------------------------------
// The many-body EAM compute's three kernels (see eam.cu), the host's engine/eam_forces.cpp loop
// for loop: the same IEEE operations in the same order, fixed-point integer sums.
struct EamArgs {
  const Vec3* x;
  const Int3* shift;  // image shifts (read with PairImages::Explicit only)
  const std::uint64_t* id;
  const std::uint32_t* type;
  const std::uint64_t* offsets;  // n + 1
  const std::uint32_t* neighbors;
  Fix3* f;            // forces: added to
  std::int64_t* rho;  // the eam_rho plane (units 2^-40), zeroed by the caller before density
  std::uint64_t* fp;  // the eam_fp plane: F'(ρ) as the bits of a double
  std::uint32_t n, n_owned;
  Vec3 length, half_length;
  PairImages images;
  EamView view;            // its tables in device memory
  double limit_sq;         // pair_term_limit_sq(max_terms)
  bool owned_shares_only;  // full shell: density added to owned particles only, energy shared
  DeviceFlags* flags;
  unsigned long long* outside;  // not null: counts owned densities outside [0, ρ_max]
};
// Pass 1: every listed pair within the cutoff adds its densities to rho (i, and j unless full
// shell keeps ghosts out). A term or a sum beyond the fixed point raises flags->pair_overflow.
void launch_eam_density(const EamArgs& a, cudaStream_t stream);
// Pass 2: F'(ρ) of the owned particles into fp; F(ρ) into flags->energy when with_energy; the
// owned densities outside the tables counted into *outside when it is not null.
void launch_eam_embedding(const EamArgs& a, bool with_energy, cudaStream_t stream);
// Pass 3: forces (and pairs; the pair energy and virial when with_energy), as the pair kernel.
void launch_eam_forces(const EamArgs& a, bool with_energy, cudaStream_t stream);

// ---- bonded.cu ---------------------------------------------------------------------------------
// The bonds and angles a rank lists (engine/bonded_forces.hpp), one thread per term: the shared
// fixed-point evaluation of physics/bonded/bonded_terms.hpp, forces added with integer atomics,
// energy, its bond and angle parts and the virial as 128-bit block sums. A bad FENE bond raises
// flags->bond_bad, a term beyond the fixed point flags->bonded_overflow (lowest term index).
struct BondedArgs {
  const Vec3* x;
  Fix3* f;
  const BondedTerm* terms;
  std::uint32_t count;
  const BondCoeff* bond;    // [type − 1]
  const AngleCoeff* angle;  // [type − 1]
  BondStyle bond_style;
  AngleStyle angle_style;
  Vec3 length, half_length;
  DeviceFlags* flags;
  // special_bonds 1-2 weight in (0, 1): each term's share (launch_special_shares; read for the
  // bonds), added to its fbond and energy as the host compute adds it; nullptr without.
  const SpecialShare* special;
};
void launch_bonded_forces(const BondedArgs& a, bool with_energy, cudaStream_t stream);

// The special_bonds shares of the listed bonds (physics/bonded/special_pair.hpp), one thread per
// term, into out[k] (angles: nothing added). Defined in bonded.cu for every style of
// physics/pair/styles.hpp that does not read the pairs' motion.
template <class E>
struct SpecialShareArgs {
  const Vec3* x;
  const std::uint32_t* type;
  const BondedTerm* terms;
  std::uint32_t count;
  Vec3 length, half_length;
  typename E::Params one;  // one species: its pair (table not used)
  PairTable<E> table;      // several species (table.types > 1), device memory
  double weight;           // the 1-2 weight w
  SpecialShare* out;       // count entries
};
template <class E>
void launch_special_shares(const SpecialShareArgs<E>& a, cudaStream_t stream);

// The listing of a rebuild on the device (HostBondedCompute::list_terms, engine/bonded_forces.hpp:
// the same terms in the same order, the same rules), as count → scan → fill:
//   copies  every particle and ghost index into an open-addressing table by id (linear probing,
//           one slot per copy; the caller fills it with 0xff bytes first, slots >= 2 n)
//   count   counts[c]: the terms copy c lists (its bonds to higher ids, then the angles of which
//           it is the vertex, each where its partners' minimum images are here and the
//           decomposition's rule gives it to this rank); and into sums[0..5] the global check's
//           counts (HostBondedCompute::check_terms: bonds and angles whose energy is added here,
//           the atoms' shares applied here, the terms the owned particles hold)
//   fill    after the caller's exclusive scan into offsets: the terms of c from offsets[c]; the
//           lowest index of a term whose type has no coefficients into *no_coeff (atomicMin)
struct BondedListArgs {
  const std::uint64_t* id;
  const Vec3* x;
  const Int3* home;
  const Int3* shift;
  std::uint32_t n, n_owned;
  bool bonds, angles;                                // listed at all (style and fields)
  const std::uint64_t* bond_atom[kBondSlots];        // the bond_atom planes (partner ids, 0: none)
  const std::uint64_t* bond_type[kBondSlots];        // the bond_type planes
  const std::uint64_t* angle_atom[2 * kAngleSlots];  // end ids of each angle slot, 2 planes each
  const std::uint64_t* angle_type[kAngleSlots];
  Vec3 half_length;
  PairRule rule;
  std::uint32_t* copies;  // the table (2^k slots), mask = slots − 1
  std::uint32_t mask;
  const std::uint8_t* bond_given;  // [type − 1]: the type has coefficients
  std::uint32_t bond_types;
  const std::uint8_t* angle_given;
  std::uint32_t angle_types;
  unsigned long long* sums;  // [6], zeroed by the caller
};
void launch_bonded_copies(const BondedListArgs& a, cudaStream_t stream);
void launch_bonded_count(const BondedListArgs& a, std::uint32_t* counts, cudaStream_t stream);
void launch_bonded_fill(const BondedListArgs& a, const std::uint32_t* offsets, BondedTerm* terms,
                        unsigned long long* no_coeff, cudaStream_t stream);

// The special_bonds exclusions: the entries (i, j) of the list whose j is a bond partner of i
// (the bond_atom planes, `slots` of them, by id) left out. Pass 1 (count): kept entries per row
// into row_len; pass 2 (fill, after the caller's exclusive scan into new_offsets): the kept
// entries in their order into new_neighbors.
struct DropBondedArgs {
  const std::uint64_t* id;
  const std::uint64_t* const* bond_atom;  // `slots` device pointers (a device array)
  int slots;
  std::uint32_t n;
  const std::uint64_t* offsets;  // n + 1
  const std::uint32_t* neighbors;
};
void launch_drop_bonded_count(const DropBondedArgs& a, std::uint64_t* row_len, cudaStream_t stream);
void launch_drop_bonded_fill(const DropBondedArgs& a, const std::uint64_t* new_offsets,
                             std::uint32_t* new_neighbors, cudaStream_t stream);

// ---- ghosts.cu ---------------------------------------------------------------------------------
// Export selection and ghost creation of a rebuild on the device (see ghosts.cu): the host's
// ExportSelector::select and HaloExchange::build as count → scan → fill → counting sort → pack.
struct ExportArgs {
  const Vec3* x;  // owned particles
  std::uint32_t n_owned;
  ExportGeometry geometry;
  Int3 coord;  // this rank's box
};
// counts[i] = export entries of owned particle i.
void launch_count_exports(const ExportArgs& a, std::uint32_t* counts, cudaStream_t stream);
// Entry offsets[i] + c of particle i: its c-th (destination rank, shift, kind), in visit order.
void launch_fill_exports(const ExportArgs& a, const std::uint32_t* offsets, std::uint32_t* dest,
                         std::uint32_t* particle, Int3* shift, ImportKind* kind,
                         cudaStream_t stream);
// What a ghost is sent as (the host's HaloExchange::GhostRecord).
struct GhostRecord {  // 64 bytes
  std::uint64_t id;
  Vec3 x;
  Int3 home;
  Int3 shift;
  std::uint32_t type;
  ImportKind kind;
};
static_assert(sizeof(GhostRecord) == 64);
// After the counting sort of the entries by destination: export_index[k] = particle[perm[k]],
// send[k] = the ghost record of entry perm[k] (home = coord + S·dims).
struct PackGhostArgs {
  const std::uint32_t* perm;
  const std::uint32_t* particle;
  const Int3* shift;
  const ImportKind* kind;
  std::uint32_t m;
  const std::uint64_t* id;
  const std::uint32_t* type;
  const Vec3* x;
  Int3 coord, dims;
  std::uint32_t* export_index;
  GhostRecord* send;
};
void launch_pack_ghosts(const PackGhostArgs& a, cudaStream_t stream);
// Ghost slot n_owned + k from recv[k] (forces zeroed); flags->tower / plate count the kinds.
struct GhostSlots {
  std::uint64_t* id;
  std::uint32_t* type;
  Vec3* x;
  Int3* home;
  Int3* shift;
};
void launch_unpack_ghosts(const GhostRecord* recv, std::uint32_t m, GhostSlots slots,
                          DeviceFlags* flags, cudaStream_t stream);

// Owned particles into cell order (after a counting sort of their cells): out[k] = in[order[k]]
// for id, type, x, v, image — as ParticleStore::permute_owned does on the host.
struct OwnedArrays {
  std::uint64_t* id;
  std::uint32_t* type;
  Vec3* x;
  Vec3* v;
  Int3* image;
};
void launch_gather_owned(const std::uint32_t* order, std::uint32_t n_owned, OwnedArrays in,
                         OwnedArrays out, cudaStream_t stream);

// ---- migrate.cu --------------------------------------------------------------------------------
// Migration and census of a rebuild on the device (see migrate.cu).
// key[i] = rank of the box holding owned particle i (GridCuts::box_of, RankGrid::rank_of).
void launch_destinations(const Vec3* x, std::uint32_t n_owned, GridCuts cuts, std::uint32_t* key,
                         cudaStream_t stream);
// What a migrating particle is sent as (the host's HaloExchange::MigrantRecord).
struct MigrantRecord {  // 72 bytes
  std::uint64_t id;
  Vec3 x, v;
  Int3 image;
  std::uint32_t type;
};
static_assert(sizeof(MigrantRecord) == 72);
// Leavers in destination order, after the counting sort (perm) of the destinations: send entry k
// is owned particle perm[k] for k < stay_begin, perm[k + stay_count] after (the stayers' run
// [stay_begin, stay_begin + stay_count) of perm is skipped).
void launch_pack_migrants(const std::uint32_t* perm, std::uint32_t leavers,
                          std::uint32_t stay_begin, std::uint32_t stay_count, OwnedArrays owned,
                          MigrantRecord* send, cudaStream_t stream);
// Owned slots [first, first + m) from the records (arrivals).
void launch_unpack_migrants(const MigrantRecord* recv, std::uint32_t m, std::uint32_t first,
                            OwnedArrays owned, cudaStream_t stream);
// home = coord, shift = 0 for the owned particles (their frame after a migration).
void launch_owned_frame(Int3* home, Int3* shift, std::uint32_t n_owned, Int3 coord,
                        cudaStream_t stream);
// flags->census_count / census_id / census_id_sq += n_owned, Σ id, Σ id² (exact integers).
void launch_census(const std::uint64_t* id, std::uint32_t n_owned, DeviceFlags* flags,
                   cudaStream_t stream);

// The per-particle field planes of a rebuild (DeviceFields): out[k] = in[order[k]], k < count;
// out[k · stride] = plane[idx[k]] (a migrant's State words, interleaved); plane[k] =
// in[k · stride], k < m (the arrivals' words into their slots).
void launch_gather_words(const std::uint64_t* in, const std::uint32_t* order, std::uint32_t count,
                         std::uint64_t* out, cudaStream_t stream);
void launch_pack_plane(const std::uint64_t* plane, const std::uint32_t* idx, std::uint32_t count,
                       std::uint64_t* out, std::uint32_t stride, cudaStream_t stream);
void launch_unpack_plane(const std::uint64_t* in, std::uint32_t stride, std::uint32_t m,
                         std::uint64_t* plane, cudaStream_t stream);

// ---- halo.cu -----------------------------------------------------------------------------------
// The part of a halo plan a rank sends to itself (periodic images of its own particles): send
// entries [send_offset, send_offset + count) are ghost slots [recv_offset, recv_offset + count).
struct SelfPart {
  std::uint32_t send_offset, recv_offset, count;
};
// send[k] = x[export_index[k]] for k < m; self entries also straight into ghost_x. Fused (the
// force call's zeroing, when `fused` is not null): ghost_f[k] = 0 for k < ghosts, and the force
// call's totals fused->pairs, energy, virial = 0.
void launch_pack_positions(const Vec3* x, const std::uint32_t* export_index, std::uint32_t m,
                           SelfPart self, Vec3* send, Vec3* ghost_x, Fix3* ghost_f,
                           std::uint32_t ghosts, DeviceFlags* fused, cudaStream_t stream);
// f[export_index[k]] += (self entry ? ghost_f[recv slot] : recv[k]), overflow-checked.
void launch_sum_ghost_forces(Fix3* f, const Fix3* ghost_f, const Fix3* recv,
                             const std::uint32_t* export_index, std::uint32_t m, SelfPart self,
                             DeviceFlags* flags, cudaStream_t stream);
// The field halo (DeviceHalo::forward_field / reverse_field), the two above for any one array:
// send[k] = field[export_index[k]], self entries straight into ghost[recv slot] (T: Vec3, double,
// std::int64_t, std::uint64_t, Fix3); and field[export_index[k]] += (self entry ? ghost[recv
// slot] : recv[k]), overflow-checked into flags->sum_overflow (T: std::int64_t, Fix3).
template <class T>
void launch_pack_field(const T* field, const std::uint32_t* export_index, std::uint32_t m,
                       SelfPart self, T* send, T* ghost, cudaStream_t stream);
template <class T>
void launch_sum_ghost_field(T* field, const T* ghost, const T* recv,
                            const std::uint32_t* export_index, std::uint32_t m, SelfPart self,
                            DeviceFlags* flags, cudaStream_t stream);

}  // namespace scanmd::cuda_step
