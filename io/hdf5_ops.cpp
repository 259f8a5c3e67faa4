// Typed HDF5 helpers (see hdf5_ops.hpp) and the error-stack reading of hdf5_handle.hpp.
#include "io/hdf5_ops.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/communicator.hpp"

namespace scanmd::io {

void hdf5_quiet() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

namespace {
std::atomic<bool> g_damaged{false};
}  // namespace

void mark_hdf5_damaged() {
  g_damaged = true;
}

std::string hdf5_error_detail() {
  std::string innermost;
  auto visit = [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
    if (e->desc && *e->desc) *static_cast<std::string*>(data) = e->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, visit, &innermost);
  H5Eclear2(H5E_DEFAULT);
  return innermost;
}

namespace h5 {

namespace {

// SCANMD_TEST_FAIL_WRITE=<text>[@<rank>][#<n>] (see hdf5_ops.hpp): the message of the injected
// failure when this call is the one, else "".
std::string injected_failure(const std::string& what) {
  struct Hook {
    std::string text;
    int rank = -1;  // -1: every rank
    long n = 1;
    long seen = 0;
    bool on = false;
  };
  static Hook hook = [] {
    Hook h;
    const char* spec = std::getenv("SCANMD_TEST_FAIL_WRITE");
    if (!spec || !*spec) return h;
    std::string s(spec);
    if (const auto hash = s.rfind('#'); hash != std::string::npos) {
      h.n = std::strtol(s.c_str() + hash + 1, nullptr, 10);
      s.resize(hash);
    }
    if (const auto at = s.rfind('@'); at != std::string::npos) {
      h.rank = static_cast<int>(std::strtol(s.c_str() + at + 1, nullptr, 10));
      s.resize(at);
    }
    h.text = s;
    h.on = true;
    return h;
  }();
  if (!hook.on || what.find(hook.text) == std::string::npos) return {};
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (hook.rank >= 0 && rank != hook.rank) return {};
  if (++hook.seen != hook.n) return {};
  return what + ": file write failed: " + std::strerror(ENOSPC) +
         " (injected by SCANMD_TEST_FAIL_WRITE)";
}

// This rank's error of a call that returned `rc` ("" when it went well): HDF5's innermost
// description, and the system's reason when errno holds one an output can meet.
std::string call_error(herr_t rc, int err, const std::string& what) {
  if (std::string injected = injected_failure(what); !injected.empty()) return injected;
  if (rc >= 0) return {};
  const std::string detail = hdf5_error_detail();
  std::string message = detail.empty() ? what : what + ": " + detail;
  if (err == ENOSPC || err == EDQUOT || err == EIO || err == EFBIG || err == EROFS)
    message += std::string(": ") + std::strerror(err);
  return message;
}

PropertyList mpio_access(MPI_Comm comm) {
  hdf5_quiet();
  PropertyList fapl(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate(file access)");
  check(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
  check(H5Pset_all_coll_metadata_ops(fapl.get(), true), "H5Pset_all_coll_metadata_ops");
  check(H5Pset_coll_metadata_write(fapl.get(), true), "H5Pset_coll_metadata_write");
  return fapl;
}

Dataspace block_space(hid_t dset, std::span<const hsize_t> start, std::span<const hsize_t> count,
                      bool none, const std::string& what) {
  Dataspace file(H5Dget_space(dset), what + ": H5Dget_space");
  if (none)
    check(H5Sselect_none(file.get()), what + ": H5Sselect_none");
  else
    check(H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                              nullptr),
          what + ": H5Sselect_hyperslab");
  return file;
}

Dataspace memory_space(std::span<const hsize_t> count, bool none, const std::string& what) {
  if (!none)
    return Dataspace(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                     what + ": H5Screate_simple");
  const hsize_t one = 1;
  Dataspace mem(H5Screate_simple(1, &one, nullptr), what + ": H5Screate_simple");
  check(H5Sselect_none(mem.get()), what + ": H5Sselect_none");
  return mem;
}

bool selects_nothing(std::span<const hsize_t> count) {
  return std::any_of(count.begin(), count.end(), [](hsize_t c) { return c == 0; });
}

}  // namespace

File create_parallel(MPI_Comm comm, const std::string& path) {
  PropertyList fapl = mpio_access(comm);
  return File(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()),
              path + ": cannot create HDF5 file");
}

File open_parallel(MPI_Comm comm, const std::string& path, bool writable) {
  PropertyList fapl = mpio_access(comm);
  return File(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl.get()),
              path + ": cannot open as HDF5");
}

void agree(MPI_Comm comm, std::string error) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int mine = error.empty() ? size : rank;
  int first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first >= size) return;
  unsigned long long length = error.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, first, comm);
  error.resize(static_cast<std::size_t>(length));
  if (length > 0) MPI_Bcast(error.data(), static_cast<int>(length), MPI_CHAR, first, comm);
  throw CollectiveError(error);
}

