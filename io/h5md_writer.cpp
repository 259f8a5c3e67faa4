// H5MD 1.1 trajectory writer (see h5md_writer.hpp for the layout).
#include "io/h5md_writer.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "base/communicator.hpp"
#include "io/hdf5_ops.hpp"

namespace scanmd::io {

namespace {

constexpr const char* kTraj = "particles/trajectory";
constexpr const char* kStepOwner = "particles/trajectory/position";
constexpr const char* kObservableNames[] = {"temperature", "potential_energy", "kinetic_energy",
                                            "total_energy", "pressure"};
constexpr hsize_t kFrameChunk = 256;
constexpr hsize_t kRowChunk = 65536;

std::string user_name() {
  for (const char* var : {"USER", "LOGNAME"})
    if (const char* v = std::getenv(var); v && *v) return v;
  return "unknown";
}

struct ElementSpec {
  std::string name;
  hid_t file_type;
  std::vector<hsize_t> rest;  // shape of one frame
};

// The H5MD unit string of element `name` (its path's last part) in `units`; empty: none (lj, and
// the dimensionless image flags). MDAnalysis parses the length, velocity, time and (real) force
// spellings; "eV Angstrom-1" is H5MD but not in MDAnalysis's table.
std::string unit_of(UnitSystem units, const std::string& name) {
  if (units == UnitSystem::LJ) return {};
  const bool metal = units == UnitSystem::Metal;
  const std::string leaf = name.substr(name.rfind('/') + 1);
  if (leaf == "position" || leaf == "unwrapped_position" || leaf == "edges") return "Angstrom";
  if (leaf == "velocity") return metal ? "Angstrom ps-1" : "Angstrom fs-1";
  if (leaf == "force") return metal ? "eV Angstrom-1" : "kcal mol-1 Angstrom-1";
  if (leaf == "time") return metal ? "ps" : "fs";
  if (leaf == "temperature") return "K";
  if (leaf == "potential_energy" || leaf == "kinetic_energy" || leaf == "total_energy")
    return metal ? "eV" : "kcal mol-1";
  if (leaf == "pressure") return metal ? "bar" : "atm";
  return {};
}

std::vector<ElementSpec> element_specs(const H5mdLayout& layout) {
  const hsize_t n = static_cast<hsize_t>(layout.particles);
  const std::string t = kTraj;
  // position first: it owns the shared step and time datasets.
  std::vector<ElementSpec> specs{{t + "/position", H5T_IEEE_F64LE, {n, 3}},
                                 {t + "/velocity", H5T_IEEE_F64LE, {n, 3}},
                                 {t + "/image", H5T_STD_I32LE, {n, 3}},
                                 {t + "/box/edges", H5T_IEEE_F64LE, {3, 3}}};
  if (layout.force) specs.push_back({t + "/force", H5T_IEEE_F64LE, {n, 3}});
  if (layout.unwrapped) specs.push_back({t + "/unwrapped_position", H5T_IEEE_F64LE, {n, 3}});
  if (layout.observables)
    for (const char* o : kObservableNames)
      specs.push_back({std::string("observables/") + o, H5T_IEEE_F64LE, {}});
  return specs;
}

std::vector<hsize_t> chunk_of(const std::vector<hsize_t>& rest) {
  if (rest.empty()) return {kFrameChunk};
  std::vector<hsize_t> chunk{rest.size() == 2 && rest[1] == 3 && rest[0] == 3 ? hsize_t{64}
                                                                              : hsize_t{1}};
  for (std::size_t i = 0; i < rest.size(); ++i)
    chunk.push_back(i == 0 ? std::clamp<hsize_t>(rest[0], 1, kRowChunk) : rest[i]);
  return chunk;
}

// The thermo table's row: step (int64), then one double per column, packed.
Datatype thermo_type(const std::vector<std::string>& columns) {
  const std::size_t size = sizeof(std::int64_t) + sizeof(double) * columns.size();
  Datatype t(H5Tcreate(H5T_COMPOUND, size), "H5Tcreate(thermo)");
  check(H5Tinsert(t.get(), "step", 0, H5T_NATIVE_INT64), "thermo type");
  for (std::size_t k = 0; k < columns.size(); ++k)
    check(H5Tinsert(t.get(), columns[k].c_str(), sizeof(std::int64_t) + sizeof(double) * k,
                    H5T_NATIVE_DOUBLE),
          "thermo type");
  return t;
}

// The column names of an existing table after `step`.
std::vector<std::string> thermo_columns_of(hid_t dataset) {
  std::vector<std::string> names;
  const hid_t t = H5Dget_type(dataset);
  if (t < 0) return names;
  const int n = H5Tget_nmembers(t);
  for (int k = 0; k < n; ++k) {
    char* name = H5Tget_member_name(t, static_cast<unsigned>(k));
    if (!name) continue;
    if (std::string_view(name) != "step") names.emplace_back(name);
    H5free_memory(name);
  }
  H5Tclose(t);
  return names;
}

struct TimingRecord {
  char section[16];
  double min, avg, max, percent;
};

Datatype timing_type() {
  Datatype t(H5Tcreate(H5T_COMPOUND, sizeof(TimingRecord)), "H5Tcreate(timing)");
  Datatype s = h5::string_type(sizeof(TimingRecord::section));
  check(H5Tinsert(t.get(), "section", offsetof(TimingRecord, section), s.get()), "timing type");
  check(H5Tinsert(t.get(), "min", offsetof(TimingRecord, min), H5T_NATIVE_DOUBLE), "timing type");
  check(H5Tinsert(t.get(), "avg", offsetof(TimingRecord, avg), H5T_NATIVE_DOUBLE), "timing type");
  check(H5Tinsert(t.get(), "max", offsetof(TimingRecord, max), H5T_NATIVE_DOUBLE), "timing type");
  check(H5Tinsert(t.get(), "percent", offsetof(TimingRecord, percent), H5T_NATIVE_DOUBLE),
        "timing type");
  return t;
}

// HDF5 says "file write failed" without the reason; a full disk, the usual one, is told here
// (statvfs of the file's folder: less than 1 MiB free).
std::string with_space_note(const std::string& error, const std::string& path) {
  if (error.find(std::strerror(ENOSPC)) != std::string::npos) return error;
  const std::string dir = std::filesystem::path(path).parent_path().string();
  struct statvfs fs {};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) != 0) return error;
  const double free_bytes = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  if (free_bytes >= 1024.0 * 1024.0) return error;
  return error + ": " + std::strerror(ENOSPC) + " (" + std::to_string(fs.f_bavail * fs.f_frsize) +
         " bytes free on the file system of " + (dir.empty() ? "." : dir) + ")";
}

