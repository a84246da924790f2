#include "etkit/host/edit_distance.h"

#include <algorithm>
#include <numeric>

namespace etkit {

size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table: row[j] is the distance between the first i
  // characters of `a` and the first j of `b`.
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];  // the distance of (i - 1, j - 1)
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view typo,
                                       const std::vector<std::string>& candidates, size_t max) {
  std::vector<std::string> best;
  size_t best_distance = SIZE_MAX;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(typo, c);
    const size_t longer = std::max(typo.size(), c.size());
    const size_t allowed = std::max<size_t>(1, (longer + 2) / 3);
    if (d > allowed || d > best_distance) continue;
    if (d < best_distance) {
      best.clear();
      best_distance = d;
    }
    if (std::find(best.begin(), best.end(), c) == best.end() && best.size() < max) {
      best.push_back(c);
    }
  }
  return best;
}

}  // namespace etkit
