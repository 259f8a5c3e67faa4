// What CUDA devices this process can use (none when the build has no CUDA backend).
#pragma once

#include <string>
#include <vector>

namespace scanmd {

struct GpuDevice {
  std::string name;
  double memory_gib;
  int major, minor;
};

struct GpuInventory {
  bool compiled = false;  // the build has the CUDA backend
  std::vector<GpuDevice> devices;
  std::string why_none;  // reason when devices is empty
};

GpuInventory query_gpus();

}  // namespace scanmd