// Rank 0 writes a small fixed dataset whole; the others take part selecting nothing.
void write_whole(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                 std::vector<hsize_t> shape, const void* data, const h5::Transfer& dxpl,
                 bool participate) {
  Dataset d = h5::create_fixed(loc, name, file_type, shape);
  if (std::find(shape.begin(), shape.end(), hsize_t{0}) != shape.end()) return;  // empty
  std::vector<hsize_t> start(shape.size(), 0);
  if (!participate) std::fill(shape.begin(), shape.end(), 0);
  h5::write_block(d.get(), mem_type, start, shape, data, dxpl, "write " + name);
}

}  // namespace

H5mdWriter H5mdWriter::create(const Communicator& comm, const std::string& path,
                              const H5mdLayout& layout, const std::string& creator_version,
                              std::span<const std::int32_t> species_block, bool temporary) {
  H5mdWriter w;
  w.comm_ = comm.get();
  w.rank_ = comm.rank();
  w.ranks_ = comm.size();
  w.path_ = path;
  w.layout_ = layout;
  w.temporary_ = temporary;
  w.guarded([&] {
    w.file_ = h5::create_parallel(comm.get(), path);
    w.dxpl_ = h5::collective_transfer();
    const hid_t f = w.file_.get();

    {
      Group h5md = h5::create_group(f, "h5md");
      const int version[2] = {1, 1};
      h5::write_attribute(h5md.get(), "version", std::span<const int>(version));
      Group author = h5::create_group(h5md.get(), "author");
      h5::write_attribute(author.get(), "name", user_name());
      Group creator = h5::create_group(h5md.get(), "creator");
      h5::write_attribute(creator.get(), "name", std::string("scanmd"));
      h5::write_attribute(creator.get(), "version", creator_version);
    }
    Group particles = h5::create_group(f, "particles");
    Group traj = h5::create_group(particles.get(), "trajectory");
    {
      Group box = h5::create_group(traj.get(), "box");
      h5::write_attribute(box.get(), "dimension", std::int64_t{3});
      const std::string periodic[3] = {"periodic", "periodic", "periodic"};
      h5::write_attribute(box.get(), "boundary", std::span<const std::string>(periodic));
    }
    if (layout.observables) h5::create_group(f, "observables");
    w.open_series(true);

    // Time-independent: id (row + 1) and species (LAMMPS atom type), each rank its block.
    const RowBlock block = row_block(layout.particles, w.rank_, w.ranks_);
    const hsize_t n = static_cast<hsize_t>(layout.particles);
    std::vector<std::int64_t> ids(block.size());
    for (std::int64_t k = 0; k < block.size(); ++k) ids[k] = block.lo + k + 1;
    if (!species_block.empty() && species_block.size() != static_cast<std::size_t>(block.size()))
      throw std::logic_error(path + ": species block does not match the row block");
    std::vector<std::int32_t> species(species_block.begin(), species_block.end());
    species.resize(block.size(), 1);
    const hsize_t start[1] = {static_cast<hsize_t>(block.lo)};
    const hsize_t count[1] = {static_cast<hsize_t>(block.size())};
    Dataset id = h5::create_fixed(traj.get(), "id", H5T_STD_I64LE, std::span<const hsize_t>(&n, 1));
    h5::write_block(id.get(), H5T_NATIVE_INT64, start, count, ids.data(), w.io(),
                    path + ": write id");
    Dataset sp =
        h5::create_fixed(traj.get(), "species", H5T_STD_I32LE, std::span<const hsize_t>(&n, 1));
    h5::write_block(sp.get(), H5T_NATIVE_INT32, start, count, species.data(), w.io(),
                    path + ": write species");

    if (layout.thermo_table) {
      Group scanmd = h5::create_group(f, "scanmd");
      Datatype t = thermo_type(layout.thermo_columns);
      const hsize_t chunk = kFrameChunk;
      w.thermo_ = h5::create_series(scanmd.get(), "thermo", t.get(), {},
                                    std::span<const hsize_t>(&chunk, 1));
    }
    w.flush();
  });
  return w;
}

