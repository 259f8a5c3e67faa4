// engine/cuda/cuda_backend.hpp — the CUDA sibling of HostBackend (see engine/step_backend.hpp).
//
// The particles stay on the device between steps; the backend is the order of the device
// phases, each held by its own class:
//
//   DeviceParticles     owned + ghosts (device_particles.hpp)
//   DeviceCellList      binning by counting sort (device_cell_list.hpp)
//   DeviceNeighborList  count → place → scan → fill (device_neighbor_list.hpp)
//   DeviceHalo          the halo plan made on the device; forward / reverse (device_halo.hpp)
//   DeviceMigration     owned particles to their new ranks (device_migration.hpp)
//   DeviceFlagsMirror   error flags and sums, raised as exceptions (device_flags, device_errors)
//   device selection    which GPU, MPI CUDA-awareness (device_selection.hpp)
//
// Every step: kick_drift (half kick + drift + wrap + the skin/2 test in one kernel, one flag back
// to the host), forward, compute_forces (four threads per list row, int64 atomics), reverse,
// kick. Rebuild steps stay on the device on any number of ranks, each phase the host's
// algorithm as scan primitives (kernels/cuda), so the particle layout is the host's:
//   migrate   DeviceMigration: destinations, counting sort by rank, leavers exchanged
//   census    count, Σ id, Σ id² by device reductions (a lost or duplicated id is named)
//   order     owned particles into cell order (DeviceCellList::order_owned)
//   plan      DeviceHalo::make_plan: export selection with the shared rule, counting sort by
//             destination, ghost records exchanged and appended
//   lists     DeviceCellList + DeviceNeighborList
// Only counts (P + 1 offsets per exchange, a few flags) and the remote message parts cross to
// the host; ImportCounts::device_to_host_bytes says how many bytes per rebuild. The path of the
// first version (owned particles down, Domain migrates and plans on the host, everything back
// up) is kept behind SCANMD_CUDA_REBUILD=host / CudaTuning::device_rebuild for comparison.
//
// Built only with SCANMD_WITH_CUDA; a build without it gets no_cuda.cpp, whose
// make_cuda_backend throws.
#pragma once

#include <memory>

#include "engine/step_backend.hpp"

namespace scanmd {

// The CUDA backend of one rank (selects device local rank % device count; collective). Throws
// std::runtime_error when the build has no CUDA backend or no device is usable.
std::unique_ptr<StepBackend> make_cuda_backend(const StepSetup& setup);

}  // namespace scanmd
