#pragma once

// Edit distance between names, and the closest names to a typo: what a "did you mean ..." hint
// offers (trace-run's filter warnings). Host code: it allocates.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace etkit {

/// The Levenshtein distance between `a` and `b`: the fewest single-character insertions,
/// deletions and substitutions that turn one into the other. O(|a|·|b|) time, O(|b|) memory.
size_t edit_distance(std::string_view a, std::string_view b);

/// The names of `candidates` closest to `typo`: those at the smallest edit distance, if that
/// distance is at most a third of the longer name's length (rounded up, at least 1), in
/// `candidates` order, without duplicates, at most `max` of them. Empty when nothing is close.
std::vector<std::string> closest_names(std::string_view typo,
                                       const std::vector<std::string>& candidates,
                                       size_t max = 3);

}  // namespace etkit