void H5mdWriter::write_topology(std::span<const std::int64_t> bonds,
                                std::span<const std::int64_t> angles,
                                std::span<const std::int64_t> molecule_block) {
  guarded([&] {
    const hid_t f = file_.get();
    Group conn = h5::create_group(f, "connectivity");
    auto write = [&](const std::string& name, std::span<const std::int64_t> rows, int width) {
      long long mine = static_cast<long long>(rows.size()) / width, before = 0, total = 0;
      MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, comm_);
      if (rank_ == 0) before = 0;
      MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm_);
      if (total == 0) return;  // none: no dataset (an empty contiguous one cannot be written)
      const hsize_t dims[2] = {static_cast<hsize_t>(total), static_cast<hsize_t>(width)};
      Dataset d = h5::create_fixed(conn.get(), name, H5T_STD_I64LE, dims);
      h5::write_attribute(d.get(), "particles_group", std::string("/particles/trajectory"));
      h5::write_attribute(d.get(), "ids", std::string("id"));
      const hsize_t start[2] = {static_cast<hsize_t>(before), 0};
      const hsize_t count[2] = {static_cast<hsize_t>(mine), static_cast<hsize_t>(width)};
      h5::write_block(d.get(), H5T_NATIVE_INT64, start, count, rows.data(), io(),
                      path_ + ": write connectivity/" + name);
    };
    write("bonds", bonds, 2);
    write("angles", angles, 3);
    const RowBlock block = row_block(layout_.particles, rank_, ranks_);
    if (molecule_block.size() != static_cast<std::size_t>(block.size()))
      throw std::logic_error(path_ + ": molecule block does not match the row block");
    const hsize_t n = static_cast<hsize_t>(layout_.particles);
    Group traj = h5::open_group(f, "particles/trajectory");
    Dataset mol =
        h5::create_fixed(traj.get(), "molecule", H5T_STD_I64LE, std::span<const hsize_t>(&n, 1));
    const hsize_t start[1] = {static_cast<hsize_t>(block.lo)};
    const hsize_t count[1] = {static_cast<hsize_t>(block.size())};
    h5::write_block(mol.get(), H5T_NATIVE_INT64, start, count, molecule_block.data(), io(),
                    path_ + ": write molecule");
    flush();
  });
}

