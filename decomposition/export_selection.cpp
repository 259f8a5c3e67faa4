#include "decomposition/export_selection.hpp"


namespace scanmd {

ExportSelector::ExportSelector(const RankGrid& grid, const Box& box, Method method,
                               double import_cutoff)
    : grid_(grid), geometry_{method, grid.cuts(), box.length, import_cutoff} {}

void ExportSelector::select(std::span<const Vec3> x, Int3 owner, ExportList& out) const {
  for (std::size_t i = 0; i < x.size(); ++i)
    visit_exports(geometry_, x[i], owner,
                  [&](std::uint32_t, Int3 S, Int3, Int3 X, ImportKind kind) {
                    out.dest.push_back(static_cast<std::uint32_t>(grid_.rank_of(X)));
                    out.particle.push_back(static_cast<std::uint32_t>(i));
                    out.shift.push_back(S);
                    out.kind.push_back(kind);
                  });
}

}  // namespace scanmd
