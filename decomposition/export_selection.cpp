#include "decomposition/export_selection.hpp"

#include <omp.h>

#include <algorithm>

namespace scanmd {

ExportSelector::ExportSelector(const RankGrid& grid, const Box& box, Method method,
                               double import_cutoff, double bonded_shell)
    : grid_(grid), geometry_{method, grid.cuts(), box.length, import_cutoff, bonded_shell} {}

void ExportSelector::select(std::span<const Vec3> x, Int3 owner, ExportList& out) const {
  // A particle farther than R from every face of its own box (with a margin far above the
  // rule's own: 1e-9·L for the images, 1e-12·R and 2^-40·L for the import regions) has no
  // periodic image near the box, and every import region of another box lies within R of that
  // box: it is exported nowhere, and visit_exports would find nothing (most particles of a
  // large box; this skips their per-axis image and box searches).
  const Vec3 lo = grid_.lo(owner), hi = grid_.hi(owner), L = geometry_.length;
  const double margin = geometry_.r * (1.0 + 1e-6) + 1e-6 * std::max(L.x, std::max(L.y, L.z));
  // Half and eighth shell import from boxes above only: box X takes the image q (in box H, the
  // particle's own box shifted by its image) when H − X is lexicographically positive (half
  // shell) or >= 0 on every axis (eighth shell), so along some axis X lies wholly below H's lower
  // face, and q is within R of it: the particle is within R of a lower face of its own box (q
  // sits in H where the particle sits in its box). Particles near upper faces only are exported
  // nowhere.
  const bool lower_faces_only =
      geometry_.method == Method::HalfShell || geometry_.method == Method::EighthShell;
  auto interior = [&](Vec3 q) {
    const bool near_lower = q.x - lo.x <= margin || q.y - lo.y <= margin || q.z - lo.z <= margin;
    if (lower_faces_only) return !near_lower;
    return !near_lower && hi.x - q.x > margin && hi.y - q.y > margin && hi.z - q.z > margin;
  };
  auto visit = [&](std::size_t begin, std::size_t end, ExportList& list) {
    for (std::size_t i = begin; i < end; ++i)
      if (!interior(x[i]))
        visit_exports(geometry_, x[i], owner,
                      [&](std::uint32_t, Int3 S, Int3, Int3 X, ImportKind kind) {
                        list.dest.push_back(static_cast<std::uint32_t>(grid_.rank_of(X)));
                        list.particle.push_back(static_cast<std::uint32_t>(i));
                        list.shift.push_back(S);
                        list.kind.push_back(kind);
                      });
  };
  const std::size_t n = x.size();
  const int threads = n >= kThreadedFrom ? omp_get_max_threads() : 1;
  if (threads == 1) {
    visit(0, n, out);
    return;
  }
  // Contiguous chunks of the particles, taken by whichever thread is free (the exported
  // particles are not spread evenly: in cell order those near the lower z face all come first),
  // each chunk's entries in its own list (kept between calls, so their room is), then the lists
  // appended in chunk order: the same list, in the same order, as one thread makes.
  const std::size_t chunks = 8 * static_cast<std::size_t>(threads);
  if (parts_.size() < chunks) parts_.resize(chunks);
  const std::size_t first = out.size();
  std::vector<std::size_t> at(chunks + 1, first);
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(dynamic, 1)
    for (std::size_t c = 0; c < chunks; ++c) {
      parts_[c].clear();
      visit(n * c / chunks, n * (c + 1) / chunks, parts_[c]);
    }
#pragma omp single
    {
      for (std::size_t c = 0; c < chunks; ++c) at[c + 1] = at[c] + parts_[c].size();
      out.dest.resize(at[chunks]);
      out.particle.resize(at[chunks]);
      out.shift.resize(at[chunks]);
      out.kind.resize(at[chunks]);
    }
#pragma omp for schedule(static)
    for (std::size_t c = 0; c < chunks; ++c) {
      const ExportList& l = parts_[c];
      std::copy(l.dest.begin(), l.dest.end(),
                out.dest.begin() + static_cast<std::ptrdiff_t>(at[c]));
      std::copy(l.particle.begin(), l.particle.end(),
                out.particle.begin() + static_cast<std::ptrdiff_t>(at[c]));
      std::copy(l.shift.begin(), l.shift.end(),
                out.shift.begin() + static_cast<std::ptrdiff_t>(at[c]));
      std::copy(l.kind.begin(), l.kind.end(),
                out.kind.begin() + static_cast<std::ptrdiff_t>(at[c]));
    }
  }
}

}  // namespace scanmd