H5mdWriter H5mdWriter::append(const Communicator& comm, const std::string& path,
                              const H5mdLayout& layout, std::int64_t restart_step) {
  H5mdWriter w;
  w.comm_ = comm.get();
  w.rank_ = comm.rank();
  w.ranks_ = comm.size();
  w.path_ = path;
  w.layout_ = layout;
  w.guarded([&] {
    w.file_ = h5::open_parallel(comm.get(), path, true);
    w.dxpl_ = h5::collective_transfer();
    const hid_t f = w.file_.get();
    auto need = [&](const std::string& what, bool ok) {
      if (!ok)
        throw std::runtime_error(path + ": cannot append to this trajectory: " + what +
                                 " (move the file away or choose another output.trajectory)");
    };
    for (const ElementSpec& e : element_specs(layout))
      need("it has no " + e.name, h5::exists(f, e.name + "/value"));
    if (!layout.force) need("it has forces", !h5::exists(f, std::string(kTraj) + "/force"));
    need("it has no scanmd/thermo", !layout.thermo_table || h5::exists(f, "scanmd/thermo"));
    {
      Dataset pos = h5::open_dataset(f, std::string(kStepOwner) + "/value");
      const std::vector<hsize_t> d = h5::dims(pos.get());
      need("position/value is not (frames, N, 3)", d.size() == 3 && d[2] == 3);
      need("it holds " + std::to_string(d[1]) + " particles, this run " +
               std::to_string(layout.particles),
           static_cast<std::int64_t>(d[1]) == layout.particles);
    }
    w.open_series(false);

    // Frames up to the restart step stay (steps increase along the file).
    const std::vector<hsize_t> sd = h5::dims(w.step_.get());
    std::vector<std::int64_t> steps(sd.at(0));
    const hsize_t s0[1] = {0};
    const hsize_t sn[1] = {sd[0]};
    h5::read_block(w.step_.get(), H5T_NATIVE_INT64, s0, sn, steps.data(), w.io(),
                   path + ": read step");
    const auto keep =
        std::find_if(steps.begin(), steps.end(), [&](std::int64_t s) { return s > restart_step; });
    w.frames_ = keep - steps.begin();
    if (w.frames_ > 0) w.last_step_ = steps[w.frames_ - 1];
    h5::set_rows(w.step_.get(), w.frames_, w.comm_, w.path_);
    h5::set_rows(w.time_.get(), w.frames_, w.comm_, w.path_);
    for (Series& s : w.series_) h5::set_rows(s.value.get(), w.frames_, w.comm_, w.path_);

    if (layout.thermo_table) {
      w.thermo_ = h5::open_dataset(f, "scanmd/thermo");
      const std::vector<std::string> columns = thermo_columns_of(w.thermo_.get());
      if (columns != layout.thermo_columns) {
        std::string have, want;
        for (const std::string& c : columns) have += " " + c;
        for (const std::string& c : layout.thermo_columns) want += " " + c;
        need("its scanmd/thermo has the columns step" + have +
                 ", this run's output.thermo gives step" + want,
             false);
      }
      const std::vector<hsize_t> td = h5::dims(w.thermo_.get());
      std::vector<std::int64_t> rows(td.at(0));
      Datatype t = thermo_type({});  // the step column only
      const hsize_t tn[1] = {td[0]};
      h5::read_block(w.thermo_.get(), t.get(), s0, tn, rows.data(), w.io(),
                     path + ": read scanmd/thermo");
      w.thermo_rows_ = std::find_if(rows.begin(), rows.end(),
                                    [&](std::int64_t step) { return step >= restart_step; }) -
                       rows.begin();
      h5::set_rows(w.thermo_.get(), w.thermo_rows_, w.comm_, w.path_);
    }
    w.flush();
  });
  return w;
}

