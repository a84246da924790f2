#include "etkit/inspect/json_number.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace etkit::inspect {

namespace {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

// The fast path's test, exact: whether c = n / scale lies inside the rounding interval of the
// double x = m * 2^-s (m with its implicit bit, s > 0; `power_of_two`: m = 2^52 above the
// smallest normal) by more than 1/64 of an ulp on either side. n << s must fit in 128 bits.
bool inside_interval(uint64_t m, int s, bool power_of_two, uint64_t n, uint64_t scale) {
  // x - c in units of 2^-s / scale, where an ulp of x is `scale` units.
  const i128 d = static_cast<i128>(static_cast<u128>(m) * scale) -
                 static_cast<i128>(static_cast<u128>(n) << s);
  const auto ulp = static_cast<i128>(scale);
  // The interval reaches half an ulp above x, and below it half an ulp, or a quarter at a
  // power of two (the double below is closer); c must be inside by 1/64 of an ulp.
  const i128 below = power_of_two ? 15 : 31;
  return 64 * d >= -31 * ulp && 64 * d <= below * ulp;
}

}  // namespace

char* json_number_chars(char* out, double x) {
  static constexpr uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                        100000, 1000000, 10000000, 100000000, 1000000000};
  auto slow = [&] { return nlohmann::detail::to_chars(out, out + 32, x); };
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const bool negative = (bits >> 63) != 0;
  const uint64_t field = bits & ((uint64_t{1} << 52) - 1);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const double a = std::fabs(x);
  // Decimals tried: as many as keep the candidate's last digit coarser than an ulp of `x` and
  // its digits under 2^53.
  int p;
  if (a < 0x1p22) {
    p = 9;
  } else if (a < 0x1p32) {
    p = 6;
  } else if (a < 0x1p42) {
    p = 3;
  } else {
    return slow();
  }
  if (biased == 0) return slow();  // zero or subnormal
  const uint64_t m = field | (uint64_t{1} << 52);
  const int s = 1075 - biased;  // x = m * 2^-s, s > 0 below 2^52
  // llround's result without a call into libm: below 2^52 the fraction scaled - trunc(scaled)
  // is exact (adding 0.5 instead would round 0.49999999999999994 up).
  const double scaled = a * static_cast<double>(kPow10[p]);
  auto n = static_cast<uint64_t>(scaled);
  if (scaled - static_cast<double>(n) >= 0.5) ++n;
  if (n == 0 || s >= 100) return slow();
  // c = n / 10^p; n << s is about m * 10^p, under 2^83.
  if (!inside_interval(m, s, field == 0 && biased > 1, n, kPow10[p])) return slow();
  // The shortest digits: c without trailing zeros, c = n * 10^-q; four zeros at a time, then
  // two, then one (a time in ms from whole ns has three).
  int q = p;
  while (n % 10000 == 0) {
    n /= 10000;
    q -= 4;
  }
  if (n % 100 == 0) {
    n /= 100;
    q -= 2;
  }
  if (n % 10 == 0) {
    n /= 10;
    --q;
  }
  // n < 2^53 has at most 16 digits. The copies below move a fixed 16 bytes (or fill 16) and
  // then advance by what counts, so none is a call to memcpy; `digits` has 16 readable bytes
  // after any start they use, and each copy ends within the 32 bytes of `out` (the one that
  // could pass them is guarded).
  char digits[32] = {};
  const auto [end, ec] = std::to_chars(digits, digits + 17, n);
  const int k = static_cast<int>(end - digits);
  const int point = k - q;  // digits before the decimal point
  char* o = out;
  if (negative) *o++ = '-';
  if (k <= point && point <= 15) {
    std::memcpy(o, digits, 16);
    o += k;
    std::memset(o, '0', 16);  // o <= out + 16
    o += point - k;
    *o++ = '.';
    *o++ = '0';
    return o;
  }
  if (0 < point && point <= 15) {
    const auto up = static_cast<size_t>(point);
    std::memcpy(o, digits, 16);
    o += point;
    *o++ = '.';
    if (o + 16 <= out + 32) {
      std::memcpy(o, digits + up, 16);
    } else {
      std::memcpy(o, digits + up, static_cast<size_t>(k - point));
    }
    return o + (k - point);
  }
  if (-4 < point && point <= 0) {
    *o++ = '0';
    *o++ = '.';
    std::memset(o, '0', 4);
    o += -point;
    std::memcpy(o, digits, 16);
    return o + k;
  }
  // Smaller (times of a few microseconds in ms, 7e-06): "d.igitse-0x". The fast path stops at
  // 9 decimals (n > 0), so the exponent is one of -5 ... -9.
  if (-9 <= point && point <= -4) {
    *o++ = digits[0];
    if (k > 1) {
      *o++ = '.';
      std::memcpy(o, digits + 1, 16);
      o += k - 1;
    }
    *o++ = 'e';
    *o++ = '-';
    *o++ = '0';
    *o++ = static_cast<char>('0' + (1 - point));
    return o;
  }
  return slow();
}

char* json_micros_chars(char* out, double ns) {
  const double x = ns / 1e3;
  // Whole nanoseconds from 1 up to where json_number_chars's fast path ends (2^42 us).
  if (!(ns >= 1 && x < 0x1p42)) return json_number_chars(out, x);
  const auto n = static_cast<uint64_t>(ns);  // exact: ns < 2^53
  if (static_cast<double>(n) != ns) return json_number_chars(out, x);
  // x is normal (>= 0.001) and below 2^42: x = m * 2^-s with 11 <= s <= 62, so n << s is about
  // m * 1000, under 2^63.
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const uint64_t field = bits & ((uint64_t{1} << 52) - 1);
  const int biased = static_cast<int>(bits >> 52);
  const int s = 1075 - biased;
  // When c = n / 1000 passes json_number_chars's test, that function finds c too (its candidate
  // with p >= 3 decimals is c: the rounded product is within 0.48 of c * 10^p, see the header),
  // and prints it as below; otherwise it decides.
  if (!inside_interval(field | (uint64_t{1} << 52), s, field == 0, n, 1000)) {
    return json_number_chars(out, x);
  }
  const uint64_t whole = n / 1000;
  const auto frac = static_cast<unsigned>(n % 1000);
  char* o = std::to_chars(out, out + 20, whole).ptr;
  *o++ = '.';
  if (frac == 0) {
    *o++ = '0';
    return o;
  }
  // The fraction's three digits without trailing zeros.
  o[0] = static_cast<char>('0' + frac / 100);
  o[1] = static_cast<char>('0' + frac / 10 % 10);
  o[2] = static_cast<char>('0' + frac % 10);
  return o + (frac % 10 != 0 ? 3 : frac % 100 != 0 ? 2 : 1);
}

}  // namespace etkit::inspect
