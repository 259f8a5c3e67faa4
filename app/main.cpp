// scanmd — command line: `scanmd run DECK [--set k=v]... [--backend B]`, `scanmd model`,
// `scanmd info`, `scanmd deck-reference`.
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/resource.h>
#include <CLI/CLI.hpp>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "app/build_info.hpp"
#include "app/gpu_info.hpp"
#include "app/model_command.hpp"
#include "app/run_command.hpp"
#include "base/communicator.hpp"
#include "engine/config.hpp"
#include "io/deck_reference.hpp"
#include "io/hdf5_ops.hpp"

namespace {

// A table's names separated by `sep`.
template <class E>
std::string names(std::span<const scanmd::NamedValue<E>> table, const char* sep) {
  std::string out;
  for (const auto& n : table) out += (out.empty() ? "" : sep) + std::string(n.name);
  return out;
}

// `--ranks` entries: whole numbers 1..kMaxModelRanks, each named in the message when it is not
// (CLI11's PositiveNumber printed a 309-digit range, and called "abc" out of range).
constexpr long long kMaxModelRanks = 100000000;
std::string check_rank_count(std::string& text) {
  const std::string shown = text.size() > 32 ? text.substr(0, 32) + "..." : text;
  long long v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::invalid_argument || ptr != end)
    return "'" + shown + "' is not a whole number of ranks";
  if (ec == std::errc::result_out_of_range || v > kMaxModelRanks)
    return "'" + shown + "' is more ranks than the model takes (at most " +
           std::to_string(kMaxModelRanks) + ")";
  if (v < 1) return "rank counts must be >= 1 (got " + shown + ")";
  return {};
}

int info_command() {
  if (scanmd::MpiRuntime::world_rank() != 0) return 0;
  const std::string mpi = scanmd::MpiRuntime::library_version();
  const scanmd::GpuInventory gpus = scanmd::query_gpus();
  std::printf("scanmd %s\n", SCANMD_VERSION);
  std::printf("build_type: %s\n", SCANMD_BUILD_TYPE);
  std::printf("compiler: %s\n", SCANMD_COMPILER);
  std::printf("cxx_flags: %s\n", SCANMD_CXX_FLAGS);
  std::printf("mpi: %s\n", mpi.c_str());
  std::printf("hdf5: %s\n", SCANMD_HDF5_VERSION);
  std::printf("fixed_point: 2^-40 (64-bit accumulators, 128-bit global sums)\n");
  std::printf("methods: %s\n", names<scanmd::Method>(scanmd::kMethodNames, " ").c_str());
  std::printf("cuda_compiled: %s\n", gpus.compiled ? "yes" : "no");
  std::printf("cuda_architectures: %s\n", SCANMD_CUDA_ARCHITECTURES);
  std::printf("gpu_devices: %zu\n", gpus.devices.size());
  for (std::size_t d = 0; d < gpus.devices.size(); ++d)
    std::printf("gpu_%zu: %s, %.1f GiB, sm_%d%d\n", d, gpus.devices[d].name.c_str(),
                gpus.devices[d].memory_gib, gpus.devices[d].major, gpus.devices[d].minor);
  if (gpus.devices.empty()) std::printf("gpu_note: %s\n", gpus.why_none.c_str());
  return 0;
}

// Before MPI starts (issue 31): limits too low for Open MPI's start-up make it abort inside
// MPI_Init with only its own messages (PMIX ERROR: OUT-OF-RESOURCE, orte_init failed). Said
// first, on rank 0 (or a process started without mpirun), naming the limit and the fix. The
// bounds are those Open MPI 4.1 was seen to need on one node (a singleton needs 32 files, 256
// KiB of stack, ~10 MB of file size), with room.
void warn_low_limits() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank && std::string_view(rank) != "0") return;
  struct Limit {
    int resource;
    const char* flag;
    const char* what;
    rlim_t least;
    rlim_t unit;  // of `ulimit <flag>`
  };
  const Limit limits[] = {{RLIMIT_NOFILE, "-n", "open files", 64, 1},
                          {RLIMIT_STACK, "-s", "stack size", 1 << 20, 1024},
                          {RLIMIT_FSIZE, "-f", "file size", rlim_t{64} << 20, 1024}};
  for (const Limit& l : limits) {
    struct rlimit now {};
    if (getrlimit(l.resource, &now) != 0 || now.rlim_cur == RLIM_INFINITY ||
        now.rlim_cur >= l.least)
      continue;
    std::fprintf(stderr,
                 "scanmd: warning: ulimit %s (%s) is %llu, below the %llu that MPI's start-up "
                 "and the output files want: if MPI_Init fails below (PMIX ERROR, orte_init "
                 "failed, OUT-OF-RESOURCE), raise it (ulimit %s %llu, or unlimited)\n",
                 l.flag, l.what, static_cast<unsigned long long>(now.rlim_cur / l.unit),
                 static_cast<unsigned long long>(l.least / l.unit), l.flag,
                 static_cast<unsigned long long>(l.least / l.unit));
  }
}

}  // namespace

