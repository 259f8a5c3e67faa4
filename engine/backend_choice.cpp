// Backend resolution (see backend_choice.hpp).
#include "engine/backend_choice.hpp"

#include <stdexcept>

#include "engine/cuda/device_selection.hpp"

namespace scanmd {

bool cuda_lacks(const SimulationConfig& config) {
  const double w12 = config.special_bonds.lj[0];
  return config.bond.style != BondStyle::None && w12 > 0.0 && w12 < 1.0;
}

BackendChoice resolve_backend(const Communicator& comm, Backend requested, NeighborFill fill) {
  if (requested == Backend::Host) return {Backend::Host, "requested"};
  std::string why;
  const int first_without = comm.first_rank_where(!select_device(comm, &why));
  if (first_without == comm.size()) return {Backend::Cuda, device_summary(fill)};
  // The reason as the lowest rank without a GPU sees it.
  why = comm.broadcast(std::move(why), first_without);
  if (comm.size() > 1) why = "rank " + std::to_string(first_without) + ": " + why;
  if (requested == Backend::Cuda)
    throw std::runtime_error("backend cuda requested, but no usable GPU: " + why);
  return {Backend::Host, "no usable GPU: " + why};
}

}  // namespace scanmd