std::optional<std::vector<std::int64_t>> H5mdWriter::frame_steps(const Communicator& comm,
                                                                 const std::string& path) {
  try {
    File file = h5::open_parallel(comm.get(), path, false);
    const std::string name = std::string(kStepOwner) + "/step";
    if (!h5::exists(file.get(), name)) return std::nullopt;
    Dataset step = h5::open_dataset(file.get(), name);
    const std::vector<hsize_t> d = h5::dims(step.get());
    if (d.size() != 1) return std::nullopt;
    std::vector<std::int64_t> steps(d[0]);
    const hsize_t s0[1] = {0}, sn[1] = {d[0]};
    PropertyList dxpl = h5::collective_transfer();
    h5::read_block(step.get(), H5T_NATIVE_INT64, s0, sn, steps.data(), {dxpl.get(), comm.get()},
                   path + ": read step");
    return steps;
  } catch (const std::exception&) {  // the same on every rank: the file is not a trajectory
    return std::nullopt;
  }
}

void H5mdWriter::open_series(bool create) {
  const hid_t f = file_.get();
  for (const ElementSpec& e : element_specs(layout_)) {
    if (create) {
      Group g = h5::create_group(f, e.name);
      const std::vector<hsize_t> chunk = chunk_of(e.rest);
      Dataset value = h5::create_series(g.get(), "value", e.file_type, e.rest, chunk);
      if (const std::string unit = unit_of(layout_.units, e.name); !unit.empty())
        h5::write_text_attribute(value.get(), "unit", unit);
      if (e.name == kStepOwner) {
        const hsize_t c = kFrameChunk;
        step_ =
            h5::create_series(g.get(), "step", H5T_STD_I64LE, {}, std::span<const hsize_t>(&c, 1));
        time_ =
            h5::create_series(g.get(), "time", H5T_IEEE_F64LE, {}, std::span<const hsize_t>(&c, 1));
        if (const std::string unit = unit_of(layout_.units, "time"); !unit.empty())
          h5::write_text_attribute(time_.get(), "unit", unit);
      } else {
        h5::hard_link(f, std::string(kStepOwner) + "/step", g.get(), "step");
        h5::hard_link(f, std::string(kStepOwner) + "/time", g.get(), "time");
      }
      series_.push_back({e.name, std::move(value)});
    } else {
      series_.push_back({e.name, h5::open_dataset(f, e.name + "/value")});
    }
  }
  if (!create) {
    step_ = h5::open_dataset(f, std::string(kStepOwner) + "/step");
    time_ = h5::open_dataset(f, std::string(kStepOwner) + "/time");
  }
}

void H5mdWriter::write_frame(const FrameHeader& frame, std::span<const ParticleRow> block,
                             const Observables* obs) {
  guarded([&] { write_frame_unguarded(frame, block, obs); });
}

