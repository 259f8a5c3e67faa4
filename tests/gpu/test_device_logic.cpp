// tests/gpu/test_device_logic.cpp — the CUDA backend's per-thread logic run on the host (label
// `engine`: no GPU needed), against the host code it must reproduce.
//
// The kernels of engine/cuda are thin shells around SCANMD_HD functions; these tests call the
// same functions on the host and rebuild, with the host scan primitives, what the kernels
// compute around them:
//   GhostImages.SameAsExportSelector   ghosts.cu's count → exclusive scan → fill around
//       visit_exports (its one-rank case) yields the entries of ExportSelector::select for a
//       1×1×1 grid, in the same order, every method, including particles placed exactly at and
//       around the image-shift thresholds; and both equal the brute-force oracle over all
//       shifts up to ±3 (no pruning by image_range), in a box at least 2R long and in one
//       shorter than 2R (and than R along x)
//   NeighborRuns.SameListAsHost        count per (row, run) element → segmented exclusive scan
//       (heads at run 0) → row offsets → fill, as neighbors.cu does, gives the host
//       NeighborList's entries and max_terms, every method, on one rank, in a normal and a
//       small box
//   EnergyShare.PartsAddUpToTheWhole   add_pair_energy (forces.cu and the host force loop):
//       the two full-shell ranks' parts of a pair add up to its energy and virial exactly
// What they cannot check (the CUDA specifics: atomics, launch bounds, memory) is for
// test_cuda_backend.cpp on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>
#include <vector>

#include "decomposition/export_selection.hpp"
#include "engine/cell_list.hpp"
#include "engine/cuda/neighbor_runs.hpp"
#include "engine/fixed_terms.hpp"
#include "engine/neighbor_list.hpp"
#include "engine/simulation.hpp"
#include "kernels/scan.hpp"
#include "kernels/segmented.hpp"
#include "tests/engine/test_support.hpp"