int main(int argc, char** argv) {
  warn_low_limits();
#if defined(__GLIBC__)
  // Arrays of 256 KiB and more get their own pages, returned when freed. glibc's default raises
  // this threshold (up to 32 MiB) after the first such free, after which freed per-particle
  // arrays stay resident in the heap: about 19 MiB more peak memory at 256 000 atoms. The host
  // backend keeps its per-rebuild arrays from one rebuild to the next instead (no page faults:
  // engine/neighbor_list.cpp, HaloExchange::build's records).
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
  scanmd::MpiRuntime mpi(argc, argv);
  CLI::App app{
      "scanmd: MPI-distributed Lennard-Jones molecular dynamics built from scan "
      "primitives"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("scanmd ") + SCANMD_VERSION);

  scanmd::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run the simulation described by an input deck");
  run_cmd->add_option("deck", run.deck, "Input deck (TOML)")->required();
  run_cmd
      ->add_option("--set", run.overrides,
                   "Override a deck key: section.key=value (value read as TOML; a bare word "
                   "is a string). Repeatable.")
      ->take_all()
      ->allow_extra_args(false);
  std::vector<std::string> backends;
  for (const auto& b : scanmd::kBackendNames) backends.emplace_back(b.name);
  run_cmd
      ->add_option(
          "--backend", run.backend,
          names<scanmd::Backend>(scanmd::kBackendNames, " | ") + " (overrides run.backend)")
      ->check(CLI::IsMember(backends));
  run_cmd->add_option("--restart", run.restart,
                      "Continue from this checkpoint (output.checkpoint of an earlier run) up to "
                      "run.steps; the trajectory, if it exists, is appended to");
  run_cmd->add_flag("-v,--verbose", run.verbose, "Debug-level log on rank 0");

  scanmd::ModelCommandOptions model;
  auto* model_cmd = app.add_subcommand(
      "model",
      "Model the decompositions for P ranks in one process (virtual decomposition) "
      "over the deck's initial configuration");
  model_cmd->add_option("deck", model.deck, "Input deck (TOML)")->required();
  model_cmd->add_option("--ranks", model.ranks, "Rank counts, e.g. 1,8,64,512")
      ->required()
      ->delimiter(',')
      ->check(CLI::Validator(check_rank_count, "INT>=1", "rank count"));
  model_cmd
      ->add_option("--methods", model.methods,
                   "Methods (default all): " + names<scanmd::Method>(scanmd::kMethodNames, ","))
      ->delimiter(',');
  model_cmd->add_option("--csv", model.csv, "Write the table as CSV (header row) to this file");
  model_cmd->add_option("--set", model.overrides, "Override a deck key: section.key=value")
      ->take_all();
  model_cmd->add_flag("!--no-pairs", model.pairs,
                      "Skip the per-rank neighbour lists (pair counts, load balance)");

  app.add_subcommand("info", "Print version, build configuration and GPUs");
  app.add_subcommand("deck-reference",
                     "Print the deck reference (Markdown, as docs/deck.md): every key with its "
                     "type, default, units and meaning, and every pair style's coefficients");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (scanmd::MpiRuntime::world_rank() == 0) return app.exit(e);
    return e.get_exit_code();
  }
  if (app.got_subcommand("info")) return info_command();
  if (app.got_subcommand("deck-reference")) {
    if (scanmd::MpiRuntime::world_rank() == 0)
      std::fputs(scanmd::io::deck_reference().c_str(), stdout);
    return 0;
  }
  if (app.got_subcommand("model")) return scanmd::model_command(model);
  const int status = scanmd::run_command(run);
  // A file HDF5 failed to close (a full disk under its last metadata flush) cannot be closed by
  // HDF5's own shutdown either, which runs inside MPI_Finalize and would crash there: the error
  // has been reported, so end without it (every rank met the same error).
  if (scanmd::io::h5::library_damaged()) {
    std::fflush(nullptr);
    std::_Exit(status == 0 ? 1 : status);
  }
  return status;
}
