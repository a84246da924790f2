#include "etkit/inspect/json_number.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace etkit::inspect {

char* json_number_chars(char* out, double x) {
  static constexpr uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                        100000, 1000000, 10000000, 100000000, 1000000000};
  __extension__ typedef unsigned __int128 u128;
  __extension__ typedef __int128 i128;
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
  auto n = static_cast<uint64_t>(std::llround(a * static_cast<double>(kPow10[p])));
  if (n == 0 || s >= 100) return slow();
  // x - c in units of 10^-p * 2^-s, where an ulp of x is 10^p units; c = n / 10^p.
  const i128 d = static_cast<i128>(static_cast<u128>(m) * kPow10[p]) -
                 static_cast<i128>(static_cast<u128>(n) << s);
  const auto ulp = static_cast<i128>(kPow10[p]);
  // The interval reaches half an ulp above x, and below it half an ulp, or a quarter at a
  // power of two (the double below is closer); c must be inside by 1/64 of an ulp.
  const i128 below = (field == 0 && biased > 1) ? 15 : 31;
  if (64 * d < -31 * ulp || 64 * d > below * ulp) return slow();
  // The shortest digits: c without trailing zeros, c = n * 10^-q.
  int q = p;
  while (n % 10 == 0) {
    n /= 10;
    --q;
  }
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  const int k = static_cast<int>(end - digits);
  const int point = k - q;  // digits before the decimal point
  char* o = out;
  if (negative) *o++ = '-';
  const auto uk = static_cast<size_t>(k);
  if (k <= point && point <= 15) {
    std::memcpy(o, digits, uk);
    o += k;
    std::memset(o, '0', static_cast<size_t>(point - k));
    o += point - k;
    *o++ = '.';
    *o++ = '0';
    return o;
  }
  if (0 < point && point <= 15) {
    const auto up = static_cast<size_t>(point);
    std::memcpy(o, digits, up);
    o += point;
    *o++ = '.';
    std::memcpy(o, digits + up, uk - up);
    return o + (k - point);
  }
  if (-4 < point && point <= 0) {
    *o++ = '0';
    *o++ = '.';
    std::memset(o, '0', static_cast<size_t>(-point));
    o += -point;
    std::memcpy(o, digits, uk);
    return o + k;
  }
  // Smaller (times of a few microseconds in ms, 7e-06): "d.igitse-0x". The fast path stops at
  // 9 decimals (n > 0), so the exponent is one of -5 ... -9.
  if (-9 <= point && point <= -4) {
    *o++ = digits[0];
    if (k > 1) {
      *o++ = '.';
      std::memcpy(o, digits + 1, uk - 1);
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

}  // namespace etkit::inspect