namespace scanmd {
namespace {

using Entry = std::tuple<std::uint32_t, int, int, int, int>;  // particle, S, kind

void check_ghost_images(Vec3 L) {
  const double R = 2.8;
  const std::size_t n = static_cast<std::size_t>(0.8 * L.x * L.y * L.z);
  std::vector<Vec3> x = test::random_positions(n, L, 0.5, 99);
  // Thresholds of image_range, x = k·L − R and x = R − (k−1)·L (k >= 1) where they lie in the
  // box, their neighbourhoods, and the box faces.
  auto thresholds = [&](double len) {
    std::vector<double> t;
    for (int k = 1; k <= 3; ++k)
      for (double c : {k * len - R, R - (k - 1) * len})
        if (c >= 0.0 && c < len) t.push_back(c);
    return t;
  };
  for (double tx : thresholds(L.x))
    for (double ty : thresholds(L.y))
      for (double d : {-1e-9, -1e-12, 0.0, 1e-12, 1e-9}) {
        x.push_back({tx + d * L.x, ty + d * L.y, 0.0});
        x.push_back({tx + d * L.x, ty - d * L.y, std::nextafter(L.z, 0.0)});
      }
  const Box box = Box::make(L);
  const RankGrid grid({1, 1, 1}, box);
  for (Method m : kAllMethods) {
    SCOPED_TRACE(std::string(method_name(m)));
    const ExportSelector selector(grid, box, m, R);
    ExportList host;
    selector.select(x, {0, 0, 0}, host);
    std::vector<Entry> want;
    for (std::size_t e = 0; e < host.size(); ++e) {
      ASSERT_EQ(host.dest[e], 0u);
      want.emplace_back(host.particle[e], host.shift[e].x, host.shift[e].y, host.shift[e].z,
                        static_cast<int>(host.kind[e]));
    }
    // ghosts.cu: count per particle → exclusive scan → each particle fills its slots.
    const ExportGeometry& g = selector.geometry();
    std::vector<std::uint32_t> images(x.size()), offsets(x.size());
    for (std::uint32_t i = 0; i < x.size(); ++i)
      images[i] =
          visit_exports(g, x[i], {0, 0, 0}, [](std::uint32_t, Int3, Int3, Int3, ImportKind) {});
    kernels::Workspace ws;
    const std::uint32_t total = kernels::exclusive_scan<std::uint32_t>(ws, images, offsets);
    std::vector<Entry> got(total);
    for (std::uint32_t i = 0; i < x.size(); ++i) {
      std::uint32_t seen = 0;
      visit_exports(g, x[i], {0, 0, 0},
                    [&](std::uint32_t c, Int3 S, Int3 home, Int3 X, ImportKind kind) {
                      EXPECT_EQ(c, seen++);
                      EXPECT_EQ(home, S);  // box 0 plus S·grid
                      EXPECT_EQ(X, (Int3{0, 0, 0}));
                      got[offsets[i] + c] = {i, S.x, S.y, S.z, static_cast<int>(kind)};
                    });
      EXPECT_EQ(images[i], seen);
    }
    ASSERT_FALSE(want.empty());
    EXPECT_TRUE(got == want) << got.size() << " entries vs the host's " << want.size();
    // Oracle: every shift but 0 up to ±3 (farther images are beyond R), no pruning by
    // image_range, classified by the import region.
    std::vector<Entry> brute;
    const ImportRegion region = selector.region({0, 0, 0});
    for (std::uint32_t i = 0; i < x.size(); ++i)
      for (int sx = -3; sx <= 3; ++sx)
        for (int sy = -3; sy <= 3; ++sy)
          for (int sz = -3; sz <= 3; ++sz) {
            const Int3 S{sx, sy, sz};
            if (S == Int3{0, 0, 0}) continue;
            const Vec3 q{x[i].x + sx * L.x, x[i].y + sy * L.y, x[i].z + sz * L.z};
            const ImportKind kind = region.classify(q, S);
            if (kind != ImportKind::None) brute.emplace_back(i, sx, sy, sz, static_cast<int>(kind));
          }
    EXPECT_TRUE(brute == want) << brute.size() << " brute-force entries vs " << want.size();
  }
}

// One box at least 2R long, one shorter than 2R on every axis (and than R along x: two images
// each way there).
TEST(GhostImages, SameAsExportSelector) {
  for (const Vec3 L : {Vec3{7.0, 8.5, 11.3}, Vec3{1.9, 3.1, 4.7}}) {
    SCOPED_TRACE("box " + std::to_string(L.x) + " x " + std::to_string(L.y) + " x " +
                 std::to_string(L.z));
    check_ghost_images(L);
  }
}

TEST(NeighborRuns, SameListAsHost) {
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() != 1) GTEST_SKIP() << "one-rank test";
  // 6×7×8 fcc cells, and 1×2×3 (a box shorter than 2R everywhere, than R along x).
  for (const std::array<int, 3> fcc_cells :
       {std::array<int, 3>{6, 7, 8}, std::array<int, 3>{1, 2, 3}})
    for (Method m : kAllMethods) {
      Vec3 L{};
      const std::vector<Vec3> x = test::perturbed_fcc(fcc_cells, 0.8442, 0.25, 11, L);
      const double R = 2.8;
      const Box box = Box::make(L);
      SCOPED_TRACE(std::string(method_name(m)) + " fcc cells " + std::to_string(fcc_cells[0]) +
                   "x" + std::to_string(fcc_cells[1]) + "x" + std::to_string(fcc_cells[2]));
      const RankGrid grid({1, 1, 1}, box);
      HaloExchange halo(comm, grid, box, m, R);
      ParticleStore p;
      for (std::size_t i = 0; i < x.size(); ++i)
        p.push_owned(i + 1, 0, x[i], {0, 0, 0}, {0, 0, 0}, {0, 0, 0});
      halo.migrate(p);
      halo.build(p);
      kernels::Workspace ws;
      CellList cells;
      cells.build(ws, p, box, grid.lo({0, 0, 0}), grid.hi({0, 0, 0}), R, R);
      const PairRule rule{m, {0, 0, 0}, grid.cuts()};
      NeighborList list;
      list.build(ws, p, cells, rule, R);

      // The device's inputs, made the way neighbors.cu makes them.
      const std::size_t n = p.size();
      std::vector<std::uint32_t> rank(n);
      std::vector<Vec3> q_sorted(n);
      std::vector<Int3> home_sorted(n), cell(n);
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t i = cells.order()[k];
        rank[i] = static_cast<std::uint32_t>(k);
        q_sorted[k] = CellGrid::binning_position(p.x[i], p.shift[i], box.length);
        home_sorted[k] = p.home[i];
      }
      for (std::size_t i = 0; i < n; ++i) cell[i] = cells.cell_of(i);
      const bool general = m != Method::HalfShell && m != Method::FullShell;
      const cuda_step::NeighborArgs a{p.x.data(),
                                      p.id.data(),
                                      p.home.data(),
                                      cell.data(),
                                      rank.data(),
                                      q_sorted.data(),
                                      home_sorted.data(),
                                      cells.order().data(),
                                      cells.offsets().data(),
                                      cells.dims(),
                                      static_cast<std::uint32_t>(n),
                                      static_cast<std::uint32_t>(p.n_owned),
                                      rule,
                                      general,
                                      search_sphere(cells.grid(), R)};
      auto visit = [&](std::uint32_t i, int r, auto&& emit) {
        return general ? cuda_step::visit_run<true>(a, i, r, emit)
                       : cuda_step::visit_run<false>(a, i, r, emit);
      };
      // count → segmented exclusive scan → rows → exclusive scan → fill.
      constexpr int kRuns = cuda_step::kRunsPerRow;
      const std::size_t elements = n * kRuns;
      std::vector<std::uint32_t> run_count(elements), run_offset(elements);
      std::vector<std::uint8_t> heads(elements);
      for (std::size_t e = 0; e < elements; ++e) {
        run_count[e] = visit(static_cast<std::uint32_t>(e / kRuns), static_cast<int>(e % kRuns),
                             [](std::uint32_t, std::uint32_t) {});
        heads[e] = e % kRuns == 0;
      }
      kernels::segmented_exclusive_scan<std::uint32_t>(ws, heads, run_count, run_offset);
      std::vector<std::uint64_t> row_len(n), row_offset(n + 1);
      std::vector<std::uint32_t> terms(n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t last = i * kRuns + kRuns - 1;
        row_len[i] = std::uint64_t{run_offset[last]} + run_count[last];
        terms[i] = static_cast<std::uint32_t>(row_len[i]);
      }
      row_offset[n] = kernels::exclusive_scan<std::uint64_t>(
          ws, row_len, std::span<std::uint64_t>(row_offset.data(), n));
      std::vector<std::uint32_t> nbr(row_offset[n], ~0u);
      for (std::size_t e = 0; e < elements; ++e) {
        const std::size_t i = e / kRuns;
        std::uint32_t* out = nbr.data() + row_offset[i] + run_offset[e];
        visit(static_cast<std::uint32_t>(i), static_cast<int>(e % kRuns),
              [&](std::uint32_t c, std::uint32_t j) {
                out[c] = j;
                ++terms[j];
              });
      }
      EXPECT_EQ(*std::max_element(terms.begin(), terms.end()), list.max_terms());

