// Checkpoint write (temporary name + rename) and validated read (see checkpoint.hpp).
#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "io/hdf5_ops.hpp"

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

namespace scanmd::io {

namespace {

// fsync of a file or folder; false (errno set) on failure.
bool sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

struct Shape {
  hsize_t frames = 0, particles = 0;
};

// The checksum of a checkpoint (issue 31): every row is hashed on its own (id, position,
// velocity, image flags, species: nine 64-bit words through a multiply-xorshift mix), the row
// hashes are summed modulo 2^64 over all ranks (so the sum does not depend on how the rows are
// split), and the sum is hashed with the particle count, the step, the time, the box and the
// thermostat's words. One flipped bit anywhere in these changes it (but for a chance of 2^-64).
constexpr const char* kChecksumName = "scanmd/checksum";
constexpr const char* kChecksumScheme = "rowmix64-v1";

constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Checksum {
 public:
  void add(std::uint64_t word) { h_ = mix64(h_ ^ word) + 0x9e3779b97f4a7c15ULL; }
  void add(double x) { add(std::bit_cast<std::uint64_t>(x)); }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0x243f6a8885a308d3ULL;
};

std::uint64_t row_hash(std::int64_t id, const double* x, const double* v, const std::int32_t* image,
                       std::int32_t species) {
  Checksum c;
  c.add(static_cast<std::uint64_t>(id));
  for (int k = 0; k < 3; ++k) c.add(x[k]);
  for (int k = 0; k < 3; ++k) c.add(v[k]);
  c.add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(image[0])) |
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(image[1])) << 32);
  c.add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(image[2])) |
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(species)) << 32);
  return c.value();
}

// The hash of one row's words of the optional field `name` (added to its row hash: a run without
// fields hashes as before).
std::uint64_t field_row_hash(const std::string& name, std::int64_t id, const std::uint64_t* w,
                             std::size_t width) {
  Checksum c;
  for (const char ch : name) c.add(static_cast<std::uint64_t>(static_cast<unsigned char>(ch)));
  c.add(static_cast<std::uint64_t>(id));
  for (std::size_t j = 0; j < width; ++j) c.add(w[j]);
  return c.value();
}

constexpr const char* kFieldList = "scanmd/field_list";

// "name:kind:width" per field, space-separated ("molecule:i:2 charge:r:1").
std::string field_list(std::span<const FieldBlock> fields) {
  std::string s;
  for (const FieldBlock& f : fields)
    s += fmt::format("{}{}:{}:{}", s.empty() ? "" : " ", f.spec.name,
                     f.spec.kind == FieldKind::Integer ? 'i' : 'r', f.spec.width);
  return s;
}

// The sum of `local` (this rank's row hashes, summed) over all ranks, modulo 2^64: the two
// 32-bit halves are summed exactly as long long (fine up to 2^31 ranks).
std::uint64_t sum_mod_2_64(const Communicator& comm, std::uint64_t local) {
  long long halves[2] = {static_cast<long long>(local & 0xffffffffULL),
                         static_cast<long long>(local >> 32)};
  comm.sum(std::span<long long>(halves, 2));
  return static_cast<std::uint64_t>(halves[0]) + (static_cast<std::uint64_t>(halves[1]) << 32);
}

std::string checksum_text(const Communicator& comm, std::uint64_t local_rows,
                          std::int64_t particles, std::int64_t step, double time,
                          const std::array<double, 3>& box, std::span<const double> thermostat) {
  Checksum c;
  c.add(sum_mod_2_64(comm, local_rows));
  c.add(static_cast<std::uint64_t>(particles));
  c.add(static_cast<std::uint64_t>(step));
  c.add(time);
  for (double l : box) c.add(l);
  c.add(static_cast<std::uint64_t>(thermostat.size()));
  for (double w : thermostat) c.add(w);
  return fmt::format("{} {:016x}", kChecksumScheme, c.value());
}

}  // namespace

