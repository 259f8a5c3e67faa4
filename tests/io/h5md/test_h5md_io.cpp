// tests/io/h5md/test_h5md_io.cpp — io/ parallel output pieces under mpiexec (1 and 3 ranks):
// row blocks and the all-to-all by id (oracle: every id once, in its block, fields intact),
// the H5MD writer read back through read_checkpoint (oracle: the values written), appending
// after a restart (frames beyond the restart step dropped), checkpoint temp + rename, the
// checkpoint errors, and backups.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "io/backup.hpp"
#include "io/checkpoint.hpp"
#include "io/h5md_writer.hpp"
#include "io/particle_rows.hpp"

namespace scanmd::io {
namespace {

namespace fs = std::filesystem;

// MPI_COMM_WORLD as the library's communicator (freed at exit, after MPI_Finalize: a no-op then).
const Communicator& world() {
  static const Communicator comm(MPI_COMM_WORLD);
  return comm;
}

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

// A fresh folder, the same on every rank (rank 0 names it and creates it).
std::string shared_dir(const std::string& name) {
  std::string dir;
  if (rank() == 0) {
    dir = (fs::path(::testing::TempDir()) /
           ("scanmd_h5md_" + name + "_" + std::to_string(::getpid())))
              .string();
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  int len = static_cast<int>(dir.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dir.resize(len);
  MPI_Bcast(dir.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  return dir;
}

// Removes a shared_dir folder when a test ends, once every rank is done with it (the tests
// leave nothing behind in the temporary directory).
struct SharedDirCleanup {
  std::string dir;
  ~SharedDirCleanup() {
    MPI_Barrier(MPI_COMM_WORLD);
    std::error_code ec;
    if (rank() == 0) fs::remove_all(dir, ec);
  }
};

// Particle id's row as a function of id and frame, so any reader can check it.
ParticleRow make_row(std::uint64_t id, int frame) {
  ParticleRow r;
  r.id = id;
  for (int k = 0; k < 3; ++k) {
    r.x[k] = 0.25 * static_cast<double>(id) + k + 0.5 * frame;
    r.v[k] = -1.0 / static_cast<double>(id + k) - frame;
    r.f[k] = 1e-3 * static_cast<double>(id * (k + 1)) + frame;
    r.image[k] = static_cast<std::int32_t>(id % 5) - 2 + k * frame;
  }
  return r;
}

// The ids this rank "owns" in a simulation: a scattered, uneven subset of 1..n.
std::vector<ParticleRow> scattered(std::int64_t n, int frame) {
  std::vector<ParticleRow> rows;
  for (std::int64_t id = 1; id <= n; ++id)
    if ((id * 7 + id / 3) % ranks() == rank()) rows.push_back(make_row(id, frame));
  return rows;
}

void expect_row(const ParticleRow& got, const ParticleRow& want) {
  EXPECT_EQ(got.id, want.id);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(got.x[k], want.x[k]) << "id " << want.id;
    EXPECT_EQ(got.v[k], want.v[k]) << "id " << want.id;
    EXPECT_EQ(got.image[k], want.image[k]) << "id " << want.id;
  }
}

TEST(RowBlock, ContiguousBalancedInRankOrder) {
  for (std::int64_t n : {0, 1, 2, 7, 1000})
    for (int p : {1, 2, 3, 8}) {
      std::int64_t next = 0;
      for (int r = 0; r < p; ++r) {
        const RowBlock b = row_block(n, r, p);
        EXPECT_EQ(b.lo, next);
        EXPECT_LE(b.size(), n / p + 1);
        EXPECT_GE(b.size(), n / p);
        next = b.hi;
      }
      EXPECT_EQ(next, n);
    }
}

TEST(OrderById, EachRankGetsItsBlockSorted) {
  for (std::int64_t n : {1, 2, 5, 997}) {
    const std::vector<ParticleRow> block = order_by_id(world(), scattered(n, 0), n);
    const RowBlock b = row_block(n, rank(), ranks());
    ASSERT_EQ(static_cast<std::int64_t>(block.size()), b.size());
    for (std::size_t k = 0; k < block.size(); ++k) expect_row(block[k], make_row(b.lo + k + 1, 0));
  }
}

TEST(OrderById, MissingOrDuplicateIdsThrowOnEveryRank) {
  std::vector<ParticleRow> rows = scattered(50, 0);
  if (rank() == 0) rows.push_back(make_row(1, 0));  // id 1 twice
  EXPECT_THROW(order_by_id(world(), rows, 50), std::runtime_error);
  EXPECT_THROW(order_by_id(world(), scattered(50, 0), 51), std::runtime_error);
}

TEST(Redistribute, RowsReachTheirDestination) {
  std::vector<ParticleRow> rows = scattered(300, 0);
  std::vector<std::uint32_t> dest(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) dest[i] = rows[i].id % ranks();
  const std::vector<ParticleRow> got = redistribute(world(), rows, dest);
  long long mine = 0;
  for (const ParticleRow& r : got) {
    EXPECT_EQ(static_cast<int>(r.id % ranks()), rank());
    expect_row(r, make_row(r.id, 0));
    ++mine;
  }
  long long total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, 300);
}

// Writes frames at `steps` (frame k: make_row(id, k)) into a new file.
void write_frames(const std::string& path, std::int64_t n, const std::vector<std::int64_t>& steps) {
  H5mdLayout layout;
  layout.particles = n;
  layout.force = true;
  H5mdWriter w = H5mdWriter::create(world(), path, layout, "test");
  w.begin_run({"[run]\nsteps = 3\n", "half-shell", {1, 1, ranks()}, ranks(), 0, ""});
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const std::vector<ParticleRow> block =
        order_by_id(world(), scattered(n, static_cast<int>(k)), n);
    const Observables obs{1.0 * k, 2.0 * k, 3.0 * k, 4.0 * k, 5.0 * k};
    w.write_frame({steps[k], 0.005 * steps[k], {4.0, 5.0, 6.0}}, block, &obs);
    w.write_thermo({steps[k], {1.0 * k, 2.0, 3.0, 4.0, 5.0}});
  }
  EXPECT_EQ(w.frames(), static_cast<std::int64_t>(steps.size()));
  w.end_run(steps.back(), {}, "none", {}, {});
  w.close();
}

void expect_frame(const Checkpoint& c, std::int64_t n, std::int64_t step, int frame) {
  EXPECT_EQ(c.step, step);
  EXPECT_EQ(c.time, 0.005 * step);
  EXPECT_EQ(c.particles, n);
  EXPECT_EQ(c.box, (std::array<double, 3>{4.0, 5.0, 6.0}));
  const RowBlock b = row_block(n, rank(), ranks());
  ASSERT_EQ(static_cast<std::int64_t>(c.rows.size()), b.size());
  for (std::size_t k = 0; k < c.rows.size(); ++k)
    expect_row(c.rows[k], make_row(b.lo + k + 1, frame));
}

TEST(H5mdWriter, FramesReadBackExactly) {
  const std::string dir = shared_dir("frames");
  const SharedDirCleanup cleanup{dir};
  const std::string path = dir + "/t.h5";
  write_frames(path, 37, {0, 10, 20});
  const Checkpoint c = read_checkpoint(world(), path);
  expect_frame(c, 37, 20, 2);
  EXPECT_EQ(c.deck, "[run]\nsteps = 3\n");
}

TEST(H5mdWriter, AppendDropsFramesAfterTheRestartStep) {
  const std::string dir = shared_dir("append");
  const SharedDirCleanup cleanup{dir};
  const std::string path = dir + "/t.h5";
  write_frames(path, 11, {0, 10, 20, 30});
  H5mdLayout layout;
  layout.particles = 11;
  layout.force = true;
  {
    H5mdWriter w = H5mdWriter::append(world(), path, layout, 15);
    EXPECT_EQ(w.frames(), 2);
    ASSERT_TRUE(w.last_step().has_value());
    EXPECT_EQ(*w.last_step(), 10);
    const std::vector<ParticleRow> block = order_by_id(world(), scattered(11, 7), 11);
    const Observables obs;
    w.write_frame({25, 0.125, {4.0, 5.0, 6.0}}, block, &obs);
    EXPECT_EQ(w.frames(), 3);
    w.close();
  }
  expect_frame(read_checkpoint(world(), path), 11, 25, 7);
  layout.particles = 12;
  EXPECT_THROW(H5mdWriter::append(world(), path, layout, 15), std::runtime_error);
  layout.particles = 11;
  layout.force = false;
  EXPECT_THROW(H5mdWriter::append(world(), path, layout, 15), std::runtime_error);
}

TEST(Checkpoint, WrittenViaTemporaryNameAndReadBack) {
  const std::string dir = shared_dir("checkpoint");
  const SharedDirCleanup cleanup{dir};
  const std::string path = dir + "/c.h5";
  for (int round = 0; round < 2; ++round) {  // the second replaces the first
    const std::vector<ParticleRow> block = order_by_id(world(), scattered(23, round), 23);
    write_checkpoint(world(), path, {100 + round, 0.005 * (100 + round), {4.0, 5.0, 6.0}}, block,
                     23, {"deck text", "full-shell", {1, 1, 1}, ranks(), 0, ""}, "test");
    EXPECT_FALSE(fs::exists(path + ".tmp"));
    const Checkpoint c = read_checkpoint(world(), path);
    expect_frame(c, 23, 100 + round, round);
    EXPECT_EQ(c.deck, "deck text");
  }
}

// Optional per-particle fields (base/particle_fields.hpp): order_by_id carries their words with
// the rows, the checkpoint stores them by name and reads them back for the same row block, and
// they enter the checksum: one changed value in the file is a checksum mismatch.
TEST(Checkpoint, OptionalFieldsTravelWithTheirRowsAndEnterTheChecksum) {
  const std::string dir = shared_dir("fields");
  const SharedDirCleanup cleanup{dir};
  const std::string path = dir + "/f.h5";
  const std::int64_t n = 29;
  const std::vector<ParticleRow> mine = scattered(n, 0);
  RowWords words;
  words.stride = 3;  // molecule (2 integers), then charge (1 real)
  for (const ParticleRow& r : mine) {
    const auto id = static_cast<std::int64_t>(r.id);
    words.words.push_back(static_cast<std::uint64_t>(3 * id));
    words.words.push_back(static_cast<std::uint64_t>(-id));
    words.words.push_back(std::bit_cast<std::uint64_t>(0.25 * static_cast<double>(id)));
  }
  const std::vector<ParticleRow> block = order_by_id(world(), mine, n, &words);
  ASSERT_EQ(words.words.size(), 3 * block.size());
  std::vector<FieldBlock> fields{{{"molecule", FieldKind::Integer, 2, FieldLife::State}, {}},
                                 {{"charge", FieldKind::Real, 1, FieldLife::State}, {}}};
  for (std::size_t i = 0; i < block.size(); ++i) {
    EXPECT_EQ(words.words[3 * i], static_cast<std::uint64_t>(3 * block[i].id)) << "order_by_id";
    fields[0].words.push_back(words.words[3 * i]);
    fields[0].words.push_back(words.words[3 * i + 1]);
    fields[1].words.push_back(words.words[3 * i + 2]);
  }
  write_checkpoint(world(), path, {7, 0.035, {4.0, 5.0, 6.0}}, block, n,
                   {"deck", "half-shell", {1, 1, 1}, ranks(), 0, ""}, "test", {}, fields);
  const Checkpoint c = read_checkpoint(world(), path);
  EXPECT_EQ(c.checksum, Checkpoint::Checksum::Verified);
  ASSERT_EQ(c.fields.size(), 2u);
  ASSERT_EQ(c.rows.size(), block.size());
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(c.fields[k].spec, fields[k].spec);
    EXPECT_EQ(c.fields[k].words, fields[k].words) << fields[k].spec.name;
  }
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const auto id = static_cast<std::int64_t>(c.rows[i].id);
    EXPECT_EQ(static_cast<std::int64_t>(c.fields[0].words[2 * i + 1]), -id);
    EXPECT_EQ(std::bit_cast<double>(c.fields[1].words[i]), 0.25 * static_cast<double>(id));
  }
  // One molecule value changed behind the writer's back (rank 0, serial HDF5).
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hid_t d = H5Dopen2(f, "scanmd/fields/molecule", H5P_DEFAULT);
    const hid_t space = H5Dget_space(d);
    const hsize_t start[2] = {5, 1}, count[2] = {1, 1};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hid_t mem = H5Screate_simple(1, count, nullptr);
    const std::int64_t v = 12345;
    EXPECT_GE(H5Dwrite(d, H5T_NATIVE_INT64, mem, space, H5P_DEFAULT, &v), 0);
    H5Sclose(mem);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::string error = "no error";
  try {
    read_checkpoint(world(), path);
  } catch (const CheckpointError& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("checksum mismatch"), std::string::npos) << error;
}

