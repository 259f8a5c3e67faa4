// `scanmd model DECK --ranks LIST [--methods LIST] [--csv FILE]`: the virtual decomposition
// over the deck's initial configuration, as a console table and CSV.
#pragma once

#include <string>
#include <vector>

namespace scanmd {

struct ModelCommandOptions {
  std::string deck;
  std::vector<std::string> overrides;
  std::vector<int> ranks;
  std::vector<std::string> methods;  // empty: all
  std::string csv;                   // empty: no file
  bool pairs = true;
};

int model_command(const ModelCommandOptions& options);

}  // namespace scanmd
