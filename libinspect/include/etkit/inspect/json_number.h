#pragma once

// The text of a JSON number exactly as etdump-inspect's JSON writer (nlohmann::json's dump)
// prints it, for writers that build JSON by hand to stream it. Most numbers the inspector writes
// are times with a few decimals (ticks / 1e3, / 1e6), and those take a fast path; any other
// finite double goes to nlohmann's own conversion, so the bytes are the same for every value.

#include <cstdint>

namespace etkit::inspect {

/// Writes `x` (finite) at `out` as nlohmann's `dump` writes a double, and returns the end. `out`
/// needs room for 32 bytes.
///
/// Fast path: when `x` is the double nearest to a decimal c with at most 9 decimals, and c lies
/// inside `x`'s rounding interval by more than 1/64 of an ulp on either side, c is the shortest
/// decimal that reads back as `x` (no other decimal with as few digits fits in an interval
/// narrower than c's last digit), and grisu2, whose boundaries err by less than 1/256 of an ulp,
/// finds it too; c is then printed in nlohmann's layout (fixed notation with ".0" for integral
/// values, "0.00ddd" down to 1e-4, "d.ddde-05" below). The check is exact, in 128-bit integers.
char* json_number_chars(char* out, double x);

/// Writes `n / 10^k` (k = 3, 6 or 9: a time of n whole ns in us, ms or s) exactly as
/// `json_number_chars(out, static_cast<double>(n) / 10^k)` does, and returns the end. `out`
/// needs room for 32 bytes.
///
/// Faster (from 1 up to 2^42 us, 2^32 ms or 2^22 s, where json_number_chars tries at least k
/// decimals): when c = n / 10^k passes the fast path's test above, json_number_chars finds c as
/// well, because the integer it rounds to (x * 10^p, p >= k) is then within 0.49 of c * 10^p
/// (under 31/64 of an ulp of x times 10^p, at most 0.24 in each of its ranges, plus the
/// rounding of a product under 2^52, 0.25), and c is printed from n's digits: the whole part,
/// then ".0" or up to k decimals without trailing zeros, or below 1e-4 the exponent notation.
/// Anything else, and any other k (n / 10^k), goes to json_number_chars.
char* json_decimal_chars(char* out, uint64_t n, int k);

/// Writes `ns / 1e3` (`ns` finite), a time in microseconds, exactly as
/// `json_number_chars(out, ns / 1e3)` does, and returns the end: `json_decimal_chars(out, ns,
/// 3)` for whole nanoseconds, `json_number_chars` for any other value.
char* json_micros_chars(char* out, double ns);

}  // namespace etkit::inspect
