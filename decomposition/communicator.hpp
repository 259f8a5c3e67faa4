// RAII wrapper of an MPI communicator with the collectives scanmd needs.
//
// MPI error codes become exceptions with context (MPI_ERRORS_RETURN is set on the
// duplicated communicator). 128-bit integer sums — the global fixed-point reductions of
// DESIGN.md §5 — use a committed 16-byte datatype and a user operation; integer addition is
// associative, so every reduction tree gives the same bits.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace scanmd {

using Wide = __int128;

class Communicator {
 public:
  explicit Communicator(MPI_Comm parent = MPI_COMM_WORLD);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  Wide sum(Wide local) const;
  void sum(std::span<Wide> values) const;  // element-wise, in place
  double max(double local) const;
  double min(double local) const;
  double sum(double local) const;
  long long sum(long long local) const;
  long long max(long long local) const;
  long long min(long long local) const;
  bool any(bool local) const;
  std::vector<long long> all_gather(long long local) const;
  void barrier() const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Datatype wide_type_ = MPI_DATATYPE_NULL;
  MPI_Op wide_sum_ = MPI_OP_NULL;
  int rank_ = 0;
  int size_ = 1;
};

// Throws std::runtime_error("<what>: <MPI error string>") when rc is not MPI_SUCCESS.
void check_mpi(int rc, const char* what);

}  // namespace scanmd
