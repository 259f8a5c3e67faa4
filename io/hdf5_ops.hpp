// Typed helpers on top of the HDF5 handles: parallel (MPI-IO) files, groups, attributes,
// extendible datasets and block reads/writes.
//
// Parallel HDF5 rules this file encodes: creating, extending and linking objects and writing
// attributes are collective (every rank calls with the same arguments); raw data goes through
// a collective transfer list in which a rank that has nothing to write selects nothing
// (write_block with a zero count) instead of skipping the call. Shapes are row-major with the
// frame (time) axis first; extendible datasets grow along axis 0 only.
//
// Errors are agreed (issue 15): a collective call that does I/O — H5Dwrite / H5Dread
// (write_block, read_block, write_text, read_text), H5Dset_extent (set_rows), H5Fflush (flush),
// H5Fclose (close_file) — can fail on some ranks only (the MPI-IO aggregator that met a full
// disk or EIO). Each is followed by one small reduction over the ranks of the file, and when it
// failed anywhere every rank throws the same CollectiveError (the lowest failing rank's
// message), so no rank goes on into the next collective call while another has left it — the
// hang of a write onto a full disk with several ranks.
//
// Test hook: SCANMD_TEST_FAIL_WRITE=<text>[@<rank>][#<n>] makes the n-th (default 1st) of these
// calls whose context contains <text> fail on world rank <rank> (default: every rank) as if
// the disk were full, after the call itself was made (collective calls stay matched).
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

// A collective transfer: the transfer property list and the ranks of the file.
struct Transfer {
  hid_t dxpl;
  MPI_Comm comm;
};

// This rank's outcome of a collective step (`error` empty: it went well) agreed by all ranks of
// `comm`: throws CollectiveError with the lowest failing rank's message on every rank when any
// failed. One MPI_Allreduce (and a broadcast of the message on failure).
void agree(MPI_Comm comm, std::string error);

// Whether an H5Fclose failed in this process: HDF5 then keeps a half-closed file that its own
// shutdown (at MPI_Finalize) cannot close, so the process must end without it (app/main.cpp).
bool library_damaged();

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
// A variable-length UTF-8 string (what h5py reads as str: H5MD `unit` attributes, which
// MDAnalysis compares with str keys).
void write_text_attribute(hid_t obj, const std::string& name, const std::string& value);

// Chunked dataset of shape (0, rest...) extendible along axis 0.
Dataset create_series(hid_t loc, const std::string& name, hid_t type, std::span<const hsize_t> rest,
                      std::span<const hsize_t> chunk);
// Contiguous dataset of a fixed shape.
Dataset create_fixed(hid_t loc, const std::string& name, hid_t type, std::span<const hsize_t> dims);
// Scalar dataset holding `text` as one fixed-length string (agreed).
void write_text(hid_t loc, const std::string& name, const std::string& text, const Transfer& t,
                bool participate);
std::string read_text(hid_t loc, const std::string& name, const Transfer& t);

std::vector<hsize_t> dims(hid_t dset);
// New extent along axis 0 (collective, agreed).
void set_rows(hid_t dset, hsize_t rows, MPI_Comm comm, const std::string& what);
// H5Fflush / H5Fclose, agreed. close_file marks the library damaged when the close failed.
void flush(hid_t file, MPI_Comm comm, const std::string& what);
void close_file(File& file, MPI_Comm comm, const std::string& what);

// Writes / reads the block [start, start + count) of `dset` from / into `buf` (memory laid out
// as the block, row-major). A count with a zero entry selects nothing on this rank. Agreed.
void write_block(hid_t dset, hid_t memtype, std::span<const hsize_t> start,
                 std::span<const hsize_t> count, const void* buf, const Transfer& t,
                 const std::string& what);
void read_block(hid_t dset, hid_t memtype, std::span<const hsize_t> start,
                std::span<const hsize_t> count, void* buf, const Transfer& t,
                const std::string& what);

}  // namespace scanmd::io::h5
