// core/cuda/cuda_backend.hpp — the CUDA sibling of HostBackend (see core/step_backend.hpp).
//
// The particles stay on the device between steps; the backend is the order of the device
// phases, each held by its own class:
//
//   DeviceParticles     owned + ghosts (device_particles.hpp)
//   DeviceCellList      binning by counting sort (device_cell_list.hpp)
//   DeviceNeighborList  count → place → scan → fill (device_neighbor_list.hpp)
//   DeviceHalo          forward / reverse on device data, single-rank ghosts (device_halo.hpp)
//   DeviceFlagsMirror   error flags and sums, raised as exceptions (device_flags, device_errors)
//   device selection    which GPU, MPI CUDA-awareness (device_selection.hpp)
//
// Every step: kick_drift (half kick + drift + wrap + the skin/2 test in one kernel, one flag back
// to the host), forward, compute_forces (four threads per list row, int64 atomics), reverse,
// kick. Rebuild steps: the owned particles come back to the host, Domain (core/domain.hpp)
// migrates them and builds the halo plan as on the host backend, and they go back with the plan;
// cells and list are built on the device. On a single rank the rebuilds after the first stay on
// the device altogether (owned particles sorted by cell, ghosts made with the host's export
// rule), unless SCANMD_CUDA_REBUILD=host or CudaTuning::local_rebuild says otherwise.
//
// Built only with SCANMD_WITH_CUDA; a build without it gets no_cuda.cpp, whose
// make_cuda_backend throws.
#pragma once

#include <memory>

#include "core/step_backend.hpp"

namespace scanmd {

// The CUDA backend of one rank (selects device local rank % device count; collective). Throws
// std::runtime_error when the build has no CUDA backend or no device is usable.
std::unique_ptr<StepBackend> make_cuda_backend(const StepSetup& setup);

}  // namespace scanmd
