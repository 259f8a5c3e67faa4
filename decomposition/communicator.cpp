#include "decomposition/communicator.hpp"

#include <stdexcept>

namespace scanmd {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, len));
}

namespace {
void wide_sum_op(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const Wide*>(in);
  auto* b = static_cast<Wide*>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}
}  // namespace

Communicator::Communicator(MPI_Comm parent) {
  check_mpi(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  check_mpi(MPI_Type_contiguous(sizeof(Wide), MPI_BYTE, &wide_type_), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&wide_type_), "MPI_Type_commit");
  check_mpi(MPI_Op_create(&wide_sum_op, 1, &wide_sum_), "MPI_Op_create");
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (wide_sum_ != MPI_OP_NULL) MPI_Op_free(&wide_sum_);
  if (wide_type_ != MPI_DATATYPE_NULL) MPI_Type_free(&wide_type_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Wide Communicator::sum(Wide local) const {
  Wide out = 0;
  check_mpi(MPI_Allreduce(&local, &out, 1, wide_type_, wide_sum_, comm_), "MPI_Allreduce(int128)");
  return out;
}

void Communicator::sum(std::span<Wide> values) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), wide_type_,
                          wide_sum_, comm_),
            "MPI_Allreduce(int128[])");
}

namespace {
template <class T>
T reduce(MPI_Comm comm, T local, MPI_Datatype type, MPI_Op op) {
  T out{};
  check_mpi(MPI_Allreduce(&local, &out, 1, type, op, comm), "MPI_Allreduce");
  return out;
}
}  // namespace

double Communicator::max(double v) const { return reduce(comm_, v, MPI_DOUBLE, MPI_MAX); }
double Communicator::min(double v) const { return reduce(comm_, v, MPI_DOUBLE, MPI_MIN); }
double Communicator::sum(double v) const { return reduce(comm_, v, MPI_DOUBLE, MPI_SUM); }
long long Communicator::sum(long long v) const { return reduce(comm_, v, MPI_LONG_LONG, MPI_SUM); }
long long Communicator::max(long long v) const { return reduce(comm_, v, MPI_LONG_LONG, MPI_MAX); }
long long Communicator::min(long long v) const { return reduce(comm_, v, MPI_LONG_LONG, MPI_MIN); }
bool Communicator::any(bool v) const { return reduce<int>(comm_, v ? 1 : 0, MPI_INT, MPI_LOR) != 0; }

std::vector<long long> Communicator::all_gather(long long local) const {
  std::vector<long long> out(size_);
  check_mpi(MPI_Allgather(&local, 1, MPI_LONG_LONG, out.data(), 1, MPI_LONG_LONG, comm_),
            "MPI_Allgather");
  return out;
}

void Communicator::barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

}  // namespace scanmd
