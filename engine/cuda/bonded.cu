// engine/cuda/bonded.cu — the bonded compute on the device (bonds and angles, physics/bonded/),
// and the special_bonds exclusions of the device neighbour list.
//
//   forces     one thread per listed term (the listing of engine/bonded_forces.hpp): the shared
//              SCANMD_HD evaluation of physics/bonded/bonded_terms.hpp (the host compute's
//              operations in its order; nvcc --fmad=false), each force added with 64-bit integer
//              atomics where the term's mask says, energy (and its bond / angle parts) and virial
//              per thread in __int128, block sums, one 128-bit atomic per block and sum
//   special    special_bonds 1-2 weight w in (0, 1): one thread per term, w × the pair style's
//              terms of a bond's two atoms (physics/bonded/special_pair.hpp) into a per-term
//              share, which the force kernel adds to the bond's fbond and energy (counted in
//              evdwl, not ebond) as the host compute does
//   listing    at each rebuild, the terms of this rank by HostBondedCompute::list_terms's
//              rules and in its order: every copy's index into an open-addressing table by id
//              (atomicCAS, linear probing), then per particle count → exclusive scan → fill, each
//              partner found by probing for its id and minimum-image shift (the host's choice of
//              copy); the global check's counts summed with integer atomics
//   exclusions one thread per row: the entries whose neighbour is a bond partner of the row's
//              particle (by id, the bond_atom planes) left out, count then fill, the kept entries
//              in their order: the host's NeighborList::drop_pairs
#include <cuda_runtime.h>

#include <stdexcept>
#include <tuple>

#include "engine/cuda/device_math.cuh"
#include "engine/cuda/launch.hpp"
#include "kernels/cuda/api.hpp"
#include "physics/bonded/angle_cosine.hpp"
#include "physics/bonded/angle_harmonic.hpp"
#include "physics/bonded/bond_fene.hpp"
#include "physics/bonded/bond_harmonic.hpp"
#include "physics/bonded/special_pair.hpp"
#include "physics/pair/styles.hpp"

namespace scanmd::cuda_step {

namespace {

constexpr int kThreads = 128;

__device__ __forceinline__ bool add_force(Fix3* f, std::uint32_t i, const Fix3& F, bool plus) {
  const std::int64_t s = plus ? 1 : -1;
  bool o = atomic_add_checked(&f[i].x, s * F.x);
  o |= atomic_add_checked(&f[i].y, s * F.y);
  o |= atomic_add_checked(&f[i].z, s * F.z);
  return o;
}

template <class Bond, class Angle, bool kEnergy>
__global__ void __launch_bounds__(kThreads) bonded_kernel(BondedArgs a) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  __int128 energy = 0, bond_energy = 0, angle_energy = 0, virial = 0;
  if (k < a.count) {
    const BondedTerm t = a.terms[k];
    const bool with_energy = kEnergy && t.energy;
    bool o = false;
    if (t.atoms == 2) {
      const std::uint32_t i = t.at[0], j = t.at[1];
      const BondGeometry g = bond_geometry(a.x[i], a.x[j], a.length, a.half_length);
      BondTerms b = Bond::eval(g.rsq, a.bond[t.type - 1]);
      double e_pair = 0.0;
      if (a.special != nullptr) {  // special_bonds 0 < w < 1: the host compute's order
        const SpecialShare sh = a.special[k];
        if (sh.in) {
          b.fbond += sh.fpair;
          e_pair = sh.energy;
        }
      }
      const BondFixed r = bond_fixed(g, b, with_energy, o);
      if (t.apply & 1u) o |= add_force(a.f, i, r.f, true);
      if (t.apply & 2u) o |= add_force(a.f, j, r.f, false);
      if (with_energy) {
        energy = static_cast<__int128>(r.energy) + fixed::to_fixed(e_pair, o);
        bond_energy = r.energy;
        virial = r.virial;
      }
      if (b.bad) atomic_min_index(&a.flags->bond_bad, k);
    } else {
      const std::uint32_t i = t.at[0], j = t.at[1], m = t.at[2];
      const AngleFixed r = angle_fixed<Angle>(a.x[i], a.x[j], a.x[m], a.length, a.half_length,
                                              a.angle[t.type - 1], with_energy, o);
      if (t.apply & 1u) o |= add_force(a.f, i, r.f1, true);
      if (t.apply & 2u) o |= add_force(a.f, j, r.f2, true);
      if (t.apply & 4u) o |= add_force(a.f, m, r.f3, true);
      if (with_energy) {
        energy = r.energy;
        angle_energy = r.energy;
        virial = r.virial;
      }
    }
    if (o) atomic_min_index(&a.flags->bonded_overflow, k);
  }
  if (kEnergy) {  // uniform over the grid: every thread reaches the barriers
    energy = block_sum_wide<kThreads>(energy);
    if (threadIdx.x == 0) atomic_add_wide(a.flags->energy, energy);
    bond_energy = block_sum_wide<kThreads>(bond_energy);
    if (threadIdx.x == 0) atomic_add_wide(a.flags->bond_energy, bond_energy);
    angle_energy = block_sum_wide<kThreads>(angle_energy);
    if (threadIdx.x == 0) atomic_add_wide(a.flags->angle_energy, angle_energy);
    virial = block_sum_wide<kThreads>(virial);
    if (threadIdx.x == 0) atomic_add_wide(a.flags->virial, virial);
  }
}

template <class Bond, class Angle>
void launch_styles(const BondedArgs& a, bool with_energy, cudaStream_t stream) {
  const unsigned blocks = (a.count + kThreads - 1) / kThreads;
  if (with_energy)
    bonded_kernel<Bond, Angle, true><<<blocks, kThreads, 0, stream>>>(a);
  else
    bonded_kernel<Bond, Angle, false><<<blocks, kThreads, 0, stream>>>(a);
}

template <class E>
__global__ void __launch_bounds__(kThreads) special_share_kernel(SpecialShareArgs<E> a) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= a.count) return;
  const BondedTerm t = a.terms[k];
  SpecialShare sh;
  if (t.atoms == 2) {
    const std::uint32_t i = t.at[0], j = t.at[1];
    const BondGeometry g = bond_geometry(a.x[i], a.x[j], a.length, a.half_length);
    const typename E::Params& pp = a.table.types > 1 ? a.table.of(a.type[i], a.type[j]) : a.one;
    sh = special_share<E>(g.rsq, pp, a.weight);
  }
  a.out[k] = sh;
}

