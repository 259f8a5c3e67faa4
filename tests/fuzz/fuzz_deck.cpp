// Fuzz target: the deck reader (io/deck.cpp) on any bytes. Run by libFuzzer (scripts/fuzz.sh,
// clang -fsanitize=fuzzer,address,undefined) and, over the committed corpora, by the ordinary
// test build (replay_main.cpp: tests fuzz.replay.deck).
//
// Input: a deck's text; leading lines "#set section.key=value" are --set overrides as well.
// Properties checked beyond "no crash, no leak, no undefined behaviour, no hang":
//   - a refusal is a DeckError whose message names where ("fuzz.toml:..." or "--set ...") and
//     stays short (the reader echoes at most 64 characters of anything it was given);
//   - an accepted deck's resolved form (Deck::to_toml) reads back to the same resolved form.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "io/deck.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_deck: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  std::size_t at = 0;
  while (text.substr(at).starts_with("#set ")) {
    const std::size_t end = text.find('\n', at);
    overrides.emplace_back(
        text.substr(at + 5, end == std::string_view::npos ? text.npos : end - at - 5));
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  try {
    const scanmd::io::Deck deck = scanmd::io::parse_deck(text, "fuzz.toml", overrides);
    const std::string resolved = deck.to_toml();
    std::string again;
    try {
      again = scanmd::io::parse_deck(resolved, "fuzz.toml").to_toml();
    } catch (const scanmd::io::DeckError& e) {
      fail("the resolved deck of an accepted deck is refused",
           std::string(e.what()) + "\n" + resolved);
    }
    if (again != resolved) fail("the resolved deck does not read back the same", resolved);
  } catch (const scanmd::io::DeckError& e) {
    const std::string m = e.what();
    if (!m.starts_with("fuzz.toml") && !m.starts_with("--set "))
      fail("a refusal that does not say where", m);
    if (m.size() > 2048) fail("a refusal of more than 2048 characters", m.substr(0, 2048));
  }
  return 0;
}
