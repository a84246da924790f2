#include "etkit/inspect/json_number.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>

namespace etkit::inspect {
namespace {

// nlohmann's own text of `x`, as `dump` writes it.
std::string reference(double x) { return nlohmann::json(x).dump(); }

std::string fast(double x) {
  char buf[64];
  return std::string(buf, json_number_chars(buf, x));
}

// Counts the values whose text differs, checking the first few so a failure shows the value.
struct Compare {
  int64_t checked = 0;
  int64_t differ = 0;
  void operator()(double x) {
    ++checked;
    const std::string want = reference(x);
    const std::string got = fast(x);
    if (got != want) {
      if (++differ <= 5) CHECK_MESSAGE(got == want, "x = " << x);
    }
  }
};

TEST_CASE("json numbers: times from integer ticks, as nlohmann writes them") {
  Compare same;
  // Every tick count up to 1M, in us and ms from ns, and in s.
  for (int64_t n = 0; n < 1000000; ++n) {
    const double ns = static_cast<double>(n);
    same(ns / 1e3);
    same(ns / 1e6);
    if (n % 16 == 0) same(ns / 1e9);
  }
  // Long runs, and a 24 MHz clock (ns per tick not an integer).
  std::mt19937_64 rng(7);
  for (int i = 0; i < 500000; ++i) {
    const auto n = static_cast<double>(rng() >> (16 + i % 40));
    same(n / 1e3);
    same(n / 1e6);
    same(n * (1e9 / 24e6) / 1e3);
    same(-n / 1e3);
  }
  CHECK(same.differ == 0);
  CHECK(same.checked > 4000000);
}

TEST_CASE("json numbers: any double, and the edges of the fast path") {
  Compare same;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 500000; ++i) {
    // Random bit patterns of every magnitude (NaN and infinity left out: JSON has none).
    const uint64_t bits = rng();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    if (std::isfinite(x)) same(x);
    // Random values near the ranges the fast path takes.
    const double scale = std::ldexp(1.0, static_cast<int>(rng() % 60) - 20);
    same(static_cast<double>(rng() >> 11) / 0x1p53 * scale);
  }
  const double edges[] = {0.0,      -0.0,   1.0,     0.5,    1e-4,   0.0001,  0.00012,
                          9.9999e-5, 1e-5,  0x1p22,  0x1p32, 0x1p42, 0x1p52,  1e15,
                          1e16,     123456789012345.0,    0.1,     0.2,    0.3,     2.5e-3,
                          4194303.999999999, 4294967295.999999, 4398046511103.999};
  for (double x : edges) {
    same(x);
    same(-x);
    same(std::nextafter(x, 0.0));
    same(std::nextafter(x, 1e300));
  }
  // Halfway between two candidates of the fast path's decimals (9, 6 and 3), and a few ulps
  // either side: its rounding of the scaled value must be llround's.
  for (const double pow10 : {1e9, 1e6, 1e3}) {
    for (const double k : {0.0, 1.0, 7.0, 12345.0, 4194303.0}) {
      double x = (k + 0.5) / pow10;
      for (int step = 0; step < 4; ++step) x = std::nextafter(x, 0.0);
      for (int step = 0; step < 9; ++step, x = std::nextafter(x, 1e300)) same(x);
    }
  }
  // Powers of two, whose interval is narrower below.
  for (int e = -30; e < 60; ++e) {
    const double x = std::ldexp(1.0, e);
    same(x);
    same(std::nextafter(x, 0.0));
    same(std::nextafter(x, 1e300));
  }
  CHECK(same.differ == 0);
  CHECK(fast(0.0) == "0.0");
  CHECK(fast(-0.0) == "-0.0");
  CHECK(fast(14.0) == "14.0");
  CHECK(fast(13.993) == "13.993");
  CHECK(fast(0.007) == "0.007");
  CHECK(fast(1e-5) == "1e-05");
  CHECK(fast(7e-6) == "7e-06");
  CHECK(fast(-1.25e-7) == "-1.25e-07");
  CHECK(fast(1.23456789e-5) == "1.23456789e-05");
  // Times of a few ns to 100 us in ms and in s: the exponent notation below 1e-4.
  for (int64_t n = 1; n < 100000; ++n) {
    same(static_cast<double>(n) / 1e6);
    same(static_cast<double>(n) / 1e9);
    same(static_cast<double>(n) * 1e-9);
  }
  CHECK(same.differ == 0);
}

TEST_CASE("json numbers: whole numbers, as nlohmann writes them") {
  // Every whole number up to 2^17 and random ones of every magnitude up to 2^60 (past the
  // fixed notation's 15 digits), both signs, and the edges at 10^15.
  Compare same;
  for (int64_t n = 0; n < (int64_t{1} << 17); ++n) {
    same(static_cast<double>(n));
    same(-static_cast<double>(n));
  }
  std::mt19937_64 rng(19);
  for (int i = 0; i < 300000; ++i) {
    const double v = static_cast<double>(rng() >> (4 + i % 60));
    same(v);
    same(-v);
  }
  for (double v : {1e15, 1e15 - 1, 1e15 + 1, 999999999999999.9, 1e16, 0x1p53, 0x1p53 + 2,
                   -1e15, -0.0}) {
    same(v);
  }
  CHECK(same.differ == 0);
  CHECK(fast(2.0) == "2.0");
  CHECK(fast(-40.0) == "-40.0");
  CHECK(fast(999999999999999.0) == "999999999999999.0");
}

// json_micros_chars against json_number_chars (the text it must match), and every eighth value
// against nlohmann too.
struct CompareMicros {
  int64_t checked = 0;
  int64_t differ = 0;
  void operator()(double ns) {
    char got_buf[64];
    char want_buf[64];
    const std::string got(got_buf, json_micros_chars(got_buf, ns));
    const std::string want(want_buf, json_number_chars(want_buf, ns / 1e3));
    bool same = got == want;
    if (checked++ % 8 == 0) same = same && got == reference(ns / 1e3);
    if (!same && ++differ <= 5) CHECK_MESSAGE(got == want, "ns = " << ns);
  }
};

TEST_CASE("json numbers: microseconds from nanoseconds (json_micros_chars)") {
  CompareMicros same;
  // Every whole ns up to 2M.
  for (int64_t n = 0; n < 2000000; ++n) same(static_cast<double>(n));
  // Random whole ns of every magnitude up to 2^53, and not whole: half ns, a 24 MHz clock,
  // negative.
  std::mt19937_64 rng(13);
  for (int i = 0; i < 3000000; ++i) {
    const uint64_t n = rng() >> (11 + i % 53);
    same(static_cast<double>(n));
    if (i % 4 == 0) {
      same(static_cast<double>(n) + 0.5);
      same(static_cast<double>(n) * (1e9 / 24e6));
      same(-static_cast<double>(n));
    }
  }
  // Around the powers of two (narrower intervals below them, and where the fast path of
  // json_number_chars changes its decimals) and its end at 2^42 us.
  for (int e = 0; e < 53; ++e) {
    const double p2 = std::ldexp(1.0, e);
    for (double base : {p2, p2 * 1e3}) {
      for (int64_t k = -64; k <= 64; ++k) {
        const double ns = std::floor(base) + static_cast<double>(k);
        if (ns >= 0 && ns < 0x1p53) same(ns);
      }
    }
  }
  const double edges[] = {0.0, -0.0, 0.5, 1.0, 999.0, 1000.0, 1001.0, 0x1p42 * 1e3,
                          std::nextafter(0x1p42 * 1e3, 0.0), 0x1p52, 0x1p53, 1e300, 1e-300};
  for (double ns : edges) same(ns);
  CHECK(same.differ == 0);
  CHECK(same.checked > 5000000);
  auto text = [](double ns) {
    char buf[64];
    return std::string(buf, json_micros_chars(buf, ns));
  };
  CHECK(text(0) == "0.0");
  CHECK(text(7) == "0.007");
  CHECK(text(70) == "0.07");
  CHECK(text(13993) == "13.993");
  CHECK(text(14000) == "14.0");
  CHECK(text(1234567890) == "1234567.89");
}

// json_decimal_chars against json_number_chars of the same double (the text it must match),
// and every eighth value against nlohmann too.
struct CompareDecimal {
  int k = 3;
  double scale = 1e3;
  int64_t checked = 0;
  int64_t differ = 0;
  void operator()(uint64_t n) {
    char got_buf[64];
    char want_buf[64];
    const double x = static_cast<double>(n) / scale;
    const std::string got(got_buf, json_decimal_chars(got_buf, n, k));
    const std::string want(want_buf, json_number_chars(want_buf, x));
    bool same = got == want;
    if (checked++ % 8 == 0) same = same && got == reference(x);
    if (!same && ++differ <= 5) CHECK_MESSAGE(got == want, "n = " << n << ", k = " << k);
  }
};

TEST_CASE("json numbers: times of whole nanoseconds in us, ms and s (json_decimal_chars)") {
  // Plain locals, not structured bindings: Clang before 16 cannot capture those (CAPTURE).
  for (const auto& k_case : {std::pair{3, 1e3}, std::pair{6, 1e6}, std::pair{9, 1e9}}) {
    const int k = k_case.first;
    const double scale = k_case.second;
    CAPTURE(k);
    CompareDecimal same{k, scale};
    // Every whole ns up to 2M (the exponent notation below 1e-4 and the fixed one above it),
    // random ones of every magnitude up to 2^64, and the edges of each fast path's range.
    for (uint64_t n = 0; n < 2000000; ++n) same(n);
    std::mt19937_64 rng(17);
    for (int i = 0; i < 1000000; ++i) same(rng() >> (i % 64));
    for (int e = 0; e < 64; ++e) {
      const double p2 = std::ldexp(1.0, e);
      for (double base : {p2, p2 * scale}) {
        for (int64_t d = -64; d <= 64; ++d) {
          const double v = std::floor(base) + static_cast<double>(d);
          if (v >= 0 && v < 0x1p64) same(static_cast<uint64_t>(v));
        }
      }
    }
    same(std::numeric_limits<uint64_t>::max());
    CHECK(same.differ == 0);
  }
  auto text = [](uint64_t n, int k) {
    char buf[64];
    return std::string(buf, json_decimal_chars(buf, n, k));
  };
  // show's layouts in ms: ".0", fixed decimals, "0.000ddd" down to 1e-4, the exponent below.
  CHECK(text(0, 6) == "0.0");
  CHECK(text(14000000, 6) == "14.0");
  CHECK(text(13993, 6) == "0.013993");
  CHECK(text(100, 6) == "0.0001");
  CHECK(text(120, 6) == "0.00012");
  CHECK(text(35, 6) == "3.5e-05");
  CHECK(text(10, 6) == "1e-05");
  CHECK(text(7, 6) == "7e-06");
  CHECK(text(7, 9) == "7e-09");
  CHECK(text(12345, 9) == "1.2345e-05");
  CHECK(text(1234567890, 9) == "1.23456789");
  CHECK(text(7, 3) == "0.007");
  // Any other k is n / 10^k through json_number_chars.
  CHECK(text(7, 0) == "7.0");
  CHECK(text(15, 1) == "1.5");
}

}  // namespace
}  // namespace etkit::inspect