// ---- the listing (HostBondedCompute::list_terms, its operations and order) ----

constexpr std::uint32_t kEmptySlot = 0xffffffffu;

__device__ __forceinline__ std::uint32_t slot_of(std::uint64_t id, std::uint32_t mask) {
  return static_cast<std::uint32_t>((id * 0x9E3779B97F4A7C15ull) >> 20) & mask;
}

__global__ void __launch_bounds__(kThreads) bonded_copies_kernel(BondedListArgs a) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= a.n) return;
  std::uint32_t h = slot_of(a.id[i], a.mask);
  while (atomicCAS(&a.copies[h], kEmptySlot, static_cast<std::uint32_t>(i)) != kEmptySlot)
    h = (h + 1) & a.mask;
}

// The copy of atom `other` at the minimum image from copy c, or −1 (the host's partner(): the
// image shift of minimum_image's branch added to c's, from the highest-index copy's position; of
// several copies with that shift the highest index, the host chain's first).
__device__ long long partner(const BondedListArgs& a, std::uint32_t c, std::uint64_t other) {
  long long top = -1;
  for (std::uint32_t h = slot_of(other, a.mask); a.copies[h] != kEmptySlot; h = (h + 1) & a.mask) {
    const std::uint32_t k = a.copies[h];
    if (a.id[k] == other && static_cast<long long>(k) > top) top = k;
  }
  if (top < 0) return -1;
  const Vec3 xc = a.x[c], xo = a.x[top];
  auto axis = [](double d, double hl) { return d > hl ? 1 : (d < -hl ? -1 : 0); };
  const Int3 want =
      a.shift[c] + Int3{axis(xc.x - xo.x, a.half_length.x), axis(xc.y - xo.y, a.half_length.y),
                        axis(xc.z - xo.z, a.half_length.z)};
  long long best = -1;
  for (std::uint32_t h = slot_of(other, a.mask); a.copies[h] != kEmptySlot; h = (h + 1) & a.mask) {
    const std::uint32_t k = a.copies[h];
    if (a.id[k] == other && a.shift[k] == want && static_cast<long long>(k) > best) best = k;
  }
  return best;
}

__device__ __forceinline__ PairSide side_of(const BondedListArgs& a, std::uint32_t i) {
  return PairSide{i < a.n_owned, a.home[i], a.id[i], a.id[i], a.x[i]};
}

