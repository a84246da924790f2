#include "etkit/inspect/json_number.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "decimal_digits.h"

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
  // Whole numbers (counts, statistics of integer data) below 10^15, zero aside: their digits
  // and ".0". Below 2^53 the integer is the one decimal of at most its digit count in x's
  // rounding interval (narrower than 1), and nlohmann prints up to 15 digits in fixed notation.
  if (a < 1e15) {
    const auto whole = static_cast<int64_t>(x);
    if (static_cast<double>(whole) == x && whole != 0) {
      char* o = detail::put_integer(out, whole);
      o[0] = '.';
      o[1] = '0';
      return o + 2;
    }
  }
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

namespace {

// json_decimal_chars for one k, so that every division is by a constant.
template <int K>
char* decimal_chars(char* out, uint64_t n) {
  constexpr uint64_t kScale = K == 3 ? 1000 : K == 6 ? 1000000 : 1000000000;
  // Where json_number_chars tries at least K decimals (its p >= K).
  constexpr double kLimit = K == 3 ? 0x1p42 : K == 6 ? 0x1p32 : 0x1p22;
  const double x = static_cast<double>(n) / static_cast<double>(kScale);
  // n >= 2^53 puts x past the limit, so n is exact below.
  if (!(n >= 1 && x < kLimit)) return json_number_chars(out, x);
  // x is normal (>= 1e-9): x = m * 2^-s with s <= 83, so n << s is about m * 10^K, under 2^83.
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const uint64_t field = bits & ((uint64_t{1} << 52) - 1);
  const int s = 1075 - static_cast<int>(bits >> 52);
  // When c = n / 10^K passes json_number_chars's test, that function finds c too (its candidate
  // with p >= K decimals is c: the rounded product is within 0.49 of c * 10^p, see the header),
  // and prints it as below; otherwise it decides.
  if (!inside_interval(field | (uint64_t{1} << 52), s, field == 0, n, kScale)) {
    return json_number_chars(out, x);
  }
  const uint64_t whole = n / kScale;
  const uint64_t frac = n % kScale;
  char* o = out;
  if (whole > 0 || frac * 10000 >= kScale) {
    // Fixed notation (c >= 1e-4): the whole part, '.', and the K decimals without trailing
    // zeros, or ".0".
    if (whole == 0) {
      *o++ = '0';
    } else {
      o = detail::put_integer(o, static_cast<int64_t>(whole));
    }
    *o++ = '.';
    if (frac == 0) {
      *o++ = '0';
      return o;
    }
    // The K digits, zero-padded, right to left two at a time (unrolled: K is a constant).
    char* const end = o + K;
    char* w = end;
    uint64_t q = frac;
    for (int i = 0; i < K / 2; ++i) {
      w -= 2;
      std::memcpy(w, detail::kDigitPairs + 2 * (q % 100), 2);
      q /= 100;
    }
    if (K % 2 != 0) *--w = static_cast<char>('0' + q);
    char* last = end;
    while (last[-1] == '0') --last;  // frac > 0: a digit is not '0'
    return last;
  }
  // Below 1e-4 (a few ns in ms or s): "d.igitse-0x", the exponent one of -5 ... -9; frac has
  // at most K - 4 digits.
  // The digits end at 16, so the fixed 8-byte copy below stays inside `digits` for any count
  // (it starts at most 15 bytes in).
  char digits[32] = {};
  char* const digits_end = digits + 16;
  const char* first = detail::digits_before(digits_end, frac);
  const auto count = static_cast<int>(digits_end - first);
  const char* last = digits_end;
  while (last[-1] == '0') --last;
  *o++ = first[0];
  if (last - first > 1) {
    *o++ = '.';
    std::memcpy(o, first + 1, 8);  // at most 4 digits after the first
    o += last - first - 1;
  }
  *o++ = 'e';
  *o++ = '-';
  *o++ = '0';
  *o++ = static_cast<char>('0' + (K + 1 - count));
  return o;
}

}  // namespace

char* json_decimal_chars(char* out, uint64_t n, int k) {
  switch (k) {
    case 3: return decimal_chars<3>(out, n);
    case 6: return decimal_chars<6>(out, n);
    case 9: return decimal_chars<9>(out, n);
    default: {
      double scale = 1;  // exact up to 10^22
      for (int i = 0; i < k; ++i) scale *= 10;
      return json_number_chars(out, static_cast<double>(n) / scale);
    }
  }
}

char* json_micros_chars(char* out, double ns) {
  if (ns >= 1 && ns < 0x1p53) {
    const auto n = static_cast<uint64_t>(ns);
    if (static_cast<double>(n) == ns) return decimal_chars<3>(out, n);
  }
  return json_number_chars(out, ns / 1e3);
}

}  // namespace etkit::inspect
