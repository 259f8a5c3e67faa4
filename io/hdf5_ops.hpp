// Typed helpers on top of the HDF5 handles: parallel (MPI-IO) files, groups, attributes,
// extendible datasets and block reads/writes.
//
// Parallel HDF5 rules this file encodes: creating, extending and linking objects and writing
// attributes are collective (every rank calls with the same arguments); raw data goes through
// a collective transfer list in which a rank that has nothing to write selects nothing
// (write_block with a zero count) instead of skipping the call. Shapes are row-major with the
// frame (time) axis first; extendible datasets grow along axis 0 only.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/hdf5_handle.hpp"

namespace scanmd::io::h5 {

// H5Fcreate (truncating) / H5Fopen with the MPI-IO driver and collective metadata.
File create_parallel(MPI_Comm comm, const std::string& path);
File open_parallel(MPI_Comm comm, const std::string& path, bool writable);
// Collective transfer property list for H5Dread / H5Dwrite.
PropertyList collective_transfer();

bool exists(hid_t loc, const std::string& path);  // every component of a/b/c must exist
Group create_group(hid_t loc, const std::string& name);
Group open_group(hid_t loc, const std::string& name);
Dataset open_dataset(hid_t loc, const std::string& name);
void hard_link(hid_t target_loc, const std::string& target, hid_t link_loc,
               const std::string& link_name);

// Fixed-length string type of `size` bytes (at least 1), NUL-padded.
Datatype string_type(std::size_t size);

void write_attribute(hid_t obj, const std::string& name, std::int64_t value);
void write_attribute(hid_t obj, const std::string& name, std::span<const int> values);
void write_attribute(hid_t obj, const std::string& name, const std::string& value);
void write_attribute(hid_t obj, const std::string& name, std::span<const std::string> values);

// Chunked dataset of shape (0, rest...) extendible along axis 0.
Dataset create_series(hid_t loc, const std::string& name, hid_t type, std::span<const hsize_t> rest,
                      std::span<const hsize_t> chunk);
// Contiguous dataset of a fixed shape.
Dataset create_fixed(hid_t loc, const std::string& name, hid_t type, std::span<const hsize_t> dims);
// Scalar dataset holding `text` as one fixed-length string.
void write_text(hid_t loc, const std::string& name, const std::string& text, hid_t dxpl,
                bool participate);
std::string read_text(hid_t loc, const std::string& name, hid_t dxpl);

std::vector<hsize_t> dims(hid_t dset);
void set_rows(hid_t dset, hsize_t rows);  // new extent along axis 0 (collective)

// Writes / reads the block [start, start + count) of `dset` from / into `buf` (memory laid out
// as the block, row-major). A count with a zero entry selects nothing on this rank.
void write_block(hid_t dset, hid_t memtype, std::span<const hsize_t> start,
                 std::span<const hsize_t> count, const void* buf, hid_t dxpl,
                 const std::string& what);
void read_block(hid_t dset, hid_t memtype, std::span<const hsize_t> start,
                std::span<const hsize_t> count, void* buf, hid_t dxpl, const std::string& what);

}  // namespace scanmd::io::h5