// emit(term) for each term copy c lists, in the host's order.
template <class Emit>
__device__ void list_terms_of(const BondedListArgs& a, std::uint32_t c, Emit&& emit) {
  const bool full = a.rule.method == Method::FullShell;
  if (a.bonds)
    for (int slot = 0; slot < kBondSlots; ++slot) {
      const std::uint64_t other = a.bond_atom[slot][c];
      if (other == 0 || other < a.id[c]) continue;  // each bond from its lower id
      const long long j = partner(a, c, other);
      if (j < 0) continue;
      const auto u = static_cast<std::uint32_t>(j);
      const PairSide sa = side_of(a, c), sb = side_of(a, u);
      if (!a.rule.lists_pair(sa, sb) && !a.rule.lists_pair(sb, sa)) continue;
      BondedTerm t{{c, u, 0}, static_cast<std::uint32_t>(a.bond_type[slot][c]), 2, 3, true};
      if (full) {
        t.apply = static_cast<std::uint8_t>((sa.owned ? 1 : 0) | (sb.owned ? 2 : 0));
        t.energy = sa.owned;
      }
      emit(t);
    }
  if (a.angles)
    for (int slot = 0; slot < kAngleSlots; ++slot) {
      const std::uint64_t e1 = a.angle_atom[2 * slot][c], e2 = a.angle_atom[2 * slot + 1][c];
      if (e1 == 0) continue;
      const long long i1 = partner(a, c, e1), i3 = partner(a, c, e2);
      if (i1 < 0 || i3 < 0) continue;
      const std::uint32_t at[3] = {static_cast<std::uint32_t>(i1), c,
                                   static_cast<std::uint32_t>(i3)};
      BondedTerm t{
          {at[0], at[1], at[2]}, static_cast<std::uint32_t>(a.angle_type[slot][c]), 3, 7, true};
      bool here = false;
      switch (a.rule.method) {
        case Method::FullShell: {
          std::uint8_t owned = 0;
          std::uint32_t lowest = 0;
          for (std::uint32_t m = 0; m < 3; ++m) {
            if (at[m] < a.n_owned) owned |= static_cast<std::uint8_t>(1u << m);
            if (a.id[at[m]] < a.id[at[lowest]]) lowest = m;
          }
          here = owned != 0;
          t.apply = owned;
          t.energy = (owned >> lowest) & 1u;
          break;
        }
        case Method::HalfShell: {
          Int3 low = a.home[at[0]];
          for (int m = 1; m < 3; ++m)
            if (lex_sign(low - a.home[at[m]]) > 0) low = a.home[at[m]];
          here = low == a.rule.coord;
          break;
        }
        case Method::EighthShell: {
          Int3 low = a.home[at[0]];
          for (int m = 1; m < 3; ++m) {
            const Int3 h = a.home[at[m]];
            low = Int3{h.x < low.x ? h.x : low.x, h.y < low.y ? h.y : low.y,
                       h.z < low.z ? h.z : low.z};
          }
          here = low == a.rule.coord;
          break;
        }
        case Method::Midpoint:
        case Method::NeutralTerritory:  // the vertex's owner, the ends from the bonded shell
          here = c < a.n_owned;
          break;
      }
      if (here) emit(t);
    }
}

__global__ void __launch_bounds__(kThreads)
    bonded_count_kernel(BondedListArgs a, std::uint32_t* counts) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= a.n) return;
  const auto c = static_cast<std::uint32_t>(k);
  std::uint32_t count = 0;
  unsigned long long sums[6] = {0, 0, 0, 0, 0, 0};
  list_terms_of(a, c, [&](const BondedTerm& t) {
    const int kind = t.atoms == 2 ? 0 : 1;
    ++count;
    sums[kind] += t.energy ? 1 : 0;
    sums[2 + kind] += static_cast<unsigned>(__popc(t.apply));
  });
  counts[c] = count;
  if (c < a.n_owned) {  // the terms the owned particles hold (check_terms)
    if (a.bonds)
      for (int slot = 0; slot < kBondSlots; ++slot) {
        const std::uint64_t other = a.bond_atom[slot][c];
        if (other != 0 && other > a.id[c]) ++sums[4];
      }
    if (a.angles)
      for (int slot = 0; slot < kAngleSlots; ++slot)
        if (a.angle_atom[2 * slot][c] != 0) ++sums[5];
  }
  for (int m = 0; m < 6; ++m)
    if (sums[m] != 0) atomicAdd(&a.sums[m], sums[m]);
}

__global__ void __launch_bounds__(kThreads)
    bonded_fill_kernel(BondedListArgs a, const std::uint32_t* offsets, BondedTerm* terms,
                       unsigned long long* no_coeff) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= a.n) return;
  const auto c = static_cast<std::uint32_t>(k);
  std::uint32_t w = offsets[c];
  list_terms_of(a, c, [&](const BondedTerm& t) {
    const bool given = t.atoms == 2
                           ? t.type >= 1 && t.type <= a.bond_types && a.bond_given[t.type - 1]
                           : t.type >= 1 && t.type <= a.angle_types && a.angle_given[t.type - 1];
    if (!given) atomic_min_index(no_coeff, w);
    terms[w++] = t;
  });
}

__device__ __forceinline__ bool partner_of(const DropBondedArgs& a, std::uint32_t i,
                                           std::uint64_t other) {
  for (int s = 0; s < a.slots; ++s)
    if (a.bond_atom[s][i] == other) return true;
  return false;
}

