// The resolved form of decks (Deck::to_toml), for scripts/compare_resolved_decks.sh: for each
// file given, a line "== FILE", then its resolved deck, or "error: " and the DeckError's
// message. A deck's leading lines "#set section.key=value" are --set overrides (as the deck fuzz
// target reads them). Only the public interface of io/deck.hpp, so that the same source builds
// against an old commit and the working tree.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/deck.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<std::string> overrides;
    std::size_t at = 0;
    while (std::string_view(text).substr(at).starts_with("#set ")) {
      const std::size_t end = text.find('\n', at);
      overrides.push_back(text.substr(at + 5, end == std::string::npos ? end : end - at - 5));
      if (end == std::string::npos) break;
      at = end + 1;
    }
    std::printf("== %s\n", argv[i]);
    try {
      std::fputs(scanmd::io::parse_deck(text, argv[i], overrides).to_toml().c_str(), stdout);
    } catch (const scanmd::io::DeckError& e) {
      std::printf("error: %s\n", e.what());
    }
  }
  return 0;
}
