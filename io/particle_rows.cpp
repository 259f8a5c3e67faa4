// Row blocks and the all-to-all redistribution of particle rows (see particle_rows.hpp).
#include "io/particle_rows.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/counting_sort.hpp"

namespace scanmd::io {

namespace {

void check_mpi_call(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, len));
}

// MPI datatype of one ParticleRow (contiguous bytes), freed on scope exit.
class RowType {
 public:
  RowType() {
    check_mpi_call(MPI_Type_contiguous(sizeof(ParticleRow), MPI_BYTE, &type_),
                   "MPI_Type_contiguous");
    MPI_Type_commit(&type_);
  }
  ~RowType() { MPI_Type_free(&type_); }
  RowType(const RowType&) = delete;
  RowType& operator=(const RowType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace

RowBlock row_block(std::int64_t n, int rank, int ranks) {
  return {n * rank / ranks, n * (rank + 1) / ranks};
}

std::vector<ParticleRow> redistribute(MPI_Comm comm, std::span<const ParticleRow> rows,
                                      std::span<const std::uint32_t> dest) {
  int P = 1;
  MPI_Comm_size(comm, &P);
  if (dest.size() != rows.size()) throw std::invalid_argument("redistribute: dest size");

  // Count → scan → scatter: rows grouped by destination, stable.
  kernels::Workspace ws;
  std::vector<std::uint32_t> offsets(static_cast<std::size_t>(P) + 1), perm(rows.size());
  kernels::counting_sort(ws, dest, static_cast<std::uint32_t>(P), offsets, perm);
  std::vector<ParticleRow> send(rows.size());
  for (std::size_t k = 0; k < perm.size(); ++k) send[k] = rows[perm[k]];

  std::vector<int> send_counts(P), send_displs(P), recv_counts(P), recv_displs(P);
  for (int r = 0; r < P; ++r) {
    send_counts[r] = static_cast<int>(offsets[r + 1] - offsets[r]);
    send_displs[r] = static_cast<int>(offsets[r]);
  }
  check_mpi_call(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm),
                 "MPI_Alltoall(row counts)");
  long long total = 0;
  for (int r = 0; r < P; ++r) {
    recv_displs[r] = static_cast<int>(total);
    total += recv_counts[r];
  }
  std::vector<ParticleRow> recv(static_cast<std::size_t>(total));
  RowType type;
  check_mpi_call(
      MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), type.get(), recv.data(),
                    recv_counts.data(), recv_displs.data(), type.get(), comm),
      "MPI_Alltoallv(rows)");
  return recv;
}

std::vector<ParticleRow> order_by_id(MPI_Comm comm, std::span<const ParticleRow> rows,
                                     std::int64_t n) {
  int P = 1, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  // Block starts of every rank: the destination of row i is the last block starting <= i.
  std::vector<std::int64_t> starts(P);
  for (int r = 0; r < P; ++r) starts[r] = row_block(n, r, P).lo;
  std::vector<std::uint32_t> dest(rows.size());
  bool bad_id = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::int64_t row = static_cast<std::int64_t>(rows[i].id) - 1;
    if (rows[i].id == 0 || row >= n) {
      bad_id = true;
      dest[i] = 0;
      continue;
    }
    dest[i] = static_cast<std::uint32_t>(std::upper_bound(starts.begin(), starts.end(), row) -
                                         starts.begin() - 1);
  }
  std::vector<ParticleRow> got = redistribute(comm, rows, dest);

  const RowBlock block = row_block(n, rank, P);
  std::vector<ParticleRow> out(static_cast<std::size_t>(block.size()));
  std::vector<char> seen(out.size(), 0);
  for (const ParticleRow& p : got) {
    const std::int64_t k = static_cast<std::int64_t>(p.id) - 1 - block.lo;
    if (k < 0 || k >= block.size() || seen[k]) {
      bad_id = true;
      continue;
    }
    seen[k] = 1;
    out[k] = p;
  }
  if (std::find(seen.begin(), seen.end(), 0) != seen.end()) bad_id = true;
  int any_bad = bad_id ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  if (any_bad)
    throw std::runtime_error("particle ids are not exactly 1.." + std::to_string(n) +
                             " (each once): cannot write rows ordered by id");
  return out;
}

}  // namespace scanmd::io