bool library_damaged() {
  return g_damaged.load();
}

PropertyList collective_transfer() {
  PropertyList dxpl(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate(transfer)");
  check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  return dxpl;
}

bool exists(hid_t loc, const std::string& path) {
  std::size_t pos = 0;
  while (true) {
    const std::size_t slash = path.find('/', pos);
    const std::string prefix = path.substr(0, slash);
    if (H5Lexists(loc, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    if (slash == std::string::npos) return true;
    pos = slash + 1;
  }
}

Group create_group(hid_t loc, const std::string& name) {
  return Group(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
               "create group " + name);
}

Group open_group(hid_t loc, const std::string& name) {
  return Group(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), "open group " + name);
}

Dataset open_dataset(hid_t loc, const std::string& name) {
  return Dataset(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "open dataset " + name);
}

void hard_link(hid_t target_loc, const std::string& target, hid_t link_loc,
               const std::string& link_name) {
  check(H5Lcreate_hard(target_loc, target.c_str(), link_loc, link_name.c_str(), H5P_DEFAULT,
                       H5P_DEFAULT),
        "hard link " + link_name + " -> " + target);
}

Datatype string_type(std::size_t size) {
  Datatype t(H5Tcopy(H5T_C_S1), "H5Tcopy(string)");
  check(H5Tset_size(t.get(), std::max<std::size_t>(size, 1)), "H5Tset_size");
  check(H5Tset_strpad(t.get(), H5T_STR_NULLPAD), "H5Tset_strpad");
  return t;
}

namespace {
void write_attr(hid_t obj, const std::string& name, hid_t type, std::span<const hsize_t> shape,
                const void* data) {
  Dataspace space(shape.empty()
                      ? H5Screate(H5S_SCALAR)
                      : H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr),
                  "attribute " + name + ": dataspace");
  Attribute a(H5Acreate2(obj, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              "create attribute " + name);
  check(H5Awrite(a.get(), type, data), "write attribute " + name);
}
}  // namespace

void write_attribute(hid_t obj, const std::string& name, std::int64_t value) {
  write_attr(obj, name, H5T_NATIVE_INT64, {}, &value);
}

void write_attribute(hid_t obj, const std::string& name, std::span<const int> values) {
  const hsize_t n = values.size();
  write_attr(obj, name, H5T_NATIVE_INT, std::span<const hsize_t>(&n, 1), values.data());
}

void write_attribute(hid_t obj, const std::string& name, const std::string& value) {
  Datatype t = string_type(value.size());
  std::string padded = value;
  padded.resize(std::max<std::size_t>(value.size(), 1), '\0');
  write_attr(obj, name, t.get(), {}, padded.data());
}

void write_text_attribute(hid_t obj, const std::string& name, const std::string& value) {
  Datatype t(H5Tcopy(H5T_C_S1), "H5Tcopy(string)");
  check(H5Tset_size(t.get(), H5T_VARIABLE), "H5Tset_size(variable)");
  check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "H5Tset_cset(UTF-8)");
  const char* p = value.c_str();
  write_attr(obj, name, t.get(), {}, &p);
}

void write_attribute(hid_t obj, const std::string& name, std::span<const std::string> values) {
  std::size_t width = 1;
  for (const std::string& v : values) width = std::max(width, v.size());
  std::vector<char> buf(width * values.size(), '\0');
  for (std::size_t i = 0; i < values.size(); ++i)
    std::memcpy(buf.data() + i * width, values[i].data(), values[i].size());
  Datatype t = string_type(width);
  const hsize_t n = values.size();
  write_attr(obj, name, t.get(), std::span<const hsize_t>(&n, 1), buf.data());
}

Dataset create_series(hid_t loc, const std::string& name, hid_t type, std::span<const hsize_t> rest,
                      std::span<const hsize_t> chunk) {
  std::vector<hsize_t> now{0}, max{H5S_UNLIMITED};
  now.insert(now.end(), rest.begin(), rest.end());
  max.insert(max.end(), rest.begin(), rest.end());
  Dataspace space(H5Screate_simple(static_cast<int>(now.size()), now.data(), max.data()),
                  name + ": dataspace");
  PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE), name + ": H5Pcreate");
  check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()),
        name + ": H5Pset_chunk");
  check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), name + ": H5Pset_fill_time");
  return Dataset(
      H5Dcreate2(loc, name.c_str(), type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      "create dataset " + name);
}

