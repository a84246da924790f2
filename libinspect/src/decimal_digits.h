#pragma once

// Private to libinspect: the decimal digits of integers, written in place by the streamed
// writers (aligned text, JSON, Chrome trace) without a call. std::to_chars is a call, through
// the PLT from this library, and most integers a dump holds (blocks, depths, instructions,
// tracks) have one or two digits.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace etkit::inspect::detail {

/// "00" to "99": two digits per lookup, as to_chars writes them.
inline constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/// |v| as an unsigned, int64's minimum included.
inline uint64_t magnitude(int64_t v) {
  return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

/// The number of decimal digits of q (1 for 0).
inline size_t digit_count(uint64_t q) {
  size_t n = 1;
  for (; q >= 10000; q /= 10000) n += 4;
  return n + (q >= 1000 ? 3 : q >= 100 ? 2 : q >= 10 ? 1 : 0);
}

/// The digits of q (at least one) written right to left, two at a time, to end just before
/// `end`; returns where they begin.
inline char* digits_before(char* end, uint64_t q) {
  for (; q >= 100; q /= 100) {
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * (q % 100), 2);
  }
  if (q >= 10) {
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * q, 2);
  } else {
    *--end = static_cast<char>('0' + q);
  }
  return end;
}

/// The decimal text of `v` (as to_chars writes it: '-' and the digits) at `p`, which has room
/// for 20 bytes; returns the end.
inline char* put_integer(char* p, int64_t v) {
  if (v < 0) *p++ = '-';
  const uint64_t m = magnitude(v);
  char* const end = p + digit_count(m);
  digits_before(end, m);
  return end;
}

/// Whether `v`, a time in a unit of `ns_per_unit` nanoseconds, is a whole number of
/// nanoseconds below 2^50 in magnitude (v == n / ns_per_unit exactly), and that number in `n`:
/// such a time prints from n's digits with the point moved (show's start, duration and self
/// of integer ticks), which every streamed writer checks before formatting the double.
inline bool whole_nanoseconds(double v, double ns_per_unit, int64_t& n) {
  const double ns = v * ns_per_unit;
  if (!(std::fabs(ns) < 0x1p50)) return false;
  // Any nearby whole number will do: the test decides.
  n = static_cast<int64_t>(ns + (ns < 0 ? -0.5 : 0.5));
  return static_cast<double>(n) / ns_per_unit == v;
}

}  // namespace etkit::inspect::detail