void H5mdWriter::write_frame_unguarded(const FrameHeader& frame, std::span<const ParticleRow> block,
                                       const Observables* obs) {
  const RowBlock rows = row_block(layout_.particles, rank_, ranks_);
  if (static_cast<std::int64_t>(block.size()) != rows.size())
    throw std::logic_error("H5mdWriter::write_frame: block of " + std::to_string(block.size()) +
                           " rows, expected " + std::to_string(rows.size()));
  if (layout_.observables && !obs)
    throw std::logic_error("H5mdWriter::write_frame: observables missing");
  const hsize_t f = static_cast<hsize_t>(frames_);
  h5::set_rows(step_.get(), f + 1, comm_, path_);
  h5::set_rows(time_.get(), f + 1, comm_, path_);
  for (Series& s : series_) h5::set_rows(s.value.get(), f + 1, comm_, path_);

  const h5::Transfer dxpl = io();
  const hsize_t mine = rank_ == 0 ? 1 : 0;
  const hsize_t at[1] = {f};
  const hsize_t one[1] = {mine};
  h5::write_block(step_.get(), H5T_NATIVE_INT64, at, one, &frame.step, dxpl, path_ + ": step");
  h5::write_block(time_.get(), H5T_NATIVE_DOUBLE, at, one, &frame.time, dxpl, path_ + ": time");

  // Particle data: this rank's rows [lo, hi) of frame f.
  const std::size_t n = block.size();
  std::vector<double> x(3 * n), v(3 * n), force(layout_.force ? 3 * n : 0);
  std::vector<double> unwrapped(layout_.unwrapped ? 3 * n : 0);
  std::vector<std::int32_t> image(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      x[3 * i + k] = block[i].x[k];
      if (layout_.unwrapped)  // x + image · L, as LAMMPS dump `xu`
        unwrapped[3 * i + k] =
            block[i].x[k] + static_cast<double>(block[i].image[k]) * frame.box[k];
      v[3 * i + k] = block[i].v[k];
      image[3 * i + k] = block[i].image[k];
      if (layout_.force) force[3 * i + k] = block[i].f[k];
    }
  const hsize_t start[3] = {f, static_cast<hsize_t>(rows.lo), 0};
  const hsize_t count[3] = {1, static_cast<hsize_t>(n), 3};
  for (Series& s : series_) {
    const std::string what = path_ + ": write " + s.name;
    const std::string leaf = s.name.substr(s.name.rfind('/') + 1);
    if (leaf == "position")
      h5::write_block(s.value.get(), H5T_NATIVE_DOUBLE, start, count, x.data(), dxpl, what);
    else if (leaf == "velocity")
      h5::write_block(s.value.get(), H5T_NATIVE_DOUBLE, start, count, v.data(), dxpl, what);
    else if (leaf == "image")
      h5::write_block(s.value.get(), H5T_NATIVE_INT32, start, count, image.data(), dxpl, what);
    else if (leaf == "force")
      h5::write_block(s.value.get(), H5T_NATIVE_DOUBLE, start, count, force.data(), dxpl, what);
    else if (leaf == "unwrapped_position")
      h5::write_block(s.value.get(), H5T_NATIVE_DOUBLE, start, count, unwrapped.data(), dxpl, what);
    else if (leaf == "edges") {
      const double m[9] = {frame.box[0], 0, 0, 0, frame.box[1], 0, 0, 0, frame.box[2]};
      const hsize_t es[3] = {f, 0, 0};
      const hsize_t ec[3] = {mine, 3, 3};
      h5::write_block(s.value.get(), H5T_NATIVE_DOUBLE, es, ec, m, dxpl, what);
    } else {
      const double value = leaf == "temperature"        ? obs->temperature
                           : leaf == "potential_energy" ? obs->potential_energy
                           : leaf == "kinetic_energy"   ? obs->kinetic_energy
                           : leaf == "total_energy"     ? obs->total_energy
                                                        : obs->pressure;
      h5::write_block(s.value.get(), H5T_NATIVE_DOUBLE, at, one, &value, dxpl, what);
    }
  }
  flush();  // the frame is complete once its metadata is on disk
  ++frames_;
  last_step_ = frame.step;
}

void H5mdWriter::write_thermo(const ThermoRow& row) {
  guarded([&] { write_thermo_unguarded(row); });
}

void H5mdWriter::write_thermo_unguarded(const ThermoRow& row) {
  if (!thermo_) return;
  const hsize_t r = static_cast<hsize_t>(thermo_rows_);
  h5::set_rows(thermo_.get(), r + 1, comm_, path_);
  if (row.values.size() != layout_.thermo_columns.size())
    throw std::logic_error("H5mdWriter::write_thermo: " + std::to_string(row.values.size()) +
                           " values for " + std::to_string(layout_.thermo_columns.size()) +
                           " columns");
  Datatype t = thermo_type(layout_.thermo_columns);
  std::vector<unsigned char> packed(sizeof(std::int64_t) + sizeof(double) * row.values.size());
  std::memcpy(packed.data(), &row.step, sizeof(std::int64_t));
  if (!row.values.empty())
    std::memcpy(packed.data() + sizeof(std::int64_t), row.values.data(),
                sizeof(double) * row.values.size());
  const hsize_t at[1] = {r};
  const hsize_t one[1] = {rank_ == 0 ? hsize_t{1} : hsize_t{0}};
  h5::write_block(thermo_.get(), t.get(), at, one, packed.data(), io(),
                  path_ + ": write scanmd/thermo");
  ++thermo_rows_;
}

void H5mdWriter::begin_run(const RunRecord& run) {
  guarded([&] { begin_run_unguarded(run); });
}