TEST(Checkpoint, UnusableFilesAreErrorsNamingThem) {
  const std::string dir = shared_dir("bad");
  const SharedDirCleanup cleanup{dir};
  auto message = [](const std::string& path) {
    try {
      read_checkpoint(world(), path);
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(dir + "/none.h5"), dir + "/none.h5: checkpoint file not found");
  if (rank() == 0) std::ofstream(dir + "/text.h5") << "not hdf5\n";
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_NE(message(dir + "/text.h5").find("text.h5: not a usable checkpoint"), std::string::npos);
  EXPECT_EQ(message(dir), dir + ": checkpoint is not a regular file");
}

TEST(Backup, GromacsStyleNamesFirstFreeNumber) {
  EXPECT_EQ(backup_name("traj.h5", 1), "#traj.h5.1#");
  EXPECT_EQ(backup_name("out/run/traj.h5", 12), "out/run/#traj.h5.12#");
  if (rank() != 0) return;  // plain file operations: one rank
  const std::string dir =
      (fs::path(::testing::TempDir()) / ("scanmd_backup_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = dir + "/x.h5";
  EXPECT_FALSE(back_up_existing(path).has_value());
  for (int n = 1; n <= 3; ++n) {
    std::ofstream(path) << n;
    EXPECT_EQ(back_up_existing(path), dir + "/#x.h5." + std::to_string(n) + "#");
    EXPECT_FALSE(fs::exists(path));
  }
  std::ifstream first(dir + "/#x.h5.1#");
  int v = 0;
  first >> v;
  EXPECT_EQ(v, 1);
  EXPECT_NO_THROW(check_writable(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  try {
    check_writable(dir + "/missing/x.h5");
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              dir + "/missing/x.h5: cannot write: No such file or directory");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scanmd::io
