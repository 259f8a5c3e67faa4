// The communication layer: an RAII MPI communicator with every collective scanmd needs, and the
// process-wide MPI runtime. Outside this file pair only the MPI-IO writers (io/h5md_writer,
// io/checkpoint: parallel HDF5 takes the raw MPI_Comm) call MPI; tests/layers checks that.
//
// Errors: MPI error codes become std::runtime_error naming the call (MPI_ERRORS_RETURN is set on
// the duplicated communicator). Reproducibility: 128-bit integer sums — the global fixed-point
// reductions of DESIGN.md §5 — use a committed 16-byte datatype and a user operation; integer
// addition is associative, so every reduction tree gives the same bits.
//
// Vectors of any trivially copyable T travel as contiguous datatypes of sizeof(T) bytes (counts
// are in elements, so a message may hold up to 2^31 − 1 of them).
//
// Errors on every rank's behalf: `all_or_none` runs a step on every rank and, if it threw on any,
// throws the message of the lowest failing rank on all of them; `on_root` runs a step on rank 0
// only and throws its error everywhere — so the collective calls after them are made by all
// ranks or by none. What they throw is a CollectiveError: every rank holds the same message at
// the same point of the program, so the caller reports it once (from rank 0) and every rank
// stops normally; any other exception may have hit one rank only (MPI_Abort stops the rest).
// raise_first_error and sum_or_raise do the same for errors found inside the time step.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace scanmd {

using Wide = __int128;

// An error every rank throws at the same point with the same message (see above).
class CollectiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// MPI_Init / MPI_Finalize for the lifetime of the process (one instance, in main).
class MpiRuntime {
 public:
  MpiRuntime(int& argc, char**& argv);
  ~MpiRuntime();
  MpiRuntime(const MpiRuntime&) = delete;
  MpiRuntime& operator=(const MpiRuntime&) = delete;
  static int world_rank();
  static std::string library_version();  // MPI_Get_library_version, first line
  static void abort(int code);           // MPI_Abort on MPI_COMM_WORLD
};

// A run of items to or from one rank: [offset, offset + count) of a send or receive buffer.
struct MessagePart {
  int rank;
  std::size_t offset;
  std::size_t count;
};

class Communicator {
 public:
  explicit Communicator(MPI_Comm parent = MPI_COMM_WORLD);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  MPI_Comm get() const { return comm_; }  // for the MPI-IO writers only
  int rank() const { return rank_; }
  int size() const { return size_; }

  // ---- reductions (every rank gets the result)
  Wide sum(Wide local) const;
  void sum(std::span<Wide> values) const;  // element-wise, in place
  double max(double local) const;
  double min(double local) const;
  double sum(double local) const;
  long long sum(long long local) const;
  void sum(std::span<long long> values) const;  // element-wise, in place
  long long max(long long local) const;
  long long min(long long local) const;
  bool any(bool local) const;
  // The lowest rank where `local` is true, or size() when it is true nowhere.
  int first_rank_where(bool local) const;
  // All in one reduction: the lowest rank where `failed` is true (size() when nowhere), whether
  // `flag` is true anywhere, and whether `stop` is true anywhere.
  struct Vote {
    int first_failed;
    bool any_flag;
    bool any_stop;
  };
  Vote vote(bool failed, bool flag, bool stop = false) const;
  void barrier() const;

  // ---- broadcasts from `root`
  std::string broadcast(std::string value, int root) const;
  template <class T>
  T broadcast(T value, int root) const {
    static_assert(std::is_trivially_copyable_v<T>);
    broadcast_bytes(&value, sizeof(T), root);
    return value;
  }

