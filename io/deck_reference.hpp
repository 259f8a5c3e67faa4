// The deck reference: every key of a deck — type, default, unit in each unit system, meaning —
// and every pair style's coefficients, as Markdown, written from the key table
// (io/deck_keys.cpp) and the pair styles' headers (physics/pair/*.hpp) so that it cannot drift
// from what the reader does. `scanmd deck-reference` prints it; docs/deck.md is its committed
// output, and the test deck.reference fails while the two differ.
#pragma once

#include <string>

namespace scanmd::io {

std::string deck_reference();

}  // namespace scanmd::io
