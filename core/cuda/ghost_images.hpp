// core/cuda/ghost_images.hpp — the periodic images one rank imports of its own particle, as a
// SCANMD_HD function: ghosts.cu calls it on the device for single-rank rebuilds, and
// tests/gpu/test_device_logic.cpp checks it on the host against ExportSelector::select.
//
// The host's selection for a grid of one box: every shift S ∈ image_shifts(x)³ except 0, in the
// host's loop order (Sx outer, Sz inner), whose image q = x + S·L with home S (box 0 + S·grid)
// the box's ImportRegion imports. Plain C++ (no CUDA types).
#pragma once

#include <cstdint>

#include "core/cell_list.hpp"
#include "core/vec3.hpp"
#include "decomposition/export_selection.hpp"
#include "decomposition/import_rule.hpp"
#include "kernels/hd.hpp"

namespace scanmd::cuda_step {

// Calls emit(c, S, kind) for the c-th imported image of a particle at x; returns their number.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Emit>
SCANMD_HD inline std::uint32_t visit_images(Vec3 x, Vec3 L, double r, const ImportRegion& region,
                                            Emit&& emit) {
  int sx[3], sy[3], sz[3];
  const int nx = image_shifts(x.x, L.x, r, sx);
  const int ny = image_shifts(x.y, L.y, r, sy);
  const int nz = image_shifts(x.z, L.z, r, sz);
  std::uint32_t c = 0;
  for (int p = 0; p < nx; ++p)
    for (int q = 0; q < ny; ++q)
      for (int s = 0; s < nz; ++s) {
        const Int3 S{sx[p], sy[q], sz[s]};
        if (S == Int3{0, 0, 0}) continue;  // the particle itself
        const ImportKind kind = region.classify(CellGrid::binning_position(x, S, L), S);
        if (kind == ImportKind::None) continue;
        emit(c, S, kind);
        ++c;
      }
  return c;
}

}  // namespace scanmd::cuda_step