void write_checkpoint(const Communicator& comm, const std::string& path, const FrameHeader& frame,
                      std::span<const ParticleRow> block, std::int64_t particles,
                      const RunRecord& run, const std::string& creator_version,
                      std::span<const double> thermostat_state,
                      std::span<const FieldBlock> fields) {
  const std::string tmp = path + ".tmp";
  try {
    H5mdLayout layout;
    layout.particles = particles;
    layout.force = false;
    layout.observables = false;
    layout.thermo_table = false;
    layout.units = run.units;
    std::vector<std::int32_t> species;
    for (const ParticleRow& r : block) species.push_back(r.type + 1);
    H5mdWriter w = H5mdWriter::create(comm, tmp, layout, creator_version, species, true);
    w.begin_run(run);
    w.write_frame(frame, block, nullptr);
    // The thermostat's state as the raw bits of its doubles (hex words): restored exactly.
    std::string words;
    for (const double x : thermostat_state)
      words += fmt::format("{}{:016x}", words.empty() ? "" : " ", std::bit_cast<std::uint64_t>(x));
    h5::write_text(w.file(), "scanmd/thermostat_state", words, w.transfer(), comm.rank() == 0);
    std::uint64_t rows = 0;
    for (const ParticleRow& r : block)
      rows += row_hash(static_cast<std::int64_t>(r.id), r.x, r.v, r.image, r.type + 1);
    if (!fields.empty()) {
      h5::write_text(w.file(), kFieldList, field_list(fields), w.transfer(), comm.rank() == 0);
      Group g = h5::create_group(w.file(), "scanmd/fields");
      const RowBlock rb = row_block(particles, comm.rank(), comm.size());
      for (const FieldBlock& fb : fields) {
        const auto width = static_cast<std::size_t>(fb.spec.width);
        if (fb.words.size() != block.size() * width)
          throw std::logic_error(path + ": field " + fb.spec.name + " does not match the rows");
        const bool integer = fb.spec.kind == FieldKind::Integer;
        const hsize_t dims[2] = {static_cast<hsize_t>(particles), width};
        Dataset d =
            h5::create_fixed(g.get(), fb.spec.name, integer ? H5T_STD_I64LE : H5T_IEEE_F64LE,
                             std::span<const hsize_t>(dims, 2));
        const hsize_t start[2] = {static_cast<hsize_t>(rb.lo), 0};
        const hsize_t count[2] = {static_cast<hsize_t>(rb.size()), width};
        h5::write_block(d.get(), integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, start, count,
                        fb.words.data(), w.transfer(), path + ": write " + fb.spec.name);
        for (std::size_t i = 0; i < block.size(); ++i)
          rows += field_row_hash(fb.spec.name, static_cast<std::int64_t>(block[i].id),
                                 fb.words.data() + i * width, width);
      }
    }
    const std::string checksum =
        checksum_text(comm, rows, particles, frame.step, frame.time, frame.box, thermostat_state);
    h5::write_text(w.file(), kChecksumName, checksum, w.transfer(), comm.rank() == 0);
    w.close();
  } catch (const CollectiveError&) {
    // Agreed by every rank; the writer has closed (and emptied) the temporary file: it goes,
    // the previous checkpoint at `path` stays as it was.
    if (comm.rank() == 0) std::remove(tmp.c_str());
    throw;
  }
  std::string error;
  if (comm.rank() == 0) {
    if (!sync_path(tmp, O_RDONLY)) {
      error = path + ": cannot sync checkpoint " + tmp + ": " + std::strerror(errno);
      std::remove(tmp.c_str());
    } else if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      error = path + ": cannot rename " + tmp + " to it: " + std::strerror(errno);
      std::remove(tmp.c_str());
    } else {
      std::filesystem::path dir = std::filesystem::path(path).parent_path();
      sync_path(dir.empty() ? std::string(".") : dir.string(), O_RDONLY | O_DIRECTORY);
    }
  }
  // Rank 0's error (empty: none) is thrown on every rank.
  error = comm.broadcast(std::move(error), 0);
  if (!error.empty()) throw CollectiveError(error);
}

