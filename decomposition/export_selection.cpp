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
  const int threads = n >= 4096 ? omp_get_max_threads() : 1;
  if (threads == 1) {
    visit(0, n, out);
    return;
  }
  // Threads take contiguous ranges of particles and their entries are appended in range order:
  // the same list, in the same order, as one thread makes.
  std::vector<ExportList> part(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto T = static_cast<std::size_t>(omp_get_num_threads());
    visit(n * t / T, n * (t + 1) / T, part[t]);
  }
  for (const ExportList& l : part) {
    out.dest.insert(out.dest.end(), l.dest.begin(), l.dest.end());
    out.particle.insert(out.particle.end(), l.particle.begin(), l.particle.end());
    out.shift.insert(out.shift.end(), l.shift.begin(), l.shift.end());
    out.kind.insert(out.kind.end(), l.kind.begin(), l.kind.end());
  }
}

}  // namespace scanmd
