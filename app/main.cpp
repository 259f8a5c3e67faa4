// scanmd — command line: `scanmd run DECK [--set k=v]... [--backend B]`, `scanmd info`.
#include <mpi.h>

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "app/build_info.hpp"
#include "app/gpu_info.hpp"
#include "app/model_command.hpp"
#include "app/run_command.hpp"

namespace {

// MPI_Init / MPI_Finalize for the process lifetime.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) { MPI_Init(&argc, &argv); }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

int info_command() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return 0;
  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi_version, &len);
  std::string mpi(mpi_version, len);
  if (auto nl = mpi.find('\n'); nl != std::string::npos) mpi.resize(nl);
  const scanmd::GpuInventory gpus = scanmd::query_gpus();
  std::printf("scanmd %s\n", SCANMD_VERSION);
  std::printf("build_type: %s\n", SCANMD_BUILD_TYPE);
  std::printf("compiler: %s\n", SCANMD_COMPILER);
  std::printf("cxx_flags: %s\n", SCANMD_CXX_FLAGS);
  std::printf("mpi: %s\n", mpi.c_str());
  std::printf("hdf5: %s\n", SCANMD_HDF5_VERSION);
  std::printf("fixed_point: 2^-40 (64-bit accumulators, 128-bit global sums)\n");
  std::printf("methods: half-shell neutral-territory full-shell eighth-shell midpoint\n");
  std::printf("cuda_compiled: %s\n", gpus.compiled ? "yes" : "no");
  std::printf("cuda_architectures: %s\n", SCANMD_CUDA_ARCHITECTURES);
  std::printf("gpu_devices: %zu\n", gpus.devices.size());
  for (std::size_t d = 0; d < gpus.devices.size(); ++d)
    std::printf("gpu_%zu: %s, %.1f GiB, sm_%d%d\n", d, gpus.devices[d].name.c_str(),
                gpus.devices[d].memory_gib, gpus.devices[d].major, gpus.devices[d].minor);
  if (gpus.devices.empty()) std::printf("gpu_note: %s\n", gpus.why_none.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(argc, argv);
  CLI::App app{"scanmd: MPI-distributed Lennard-Jones molecular dynamics built from scan "
               "primitives"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("scanmd ") + SCANMD_VERSION);

  scanmd::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run the simulation described by an input deck");
  run_cmd->add_option("deck", run.deck, "Input deck (TOML)")->required();
  run_cmd->add_option("--set", run.overrides,
                      "Override a deck key: section.key=value (value read as TOML; a bare word "
                      "is a string). Repeatable.")
      ->take_all()
      ->allow_extra_args(false);
  run_cmd->add_option("--backend", run.backend, "auto | host | cuda (overrides run.backend)")
      ->check(CLI::IsMember({"auto", "host", "cuda"}));
  run_cmd->add_option("--restart", run.restart,
                      "Continue from this checkpoint (output.checkpoint of an earlier run) up to "
                      "run.steps; the trajectory, if it exists, is appended to");
  run_cmd->add_flag("-v,--verbose", run.verbose, "Debug-level log on rank 0");

  scanmd::ModelCommandOptions model;
  auto* model_cmd = app.add_subcommand(
      "model", "Model the decompositions for P ranks in one process (virtual decomposition) "
               "over the deck's initial configuration");
  model_cmd->add_option("deck", model.deck, "Input deck (TOML)")->required();
  model_cmd->add_option("--ranks", model.ranks, "Rank counts, e.g. 1,8,64,512")
      ->required()
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  model_cmd->add_option("--methods", model.methods,
                        "Methods (default all): half-shell,neutral-territory,full-shell,eighth-shell,midpoint")
      ->delimiter(',');
  model_cmd->add_option("--csv", model.csv, "Write the table as CSV (header row) to this file");
  model_cmd->add_option("--set", model.overrides, "Override a deck key: section.key=value")
      ->take_all();
  model_cmd->add_flag("!--no-pairs", model.pairs,
                      "Skip the per-rank neighbour lists (pair counts, load balance)");

  app.add_subcommand("info", "Print version, build configuration and GPUs");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) return app.exit(e);
    return e.get_exit_code();
  }
  if (app.got_subcommand("info")) return info_command();
  if (app.got_subcommand("model")) return scanmd::model_command(model);
  return scanmd::run_command(run);
}
