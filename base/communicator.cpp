// The communication layer (see communicator.hpp).
#include "base/communicator.hpp"

#include <limits>
#include <string_view>

namespace scanmd {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, len));
}

// ---- MpiRuntime --------------------------------------------------------------------------------

MpiRuntime::MpiRuntime(int& argc, char**& argv) {
  MPI_Init(&argc, &argv);
}

MpiRuntime::~MpiRuntime() {
  MPI_Finalize();
}

int MpiRuntime::world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

std::string MpiRuntime::library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string_view v(text, static_cast<std::size_t>(len));
  return std::string(v.substr(0, v.find_first_of("\r\n")));
}

void MpiRuntime::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
}

// ---- Communicator ------------------------------------------------------------------------------

namespace {

void wide_sum_op(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const Wide*>(in);
  auto* b = static_cast<Wide*>(inout);
  // Modulo 2^128 (the census's sums of squared ids may wrap; signed overflow would be UB).
  for (int i = 0; i < *len; ++i)
    b[i] = static_cast<Wide>(static_cast<unsigned __int128>(b[i]) +
                             static_cast<unsigned __int128>(a[i]));
}

template <class T>
T reduce(MPI_Comm comm, T local, MPI_Datatype type, MPI_Op op) {
  T out{};
  check_mpi(MPI_Allreduce(&local, &out, 1, type, op, comm), "MPI_Allreduce");
  return out;
}

int to_int(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error(std::string(what) + ": " + std::to_string(n) +
                            " items are more than one MPI message can hold (2^31 - 1)");
  return static_cast<int>(n);
}

// A committed contiguous datatype of `bytes` bytes, freed on scope exit.
class ItemType {
 public:
  explicit ItemType(std::size_t bytes) {
    check_mpi(MPI_Type_contiguous(to_int(bytes, "item size"), MPI_BYTE, &type_),
              "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~ItemType() { MPI_Type_free(&type_); }
  ItemType(const ItemType&) = delete;
  ItemType& operator=(const ItemType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// Displacements of counts laid end to end (an exclusive scan), checked to fit MPI's int.
std::vector<int> displacements(const std::vector<int>& counts, std::size_t& total) {
  std::vector<int> displs(counts.size());
  total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = to_int(total, "message offset");
    total += static_cast<std::size_t>(counts[r]);
  }
  return displs;
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

double Communicator::max(double v) const {
  return reduce(comm_, v, MPI_DOUBLE, MPI_MAX);
}
double Communicator::min(double v) const {
  return reduce(comm_, v, MPI_DOUBLE, MPI_MIN);
}
double Communicator::sum(double v) const {
  return reduce(comm_, v, MPI_DOUBLE, MPI_SUM);
}
long long Communicator::sum(long long v) const {
  return reduce(comm_, v, MPI_LONG_LONG, MPI_SUM);
}
void Communicator::sum(std::span<long long> values) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                          MPI_LONG_LONG, MPI_SUM, comm_),
            "MPI_Allreduce(long long)");
}
long long Communicator::max(long long v) const {
  return reduce(comm_, v, MPI_LONG_LONG, MPI_MAX);
}
long long Communicator::min(long long v) const {
  return reduce(comm_, v, MPI_LONG_LONG, MPI_MIN);
}
bool Communicator::any(bool v) const {
  return reduce<int>(comm_, v ? 1 : 0, MPI_INT, MPI_LOR) != 0;
}

int Communicator::first_rank_where(bool local) const {
  return reduce<int>(comm_, local ? rank_ : size_, MPI_INT, MPI_MIN);
}

Communicator::Vote Communicator::vote(bool failed, bool flag, bool stop) const {
  // MIN of (first failing rank, 0 where the flag is set else 1, 0 where stop is set else 1):
  // one reduction of three ints.
  int local[3] = {failed ? rank_ : size_, flag ? 0 : 1, stop ? 0 : 1};
  int out[3] = {size_, 1, 1};
  check_mpi(MPI_Allreduce(local, out, 3, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  return {out[0], out[1] == 0, out[2] == 0};
}

void Communicator::barrier() const {
  check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
}

std::string Communicator::broadcast(std::string value, int root) const {
  unsigned long long len = value.size();
  broadcast_bytes(&len, sizeof len, root);
  value.resize(static_cast<std::size_t>(len));
  if (len > 0) broadcast_bytes(value.data(), value.size(), root);
  return value;
}

void Communicator::broadcast_bytes(void* data, std::size_t bytes, int root) const {
  check_mpi(MPI_Bcast(data, to_int(bytes, "MPI_Bcast"), MPI_BYTE, root, comm_), "MPI_Bcast");
}

void Communicator::all_gather_bytes(const void* local, void* out, std::size_t item_bytes) const {
  const ItemType type(item_bytes);
  check_mpi(MPI_Allgather(local, 1, type.get(), out, 1, type.get(), comm_), "MPI_Allgather");
}

void Communicator::gatherv_erased(const void* local, std::size_t n, std::size_t item_bytes,
                                  int root, AllocFn alloc, void* ctx) const {
  const ItemType type(item_bytes);
  const int mine = to_int(n, "MPI_Gatherv");
  std::vector<int> counts(static_cast<std::size_t>(size_));
  check_mpi(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm_), "MPI_Gather");
  std::size_t total = 0;
  std::vector<int> displs;
  void* out = nullptr;
  if (rank_ == root) {
    displs = displacements(counts, total);
    out = alloc(ctx, total);
  }
  check_mpi(MPI_Gatherv(local, mine, type.get(), out, counts.data(), displs.data(), type.get(),
                        root, comm_),
            "MPI_Gatherv");
}

void Communicator::check_per_rank(std::size_t n) const {
  if (n != static_cast<std::size_t>(size_))
    throw std::invalid_argument("all_to_all: " + std::to_string(n) + " items for " +
                                std::to_string(size_) + " ranks");
}

void Communicator::all_to_all_bytes(const void* send, void* recv, std::size_t item_bytes) const {
  const ItemType type(item_bytes);
  check_mpi(MPI_Alltoall(send, 1, type.get(), recv, 1, type.get(), comm_), "MPI_Alltoall");
}

void Communicator::all_to_allv_erased(const void* send, std::span<const std::size_t> offsets,
                                      std::size_t item_bytes, AllocFn alloc, void* ctx) const {
  if (offsets.size() != static_cast<std::size_t>(size_) + 1)
    throw std::invalid_argument("all_to_allv: offsets need one entry per rank and one more");
  const ItemType type(item_bytes);
  std::vector<int> send_counts(static_cast<std::size_t>(size_)),
      send_displs(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    send_counts[r] = to_int(offsets[r + 1] - offsets[r], "MPI_Alltoallv");
    send_displs[r] = to_int(offsets[r], "MPI_Alltoallv");
  }
  const std::vector<int> recv_counts = all_to_all<int>(send_counts);
  std::size_t total = 0;
  const std::vector<int> recv_displs = displacements(recv_counts, total);
  void* out = alloc(ctx, total);
  check_mpi(MPI_Alltoallv(send, send_counts.data(), send_displs.data(), type.get(), out,
                          recv_counts.data(), recv_displs.data(), type.get(), comm_),
            "MPI_Alltoallv");
}

void Communicator::exchange(std::span<const MessagePart> sends, std::span<const MessagePart> recvs,
                            const std::byte* send, std::byte* recv, std::size_t item_bytes,
                            int tag) const {
  std::vector<MPI_Request> requests;
  requests.reserve(sends.size() + recvs.size());
  for (const MessagePart& p : recvs) {
    requests.emplace_back();
    check_mpi(MPI_Irecv(recv + p.offset * item_bytes, to_int(p.count * item_bytes, "MPI_Irecv"),
                        MPI_BYTE, p.rank, tag, comm_, &requests.back()),
              "MPI_Irecv");
  }
  for (const MessagePart& p : sends) {
    requests.emplace_back();
    check_mpi(MPI_Isend(send + p.offset * item_bytes, to_int(p.count * item_bytes, "MPI_Isend"),
                        MPI_BYTE, p.rank, tag, comm_, &requests.back()),
              "MPI_Isend");
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
}

int Communicator::node_local_rank() const {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

int Communicator::node_size() const {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int size = 1;
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return size;
}

}  // namespace scanmd
