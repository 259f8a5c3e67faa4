// Run-time choice of the host pair kernel (see pair_kernel.hpp).
#include "engine/pair_kernel.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

namespace scanmd {

bool cpu_runs(PairKernel kernel) {
#if defined(__x86_64__) && defined(SCANMD_PAIR_KERNELS_X86)
  __builtin_cpu_init();
  switch (kernel) {
    case PairKernel::Auto:
    case PairKernel::Scalar:
      return true;
    case PairKernel::Avx2:
    case PairKernel::Cluster:
      return __builtin_cpu_supports("avx2");
    case PairKernel::Avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
  }
  return false;
#else
  return kernel == PairKernel::Auto || kernel == PairKernel::Scalar;
#endif
}

PairKernel rows_kernel(PairKernel kernel) {
  if (kernel != PairKernel::Cluster) return kernel;
  static const bool avx512 = cpu_runs(PairKernel::Avx512);
  return avx512 ? PairKernel::Avx512 : PairKernel::Avx2;
}

PairKernel resolve_pair_kernel(PairKernel configured) {
  PairKernel k = configured;
  if (const char* env = std::getenv("SCANMD_PAIR_KERNEL"); env != nullptr && *env != '\0') {
    const auto named = value_of<PairKernel>(kPairKernelNames, env);
    if (!named)
      throw std::runtime_error(fmt::format("SCANMD_PAIR_KERNEL={}: expected {}", env,
                                           quoted_names<PairKernel>(kPairKernelNames)));
    k = *named;
  }
  if (k == PairKernel::Auto) {
    for (PairKernel widest : {PairKernel::Avx512, PairKernel::Avx2})
      if (cpu_runs(widest)) return widest;
    return PairKernel::Scalar;
  }
  if (!cpu_runs(k))
    throw std::runtime_error(
        fmt::format("SCANMD_PAIR_KERNEL={}: this CPU (or this build) cannot run the {} pair kernel",
                    pair_kernel_name(k), pair_kernel_name(k)));
  return k;
}

PositionLoads position_loads_for(const char* env) {
  if (env != nullptr && *env != '\0') {
    const auto named = value_of<PositionLoads>(kPositionLoadsNames, env);
    if (!named)
      throw std::runtime_error(fmt::format("SCANMD_POSITION_LOADS={}: expected {}", env,
                                           quoted_names<PositionLoads>(kPositionLoadsNames)));
    return *named;
  }
#if defined(__x86_64__) && defined(SCANMD_PAIR_KERNELS_X86)
  __builtin_cpu_init();
  if (__builtin_cpu_is("intel")) return PositionLoads::Gather;
#endif
  return PositionLoads::Transpose;
}

PositionLoads position_loads() {
  static const PositionLoads chosen = position_loads_for(std::getenv("SCANMD_POSITION_LOADS"));
  return chosen;
}

bool pair_kernel_pinned() {
  const char* env = std::getenv("SCANMD_PAIR_KERNEL");
  return env != nullptr && *env != '\0' && std::string_view(env) != "auto";
}

std::string pair_kernel_name(PairKernel kernel) {
  return std::string(name_of<PairKernel>(kPairKernelNames, kernel));
}

}  // namespace scanmd
