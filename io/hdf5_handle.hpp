// RAII ownership of HDF5 identifiers, and HDF5 failures turned into exceptions with context.
//
// Every hid_t scanmd opens lives in a Handle whose destructor closes it with the function of
// its kind (H5Fclose for files, H5Dclose for datasets, ...), so an exception thrown half-way
// through writing a frame closes everything it opened. HDF5's own error printing is switched
// off (quiet()); when a call fails, check() throws an Hdf5Error whose message is
// "<what>: <innermost HDF5 error description>" (e.g. "open x.h5: truncated file: eof = ...").
#pragma once

#include <hdf5.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace scanmd::io {

class Hdf5Error : public std::runtime_error {
 public:
  using runtime_error::runtime_error;
};

// Turns off HDF5's automatic error stack printing for this process (idempotent).
void hdf5_quiet();

// The most specific message on HDF5's current error stack ("" when empty).
std::string hdf5_error_detail();

// Records that an H5Fclose failed (see h5::library_damaged in hdf5_ops.hpp).
void mark_hdf5_damaged();

// Throws Hdf5Error("<what>: <detail>") when a call returned a negative herr_t / hid_t.
inline void check(herr_t rc, const std::string& what) {
  if (rc < 0) {
    const std::string detail = hdf5_error_detail();
    throw Hdf5Error(detail.empty() ? what : what + ": " + detail);
  }
}

// Owns one hid_t; Close is the H5?close function of its kind.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  // Takes ownership of `id`; throws (with `what` as context) when it is invalid.
  Handle(hid_t id, const std::string& what) : id_(id) {
    if (id_ < 0) {
      id_ = H5I_INVALID_HID;
      check(-1, what);
    }
  }
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }

  // Closes now; unlike the destructor it reports a failure (a file's last flush can fail).
  void close(const std::string& what) {
    if (id_ < 0) return;
    const herr_t rc = Close(std::exchange(id_, H5I_INVALID_HID));
    check(rc, what);
  }
  void reset() {
    if (id_ < 0) return;
    if (Close(std::exchange(id_, H5I_INVALID_HID)) < 0) {
      H5Eclear2(H5E_DEFAULT);
      // (a run-time comparison: with sanitizers GCC does not take the addresses of two library
      // functions as constants)
      if (Close == &H5Fclose) mark_hdf5_damaged();  // a file HDF5 cannot let go of
    }
  }
  // Gives up ownership: the caller closes the identifier.
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;
using PropertyList = Handle<H5Pclose>;

}  // namespace scanmd::io