  // ---- gathers
  // Every rank's `local`, in rank order, on every rank.
  template <class T>
  std::vector<T> all_gather(const T& local) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out(static_cast<std::size_t>(size_));
    all_gather_bytes(&local, out.data(), sizeof(T));
    return out;
  }
  // Every rank's items concatenated in rank order, on `root` (empty elsewhere).
  template <class T>
  std::vector<T> gatherv(std::span<const T> local, int root) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out;
    gatherv_erased(local.data(), local.size(), sizeof(T), root, &resize_vector<T>, &out);
    return out;
  }
  // Item r of `per_rank` goes to rank r; returns what every rank sent this one, in rank order.
  template <class T>
  std::vector<T> all_to_all(std::span<const T> per_rank) const {
    static_assert(std::is_trivially_copyable_v<T>);
    check_per_rank(per_rank.size());
    std::vector<T> out(static_cast<std::size_t>(size_));
    all_to_all_bytes(per_rank.data(), out.data(), sizeof(T));
    return out;
  }
  // items[offsets[r], offsets[r+1]) go to rank r (offsets: size() + 1 entries, as a counting
  // sort by destination gives them); returns what this rank received, grouped by source rank,
  // each group in the sender's order.
  template <class T>
  std::vector<T> all_to_allv(std::span<const T> items, std::span<const std::size_t> offsets) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out;
    all_to_allv_erased(items.data(), offsets, sizeof(T), &resize_vector<T>, &out);
    return out;
  }

  // ---- point to point
  // Nonblocking sends of send[part] to each part's rank and receives into recv[part] from each
  // part's rank (items of item_bytes bytes), then waits for all. The buffers may be device
  // memory when the MPI library is CUDA-aware.
  void exchange(std::span<const MessagePart> sends, std::span<const MessagePart> recvs,
                const std::byte* send, std::byte* recv, std::size_t item_bytes, int tag) const;

  // This rank's rank among the ranks of its node (MPI_COMM_TYPE_SHARED); collective.
  int node_local_rank() const;
  // How many ranks share this rank's node (MPI_COMM_TYPE_SHARED); collective.
  int node_size() const;

 private:
  void broadcast_bytes(void* data, std::size_t bytes, int root) const;
  void all_gather_bytes(const void* local, void* out, std::size_t item_bytes) const;
  void all_to_all_bytes(const void* send, void* recv, std::size_t item_bytes) const;
  // Type-erased cores of gatherv and all_to_allv: alloc(ctx, n) returns storage for n items.
  using AllocFn = void* (*)(void* ctx, std::size_t n);
  template <class T>
  static void* resize_vector(void* ctx, std::size_t n) {
    auto& v = *static_cast<std::vector<T>*>(ctx);
    v.resize(n);
    return v.data();
  }
  void gatherv_erased(const void* local, std::size_t n, std::size_t item_bytes, int root,
                      AllocFn alloc, void* ctx) const;
  void all_to_allv_erased(const void* send, std::span<const std::size_t> offsets,
                          std::size_t item_bytes, AllocFn alloc, void* ctx) const;
  void check_per_rank(std::size_t n) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Datatype wide_type_ = MPI_DATATYPE_NULL;
  MPI_Op wide_sum_ = MPI_OP_NULL;
  int rank_ = 0;
  int size_ = 1;
};

// Throws std::runtime_error("<what>: <MPI error string>") when rc is not MPI_SUCCESS.
void check_mpi(int rc, const char* what);

// The message of an exception, never empty; an allocation failure says what it is.
inline std::string error_message(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr)
    return "out of memory (std::bad_alloc): the run needs more memory than this machine gives "
           "it";
  std::string m = e.what();
  return m.empty() ? std::string("unknown error") : m;
}

// After a vote found `first` the lowest failing rank (size(): none), throws CollectiveError with
// that rank's `message` on every rank; returns when none failed. Collective when one did.
inline void raise_error_of(const Communicator& comm, int first, std::string message) {
  if (first >= comm.size()) return;
  throw CollectiveError(comm.broadcast(std::move(message), first));
}

// Throws CollectiveError on every rank with the message of the lowest rank whose `message` is not
// empty; returns when every rank's is empty. Collective.
inline void raise_first_error(const Communicator& comm, std::string message) {
  const int first = comm.first_rank_where(!message.empty());  // before the move below
  raise_error_of(comm, first, std::move(message));
}

// Runs f() on every rank; if it threw on any rank, throws (on every rank) a CollectiveError
// with the message of the lowest failing rank. Collective.
template <class F>
void all_or_none(const Communicator& comm, F&& f) {
  std::string message;
  try {
    f();
  } catch (const std::exception& e) {
    message = error_message(e);
  }
  raise_first_error(comm, std::move(message));
}

// The sum over ranks of the Wide value f() returns on each; if f() threw on any rank, a
// CollectiveError with the lowest failing rank's message on every rank instead. One reduction
// when nothing failed (the failure count travels with the sum). Collective.
template <class F>
Wide sum_or_raise(const Communicator& comm, F&& f) {
  std::string message;
  Wide sums[2] = {0, 0};
  try {
    sums[0] = f();
  } catch (const std::exception& e) {
    message = error_message(e);
    sums[1] = 1;
  }
  comm.sum(std::span<Wide>(sums, 2));
  if (sums[1] != 0) raise_first_error(comm, std::move(message));
  return sums[0];
}

// Runs f() on rank 0 only and throws its error, if any, on every rank. Collective.
template <class F>
void on_root(const Communicator& comm, F&& f) {
  std::string message;
  if (comm.rank() == 0) {
    try {
      f();
    } catch (const std::exception& e) {
      message = error_message(e);
    }
  }
  message = comm.broadcast(std::move(message), 0);
  if (!message.empty()) throw CollectiveError(message);
}

}  // namespace scanmd