      std::vector<std::pair<std::uint32_t, std::uint32_t>> want, got;
      for (std::size_t i = 0; i < n; ++i) {
        for (std::uint32_t k = list.offsets()[i]; k < list.offsets()[i + 1]; ++k)
          want.emplace_back(static_cast<std::uint32_t>(i), list.neighbors()[k]);
        for (std::uint64_t k = row_offset[i]; k < row_offset[i + 1]; ++k)
          got.emplace_back(static_cast<std::uint32_t>(i), nbr[k]);
      }
      ASSERT_FALSE(want.empty());
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got.size(), want.size());
      EXPECT_TRUE(got == want) << "the entry sets differ";
    }
}

TEST(EnergyShare, PartsAddUpToTheWhole) {
  const std::int64_t values[] = {0,
                                 1,
                                 -1,
                                 7,
                                 -7,
                                 123456789012345,
                                 -123456789012345,
                                 (std::int64_t{1} << 62) - 1,
                                 -(std::int64_t{1} << 62) + 1};
  for (std::int64_t e : values)
    for (std::int64_t w : values) {
      // Full shell, pair (ids 5, 9) with a ghost on each of its two ranks.
      fixed::Wide e5 = 0, w5 = 0, e9 = 0, w9 = 0;
      add_pair_energy(e5, w5, e, w, true, takes_lower_share(5, 9, {0, 0, 0}, {1, 0, 0}));
      add_pair_energy(e9, w9, e, w, true, takes_lower_share(9, 5, {0, 0, 0}, {-1, 0, 0}));
      EXPECT_EQ(e5 + e9, fixed::Wide{e});
      EXPECT_EQ(w5 + w9, fixed::Wide{w});
      EXPECT_EQ(e5, fixed::Wide{fixed::lower_share(e)});  // the lower id takes lower_share
      // Not shared: the whole pair, whatever the ids.
      fixed::Wide ea = 0, wa = 0;
      add_pair_energy(ea, wa, e, w, false, false);
      EXPECT_EQ(ea, fixed::Wide{e});
      EXPECT_EQ(wa, fixed::Wide{w});
      // Small boxes: particle 5 with its own images at +S and −S, both listed, equal ids.
      fixed::Wide ep = 0, wp = 0, em = 0, wm = 0;
      add_pair_energy(ep, wp, e, w, true, takes_lower_share(5, 5, {0, 0, 0}, {0, 1, -1}));
      add_pair_energy(em, wm, e, w, true, takes_lower_share(5, 5, {0, 0, 0}, {0, -1, 1}));
      EXPECT_EQ(ep + em, fixed::Wide{e});
      EXPECT_EQ(wp + wm, fixed::Wide{w});
    }
}

}  // namespace
}  // namespace scanmd