void H5mdWriter::begin_run_unguarded(const RunRecord& run) {
  const hid_t f = file_.get();
  if (!h5::exists(f, "scanmd")) h5::create_group(f, "scanmd");
  if (!h5::exists(f, "scanmd/runs")) h5::create_group(f, "scanmd/runs");
  Group runs = h5::open_group(f, "scanmd/runs");
  H5G_info_t info{};
  check(H5Gget_info(runs.get(), &info), path_ + ": H5Gget_info(scanmd/runs)");
  run_ = h5::create_group(runs.get(), std::to_string(info.nlinks));
  const hid_t g = run_.get();
  h5::write_text(g, "deck", run.deck, io(), rank_ == 0);
  h5::write_attribute(g, "method", run.method);
  h5::write_attribute(g, "grid", std::span<const int>(run.grid));
  h5::write_attribute(g, "ranks", std::int64_t{run.ranks});
  h5::write_attribute(g, "first_step", run.first_step);
  h5::write_attribute(g, "restart_from", run.restart_from);
  h5::write_attribute(g, "thermostat", run.thermostat);
  flush();
}

void H5mdWriter::end_run(std::int64_t last_step, std::span<const ImportRecord> imports,
                         const std::string& balance_cost, std::span<const BalanceRecord> balances,
                         std::span<const TimingRow> timing) {
  guarded([&] { end_run_unguarded(last_step, imports, balance_cost, balances, timing); });
}

void H5mdWriter::end_run_unguarded(std::int64_t last_step, std::span<const ImportRecord> imports,
                                   const std::string& balance_cost,
                                   std::span<const BalanceRecord> balances,
                                   std::span<const TimingRow> timing) {
  if (!run_) throw std::logic_error("H5mdWriter::end_run without begin_run");
  const hid_t g = run_.get();
  const h5::Transfer dxpl = io();
  const bool me = rank_ == 0;
  h5::write_attribute(g, "last_step", last_step);

  Group imp = h5::create_group(g, "imports");
  const hsize_t R = imports.size();
  const hsize_t P = R ? imports[0].per_rank.size() : static_cast<hsize_t>(ranks_);
  std::vector<std::int64_t> steps(R);
  std::vector<std::int64_t> cols[4];
  for (auto& c : cols) c.resize(R * P);
  for (hsize_t r = 0; r < R; ++r) {
    steps[r] = imports[r].step;
    for (hsize_t p = 0; p < P && p < imports[r].per_rank.size(); ++p)
      for (int c = 0; c < 4; ++c) cols[c][r * P + p] = imports[r].per_rank[p][c];
  }
  write_whole(imp.get(), "step", H5T_STD_I64LE, H5T_NATIVE_INT64, {R}, steps.data(), dxpl,
              me && R > 0);
  const char* names[4] = {"ghosts", "tower", "plate", "bytes_per_step"};
  for (int c = 0; c < 4; ++c)
    write_whole(imp.get(), names[c], H5T_STD_I64LE, H5T_NATIVE_INT64, {R, P}, cols[c].data(), dxpl,
                me && R > 0);
  std::vector<std::int64_t> pairs(R * P, -1);
  for (hsize_t r = 0; r < R; ++r)
    for (hsize_t p = 0; p < P && p < imports[r].pairs.size(); ++p)
      pairs[r * P + p] = imports[r].pairs[p];
  write_whole(imp.get(), "pairs", H5T_STD_I64LE, H5T_NATIVE_INT64, {R, P}, pairs.data(), dxpl,
              me && R > 0);

  if (balance_cost != "none") {
    Group bal = h5::create_group(g, "balance");
    h5::write_attribute(bal.get(), "cost", balance_cost);
    const hsize_t B = balances.size();
    std::vector<std::int64_t> step(B), moved(B);
    std::vector<double> before(B), after(B);
    for (hsize_t b = 0; b < B; ++b) {
      step[b] = balances[b].step;
      moved[b] = balances[b].moved;
      before[b] = balances[b].before;
      after[b] = balances[b].after;
    }
    write_whole(bal.get(), "step", H5T_STD_I64LE, H5T_NATIVE_INT64, {B}, step.data(), dxpl,
                me && B > 0);
    write_whole(bal.get(), "moved", H5T_STD_I64LE, H5T_NATIVE_INT64, {B}, moved.data(), dxpl,
                me && B > 0);
    write_whole(bal.get(), "before", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {B}, before.data(), dxpl,
                me && B > 0);
    write_whole(bal.get(), "after", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {B}, after.data(), dxpl,
                me && B > 0);
    const char* axes[3] = {"cuts_x", "cuts_y", "cuts_z"};
    for (int a = 0; a < 3; ++a) {
      const hsize_t planes = B ? balances[0].cuts[a].size() : 0;
      std::vector<double> all(B * planes);
      for (hsize_t b = 0; b < B; ++b)
        for (hsize_t c = 0; c < planes && c < balances[b].cuts[a].size(); ++c)
          all[b * planes + c] = balances[b].cuts[a][c];
      write_whole(bal.get(), axes[a], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {B, planes}, all.data(),
                  dxpl, me && B > 0);
    }
  }

  std::vector<TimingRecord> rows(timing.size());
  for (std::size_t i = 0; i < timing.size(); ++i) {
    std::memset(rows[i].section, 0, sizeof(rows[i].section));
    std::strncpy(rows[i].section, timing[i].section.c_str(), sizeof(rows[i].section) - 1);
    rows[i].min = timing[i].min;
    rows[i].avg = timing[i].avg;
    rows[i].max = timing[i].max;
    rows[i].percent = timing[i].percent;
  }
  Datatype t = timing_type();
  write_whole(g, "timing", t.get(), t.get(), {rows.size()}, rows.data(), dxpl, me && !rows.empty());
  run_.close(path_ + ": close run group");
  flush();
}