Dataset create_fixed(hid_t loc, const std::string& name, hid_t type,
                     std::span<const hsize_t> dims) {
  Dataspace space(dims.empty()
                      ? H5Screate(H5S_SCALAR)
                      : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                  name + ": dataspace");
  return Dataset(
      H5Dcreate2(loc, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      "create dataset " + name);
}

void write_text(hid_t loc, const std::string& name, const std::string& text, const Transfer& t,
                bool participate) {
  Datatype type = string_type(text.size());
  Dataset d = create_fixed(loc, name, type.get(), {});
  std::string padded = text;
  padded.resize(std::max<std::size_t>(text.size(), 1), '\0');
  Dataspace file(H5Dget_space(d.get()), name + ": H5Dget_space");
  Dataspace mem(H5Screate(H5S_SCALAR), name + ": H5Screate");
  if (!participate) {
    check(H5Sselect_none(file.get()), name + ": H5Sselect_none");
    check(H5Sselect_none(mem.get()), name + ": H5Sselect_none");
  }
  errno = 0;
  const herr_t rc = H5Dwrite(d.get(), type.get(), mem.get(), file.get(), t.dxpl, padded.data());
  agree(t.comm, call_error(rc, errno, "write " + name));
}

std::string read_text(hid_t loc, const std::string& name, const Transfer& tr) {
  Dataset d = open_dataset(loc, name);
  Datatype t(H5Dget_type(d.get()), name + ": H5Dget_type");
  if (H5Tget_class(t.get()) != H5T_STRING || H5Tis_variable_str(t.get()) != 0)
    throw Hdf5Error(name + ": not a fixed-length string");
  const std::size_t size = H5Tget_size(t.get());
  std::string s(size, '\0');
  errno = 0;
  const herr_t rc = H5Dread(d.get(), t.get(), H5S_ALL, H5S_ALL, tr.dxpl, s.data());
  agree(tr.comm, call_error(rc, errno, "read " + name));
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::vector<hsize_t> dims(hid_t dset) {
  Dataspace space(H5Dget_space(dset), "H5Dget_space");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  check(rank, "H5Sget_simple_extent_ndims");
  std::vector<hsize_t> d(rank);
  check(H5Sget_simple_extent_dims(space.get(), d.data(), nullptr), "H5Sget_simple_extent_dims");
  return d;
}

void set_rows(hid_t dset, hsize_t rows, MPI_Comm comm, const std::string& what) {
  std::vector<hsize_t> d = dims(dset);
  d.at(0) = rows;
  errno = 0;
  const herr_t rc = H5Dset_extent(dset, d.data());
  agree(comm, call_error(rc, errno, what + ": H5Dset_extent"));
}

void flush(hid_t file, MPI_Comm comm, const std::string& what) {
  errno = 0;
  const herr_t rc = H5Fflush(file, H5F_SCOPE_LOCAL);
  agree(comm, call_error(rc, errno, what));
}

void close_file(File& file, MPI_Comm comm, const std::string& what) {
  if (!file) return;
  errno = 0;
  const herr_t rc = H5Fclose(file.release());
  std::string error = call_error(rc, errno, what);
  if (rc < 0) mark_hdf5_damaged();  // HDF5 holds a half-closed file now (library_damaged)
  agree(comm, std::move(error));
}

void write_block(hid_t dset, hid_t memtype, std::span<const hsize_t> start,
                 std::span<const hsize_t> count, const void* buf, const Transfer& t,
                 const std::string& what) {
  const bool none = selects_nothing(count);
  Dataspace file = block_space(dset, start, count, none, what);
  Dataspace mem = memory_space(count, none, what);
  errno = 0;
  const herr_t rc = H5Dwrite(dset, memtype, mem.get(), file.get(), t.dxpl, buf);
  agree(t.comm, call_error(rc, errno, what));
}

void read_block(hid_t dset, hid_t memtype, std::span<const hsize_t> start,
                std::span<const hsize_t> count, void* buf, const Transfer& t,
                const std::string& what) {
  const bool none = selects_nothing(count);
  Dataspace file = block_space(dset, start, count, none, what);
  Dataspace mem = memory_space(count, none, what);
  errno = 0;
  const herr_t rc = H5Dread(dset, memtype, mem.get(), file.get(), t.dxpl, buf);
  agree(t.comm, call_error(rc, errno, what));
}

}  // namespace h5

}  // namespace scanmd::io
