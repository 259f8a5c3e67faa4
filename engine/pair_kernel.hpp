// Which host loop computes the Lennard-Jones forces: the scalar one, or a vector one (AVX2,
// AVX-512) chosen at run time from the CPU, so that one x86-64 binary runs everywhere and uses
// the widest vectors the machine has (no -march=native). Every kernel gives the same bits: the
// same IEEE operations per pair in the same order (no FMA: -ffp-contract=off, and no fused
// intrinsics), and fixed-point sums, whose order does not matter (DESIGN.md §5).
//
// The vector kernels take the passes of minimum-image lists, thermo steps and several species
// included; boxes shorter than 2R and full shell's energy steps (each pair's energy split between
// its two ranks by ids) use the scalar loop. Which is faster depends on the CPU and the run (a WCA
// fluid's rows of five neighbours leave most of an AVX-512 vector idle; AMD's AVX-512 is half as
// wide inside), so with Auto the host backend times the widest kernel against the scalar loop and
// keeps the faster: the list build on the run's first list, the force pass on alternate steps of
// the run (engine/host_backend.hpp, ForceKernelTrial). The bits are the same either way.
// SCANMD_PAIR_KERNEL = auto | scalar | avx2 | avx512 | cluster pins the choice (tests, benchmarks);
// naming one the CPU lacks is an error.
#pragma once

#include <string>

#include "base/names.hpp"

namespace scanmd {

// Cluster: the cluster-pair kernel (engine/pair_clusters.hpp) in the widest instruction set the
// CPU has (AVX-512, else AVX2) for the pair passes it covers (energy steps too), and that
// set's rows for the rest (the list build's scan, EAM, bonds). Auto never picks it: pinned, or
// put into the run's trial against the rows (engine/host_backend.hpp) with
// SCANMD_CLUSTER_TRIAL=1.
enum class PairKernel { Auto, Scalar, Avx2, Avx512, Cluster };

inline constexpr NamedValue<PairKernel> kPairKernelNames[] = {{PairKernel::Auto, "auto"},
                                                              {PairKernel::Scalar, "scalar"},
                                                              {PairKernel::Avx2, "avx2"},
                                                              {PairKernel::Avx512, "avx512"},
                                                              {PairKernel::Cluster, "cluster"}};

// Whether this CPU (and this build) can run the kernel.
bool cpu_runs(PairKernel kernel);

// The rows kernel of the kernel's instruction set: the kernel itself, and for Cluster the
// AVX-512 rows where the CPU has AVX-512, else the AVX2 rows.
PairKernel rows_kernel(PairKernel kernel);

// Whether the kernel's instruction set is AVX-512.
inline bool uses_avx512(PairKernel kernel) {
  return rows_kernel(kernel) == PairKernel::Avx512;
}

// The kernel to use: SCANMD_PAIR_KERNEL if set, else `configured`; Auto becomes the widest the
// CPU runs. Throws std::runtime_error for an unknown name or a kernel the CPU cannot run.
PairKernel resolve_pair_kernel(PairKernel configured = PairKernel::Auto);

std::string pair_kernel_name(PairKernel kernel);

// How the AVX-512 rows read their eight neighbours' positions (the same values either way):
// three gathers of eight doubles, or eight four-double records transposed in registers. Which
// is faster depends on the CPU: the gathers take 4 % off the LJ melt's force pass on an Intel
// Xeon (Sapphire Rapids class), the transposes 9 % on an AMD EPYC (Zen 4). Gather on Intel CPUs,
// else transpose; SCANMD_POSITION_LOADS = gather | transpose overrides (benchmarks). Throws
// std::runtime_error for another value.
enum class PositionLoads { Transpose, Gather };

inline constexpr NamedValue<PositionLoads> kPositionLoadsNames[] = {
    {PositionLoads::Transpose, "transpose"}, {PositionLoads::Gather, "gather"}};

PositionLoads position_loads();                     // the process's choice, made at the first call
PositionLoads position_loads_for(const char* env);  // for SCANMD_POSITION_LOADS = env

// Whether SCANMD_PAIR_KERNEL names a kernel (not unset, empty or "auto"): no timing then.
bool pair_kernel_pinned();

}  // namespace scanmd