void H5mdWriter::flush() {
  h5::flush(file_.get(), comm_, path_ + ": flush");
}

void H5mdWriter::close() {
  guarded([&] {
    if (!file_) return;
    run_.reset();
    series_.clear();
    step_.reset();
    time_.reset();
    thermo_.reset();
    h5::close_file(file_, comm_, path_ + ": close");
    dxpl_.reset();
  });
}

H5mdWriter::~H5mdWriter() {
  // Every rank destroys its writer at the same point (an error was agreed, or the run ended),
  // so the closing below stays collective; what was complete is kept.
  if (file_) abandon();
}

template <class F>
void H5mdWriter::guarded(F&& body) {
  std::string error;
  bool agreed = false;
  try {
    body();
  } catch (const CollectiveError& e) {  // the same on every rank already
    error = e.what();
    agreed = true;
  } catch (const std::exception& e) {
    error = error_message(e);
  }
  if (!agreed) {
    try {
      h5::agree(comm_, std::move(error));  // one rank's own failure reaches all here
      return;
    } catch (const CollectiveError& e) {
      error = e.what();
    }
  }
  abandon();
  throw CollectiveError(with_space_note(error, path_));
}

void H5mdWriter::abandon() noexcept {
  // The frames and thermo rows completed so far stay: a frame whose write failed is cut off.
  // Each call is agreed, so every rank goes through the same ones.
  try {
    if (file_ && step_) {
      h5::set_rows(step_.get(), static_cast<hsize_t>(frames_), comm_, path_);
      h5::set_rows(time_.get(), static_cast<hsize_t>(frames_), comm_, path_);
      for (Series& s : series_)
        h5::set_rows(s.value.get(), static_cast<hsize_t>(frames_), comm_, path_);
    }
    if (file_ && thermo_)
      h5::set_rows(thermo_.get(), static_cast<hsize_t>(thermo_rows_), comm_, path_);
  } catch (const std::exception&) {  // (agreed) the close below still goes ahead
  }
  run_.reset();
  series_.clear();
  step_.reset();
  time_.reset();
  thermo_.reset();
  // A temporary file (a checkpoint being written) is emptied first: its close needs room for
  // the metadata, and the file goes anyway.
  if (temporary_ && rank_ == 0 && file_) ::truncate(path_.c_str(), 0);
  try {
    h5::close_file(file_, comm_, path_ + ": close");
  } catch (const std::exception&) {  // agreed; a failed close marks the library damaged
  }
  dxpl_.reset();
}

}  // namespace scanmd::io