__global__ void __launch_bounds__(kThreads)
    drop_bonded_count_kernel(DropBondedArgs a, std::uint64_t* row_len) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= a.n) return;
  std::uint64_t kept = 0;
  for (std::uint64_t k = a.offsets[i]; k < a.offsets[i + 1]; ++k)
    if (!partner_of(a, static_cast<std::uint32_t>(i), a.id[a.neighbors[k]])) ++kept;
  row_len[i] = kept;
}

__global__ void __launch_bounds__(kThreads)
    drop_bonded_fill_kernel(DropBondedArgs a, const std::uint64_t* new_offsets,
                            std::uint32_t* new_neighbors) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= a.n) return;
  std::uint64_t w = new_offsets[i];
  for (std::uint64_t k = a.offsets[i]; k < a.offsets[i + 1]; ++k) {
    const std::uint32_t j = a.neighbors[k];
    if (!partner_of(a, static_cast<std::uint32_t>(i), a.id[j])) new_neighbors[w++] = j;
  }
}

}  // namespace

void launch_bonded_forces(const BondedArgs& a, bool with_energy, cudaStream_t stream) {
  if (a.count == 0) return;
  const bool fene = a.bond_style == BondStyle::Fene;
  const bool cosine = a.angle_style == AngleStyle::Cosine;
  if (fene && cosine)
    launch_styles<BondFene, AngleCosine>(a, with_energy, stream);
  else if (fene)
    launch_styles<BondFene, AngleHarmonic>(a, with_energy, stream);
  else if (cosine)
    launch_styles<BondHarmonic, AngleCosine>(a, with_energy, stream);
  else
    launch_styles<BondHarmonic, AngleHarmonic>(a, with_energy, stream);
  kernels::cuda::check(cudaGetLastError(), "bonded_kernel launch");
}

template <class E>
void launch_special_shares(const SpecialShareArgs<E>& a, cudaStream_t stream) {
  if constexpr (MotionStyle<E>) {
    throw std::logic_error("special_bonds shares of a pair style that reads the pairs' motion");
  } else {
    if (a.count == 0) return;
    const unsigned blocks = (a.count + kThreads - 1) / kThreads;
    special_share_kernel<E><<<blocks, kThreads, 0, stream>>>(a);
    kernels::cuda::check(cudaGetLastError(), "special_share_kernel launch");
  }
}

// Every style's launcher, instantiated here (as forces.cu's pair launchers).
namespace {
template <class... E>
auto instantiate_special(std::tuple<E...>*) {
  return std::tuple{&launch_special_shares<E>...};
}
}  // namespace
auto special_share_launchers() {
  return instantiate_special(static_cast<ComputedPairStyles*>(nullptr));
}

void launch_bonded_copies(const BondedListArgs& a, cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = (a.n + kThreads - 1) / kThreads;
  bonded_copies_kernel<<<blocks, kThreads, 0, stream>>>(a);
  kernels::cuda::check(cudaGetLastError(), "bonded_copies_kernel launch");
}

void launch_bonded_count(const BondedListArgs& a, std::uint32_t* counts, cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = (a.n + kThreads - 1) / kThreads;
  bonded_count_kernel<<<blocks, kThreads, 0, stream>>>(a, counts);
  kernels::cuda::check(cudaGetLastError(), "bonded_count_kernel launch");
}

void launch_bonded_fill(const BondedListArgs& a, const std::uint32_t* offsets, BondedTerm* terms,
                        unsigned long long* no_coeff, cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = (a.n + kThreads - 1) / kThreads;
  bonded_fill_kernel<<<blocks, kThreads, 0, stream>>>(a, offsets, terms, no_coeff);
  kernels::cuda::check(cudaGetLastError(), "bonded_fill_kernel launch");
}

void launch_drop_bonded_count(const DropBondedArgs& a, std::uint64_t* row_len,
                              cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = (a.n + kThreads - 1) / kThreads;
  drop_bonded_count_kernel<<<blocks, kThreads, 0, stream>>>(a, row_len);
  kernels::cuda::check(cudaGetLastError(), "drop_bonded_count_kernel launch");
}

void launch_drop_bonded_fill(const DropBondedArgs& a, const std::uint64_t* new_offsets,
                             std::uint32_t* new_neighbors, cudaStream_t stream) {
  if (a.n == 0) return;
  const unsigned blocks = (a.n + kThreads - 1) / kThreads;
  drop_bonded_fill_kernel<<<blocks, kThreads, 0, stream>>>(a, new_offsets, new_neighbors);
  kernels::cuda::check(cudaGetLastError(), "drop_bonded_fill_kernel launch");
}

}  // namespace scanmd::cuda_step