Checkpoint read_checkpoint(const Communicator& comm, const std::string& path) {
  const int rank = comm.rank(), ranks = comm.size();
  const std::string bad = path + ": not a usable checkpoint: ";
  {
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    // A symbolic link loop, a folder without search permission, ...: said as it is (issue 31:
    // a link loop was "not found").
    if (ec) throw CheckpointError(path + ": cannot read the checkpoint: " + ec.message());
    if (!exists) throw CheckpointError(path + ": checkpoint file not found");
    if (!std::filesystem::is_regular_file(path, ec))
      throw CheckpointError(path + ": checkpoint is not a regular file");
  }

  Checkpoint c;
  std::vector<std::int64_t> ids;
  std::uint64_t row_hashes = 0;  // this rank's rows, summed (checksum)
  std::string stored_checksum;   // "" when the file has none
  try {
    File file = h5::open_parallel(comm.get(), path, false);
    const hid_t f = file.get();
    PropertyList dxpl_list = h5::collective_transfer();
    const h5::Transfer dxpl{dxpl_list.get(), comm.get()};
    const std::string t = "particles/trajectory/";
    for (const char* name : {"position/value", "position/step", "position/time", "velocity/value",
                             "image/value", "box/edges/value"})
      if (!h5::exists(f, t + name)) throw CheckpointError(bad + "no " + t + name);
    const bool id_series = h5::exists(f, t + "id/value");
    if (!id_series && !h5::exists(f, t + "id")) throw CheckpointError(bad + "no " + t + "id");

    Dataset pos = h5::open_dataset(f, t + "position/value");
    Dataset vel = h5::open_dataset(f, t + "velocity/value");
    Dataset img = h5::open_dataset(f, t + "image/value");
    Dataset step = h5::open_dataset(f, t + "position/step");
    Dataset time = h5::open_dataset(f, t + "position/time");
    Dataset edges = h5::open_dataset(f, t + "box/edges/value");
    Dataset id = h5::open_dataset(f, id_series ? t + "id/value" : t + "id");
    const std::vector<hsize_t> d = h5::dims(pos.get());
    if (d.size() != 3 || d[2] != 3 || d[0] == 0 || d[1] == 0)
      throw CheckpointError(bad + "position/value has no (frames, N, 3) data");
    const Shape s{d[0], d[1]};
    if (h5::dims(vel.get()) != d) throw CheckpointError(bad + "velocity/value shape differs");
    if (h5::dims(img.get()) != d) throw CheckpointError(bad + "image/value shape differs");
    if (h5::dims(step.get()) != std::vector<hsize_t>{s.frames} ||
        h5::dims(time.get()) != std::vector<hsize_t>{s.frames})
      throw CheckpointError(bad + "position step/time do not match its frames");
    if (h5::dims(edges.get()) != std::vector<hsize_t>{s.frames, 3, 3})
      throw CheckpointError(bad + "box/edges/value is not (frames, 3, 3)");
    if (h5::dims(id.get()) != (id_series ? std::vector<hsize_t>{s.frames, s.particles}
                                         : std::vector<hsize_t>{s.particles}))
      throw CheckpointError(bad + "id shape differs from position");

    const hsize_t last = s.frames - 1;
    c.particles = static_cast<std::int64_t>(s.particles);
    const RowBlock block = row_block(c.particles, rank, ranks);
    const hsize_t n = static_cast<hsize_t>(block.size()), lo = static_cast<hsize_t>(block.lo);
    const hsize_t at[1] = {last}, one[1] = {1};
    h5::read_block(step.get(), H5T_NATIVE_INT64, at, one, &c.step, dxpl, path + ": step");
    h5::read_block(time.get(), H5T_NATIVE_DOUBLE, at, one, &c.time, dxpl, path + ": time");
    double m[9];
    const hsize_t es[3] = {last, 0, 0}, ec[3] = {1, 3, 3};
    h5::read_block(edges.get(), H5T_NATIVE_DOUBLE, es, ec, m, dxpl, path + ": box");
    c.box = {m[0], m[4], m[8]};
    for (int k : {1, 2, 3, 5, 6, 7})
      if (m[k] != 0.0) throw CheckpointError(bad + "the box is not orthorhombic");
    for (double l : c.box)
      if (!(l > 0.0) || !std::isfinite(l)) throw CheckpointError(bad + "box edges not > 0");

    std::vector<double> x(3 * n), v(3 * n);
    std::vector<std::int32_t> image(3 * n);
    ids.resize(n);
    const hsize_t start[3] = {last, lo, 0}, count[3] = {1, n, 3};
    h5::read_block(pos.get(), H5T_NATIVE_DOUBLE, start, count, x.data(), dxpl, path + ": position");
    h5::read_block(vel.get(), H5T_NATIVE_DOUBLE, start, count, v.data(), dxpl, path + ": velocity");
    h5::read_block(img.get(), H5T_NATIVE_INT32, start, count, image.data(), dxpl, path + ": image");
    if (id_series) {
      const hsize_t is[2] = {last, lo}, ic[2] = {1, n};
      h5::read_block(id.get(), H5T_NATIVE_INT64, is, ic, ids.data(), dxpl, path + ": id");
    } else {
      const hsize_t is[1] = {lo}, ic[1] = {n};
      h5::read_block(id.get(), H5T_NATIVE_INT64, is, ic, ids.data(), dxpl, path + ": id");
    }
    // Species: the LAMMPS type, 1..T (checkpoints written before species existed have all 0:
    // one species either way).
    std::vector<std::int32_t> species(n, 1);
    if (h5::exists(f, t + "species")) {
      Dataset sp = h5::open_dataset(f, t + "species");
      if (h5::dims(sp.get()) != std::vector<hsize_t>{s.particles})
        throw CheckpointError(bad + "species shape differs from position");
      const hsize_t ss[1] = {lo}, sc[1] = {n};
      h5::read_block(sp.get(), H5T_NATIVE_INT32, ss, sc, species.data(), dxpl, path + ": species");
    }
    c.thermostat_saved = h5::exists(f, "scanmd/thermostat_state");
    if (c.thermostat_saved) {
      const std::string words = h5::read_text(f, "scanmd/thermostat_state", dxpl);
      std::size_t pos = 0;
      while (pos < words.size()) {
        std::size_t used = 0;
        const std::uint64_t bits = std::stoull(words.substr(pos), &used, 16);
        c.thermostat.push_back(std::bit_cast<double>(bits));
        pos += used;
        while (pos < words.size() && words[pos] == ' ') ++pos;
      }
    }
    if (h5::exists(f, kFieldList)) {  // the optional per-particle fields
      std::istringstream list(h5::read_text(f, kFieldList, dxpl));
      std::string item;
      while (list >> item) {
        const auto a = item.find(':'), b = item.rfind(':');
        FieldBlock fb;
        fb.spec.name = item.substr(0, a);
        fb.spec.kind = item.substr(a + 1, b - a - 1) == "r" ? FieldKind::Real : FieldKind::Integer;
        fb.spec.width = a == b ? 0 : std::atoi(item.c_str() + b + 1);
        if (fb.spec.name.empty() || fb.spec.width < 1)
          throw CheckpointError(bad + "scanmd/field_list entry '" + item + "' is malformed");
        const auto width = static_cast<hsize_t>(fb.spec.width);
        Dataset fd = h5::open_dataset(f, "scanmd/fields/" + fb.spec.name);
        if (h5::dims(fd.get()) != std::vector<hsize_t>{s.particles, width})
          throw CheckpointError(bad + "scanmd/fields/" + fb.spec.name + " shape is not (" +
                                std::to_string(s.particles) + ", " + std::to_string(width) + ")");
        fb.words.resize(n * width);
        const hsize_t fs[2] = {lo, 0}, fc[2] = {n, width};
        h5::read_block(fd.get(),
                       fb.spec.kind == FieldKind::Integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE,
                       fs, fc, fb.words.data(), dxpl, path + ": " + fb.spec.name);
        for (hsize_t i = 0; i < n; ++i)
          row_hashes += field_row_hash(fb.spec.name, ids[i], fb.words.data() + i * width,
                                       static_cast<std::size_t>(width));
        c.fields.push_back(std::move(fb));
      }
    }
    for (auto [name, rows] : {std::pair{"connectivity/bonds", &c.connectivity_bonds},
                              std::pair{"connectivity/angles", &c.connectivity_angles}})
      if (h5::exists(f, name)) {
        Dataset d = h5::open_dataset(f, name);
        const std::vector<hsize_t> dims = h5::dims(d.get());
        *rows = dims.empty() ? 0 : static_cast<std::int64_t>(dims[0]);
      }
    if (h5::exists(f, kChecksumName)) stored_checksum = h5::read_text(f, kChecksumName, dxpl);
    const auto hash_start = std::chrono::steady_clock::now();
    for (hsize_t i = 0; i < n; ++i)
      row_hashes += row_hash(ids[i], &x[3 * i], &v[3 * i], &image[3 * i], species[i]);
    c.checksum_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - hash_start).count();
    if (h5::exists(f, "scanmd/runs")) {
      Group runs = h5::open_group(f, "scanmd/runs");
      H5G_info_t info{};
      check(H5Gget_info(runs.get(), &info), path + ": scanmd/runs");
      const std::string deck = std::to_string(info.nlinks - 1) + "/deck";
      if (info.nlinks > 0 && h5::exists(runs.get(), deck))
        c.deck = h5::read_text(runs.get(), deck, dxpl);
    }
    c.rows.resize(n);
    for (hsize_t i = 0; i < n; ++i) {
      ParticleRow& r = c.rows[i];
      r.id = static_cast<std::uint64_t>(ids[i]);
      r.type = std::max(species[i], 1) - 1;
      for (int k = 0; k < 3; ++k) {
        r.x[k] = x[3 * i + k];
        r.v[k] = v[3 * i + k];
        r.image[k] = image[3 * i + k];
      }
    }
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    // HDF5 messages already name the file when they come from opening it.
    const std::string what = e.what();
    throw CheckpointError(what.rfind(path, 0) == 0 ? bad + what.substr(path.size() + 2)
                                                   : bad + what);
  }

  // Per-rank checks after every collective call: the rows must be ids lo+1.. in order, with
  // finite values; all ranks learn of a problem on any.
  const RowBlock block = row_block(c.particles, rank, ranks);
  int problem = 0;  // 1: ids, 2: non-finite
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const ParticleRow& r = c.rows[i];
    if (ids[i] != block.lo + static_cast<std::int64_t>(i) + 1) problem = std::max(problem, 1);
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(r.x[k]) || !std::isfinite(r.v[k])) problem = std::max(problem, 2);
  }
  problem = static_cast<int>(comm.max(static_cast<long long>(problem)));
  if (problem == 1) throw CheckpointError(bad + "particle ids are not 1..N in row order");
  if (problem == 2) throw CheckpointError(bad + "non-finite positions or velocities");
  // The thermostat of the run that wrote the file, from its resolved deck (every rank read it).
  if (!c.deck.empty()) {
    try {
      const toml::table deck = toml::parse(c.deck, path);
      c.writer_thermostat = deck["thermostat"]["style"].value_or(std::string("none"));
      c.writer_chain = static_cast<int>(deck["thermostat"]["chain"].value_or(std::int64_t{0}));
    } catch (const toml::parse_error&) {
      // A deck that does not parse says nothing about the thermostat: left unknown.
    }
  }
  // The checksum of what was read against the one stored (all ranks take part in the sum).
  const std::string computed =
      checksum_text(comm, row_hashes, c.particles, c.step, c.time, c.box, c.thermostat);
  c.checksum =
      stored_checksum.empty() ? Checkpoint::Checksum::Absent : Checkpoint::Checksum::Verified;
  if (!stored_checksum.empty() && stored_checksum != computed)
    throw CheckpointError(fmt::format(
        "{}: checksum mismatch: the file holds {}, its contents give {}: its ids, positions, "
        "velocities, image flags, species, step, box or thermostat state are not what was "
        "written (a damaged file); restart from an earlier checkpoint (#{}.N# backups)",
        path, stored_checksum, computed, std::filesystem::path(path).filename().string()));
  // Every rank read the same step: a run never writes a negative one.
  if (c.step < 0)
    throw CheckpointError(bad + "its step is " + std::to_string(c.step) + ", negative");
  return c;
}

}  // namespace scanmd::io
