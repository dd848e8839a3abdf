#include "tokenizer/serde_float.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace bertpt::tokenizer {
namespace {

// serde_json's POW10 table: 1e0 ... 1e308, each the correctly rounded double.
const std::array<double, 309> kPow10 = [] {
  std::array<double, 309> t{};
  for (int i = 0; i <= 308; ++i) {
    const std::string literal = "1e" + std::to_string(i);
    t[size_t(i)] = std::strtod(literal.c_str(), nullptr);
  }
  return t;
}();

// serde_json's f64_from_parts: significand × 10^exponent the way it computes it.
double from_parts(uint64_t significand, int exponent) {
  double f = double(significand);
  while (true) {
    const unsigned magnitude = unsigned(exponent < 0 ? -exponent : exponent);
    if (magnitude < kPow10.size()) {
      f = exponent >= 0 ? f * kPow10[magnitude] : f / kPow10[magnitude];
      return f;
    }
    if (f == 0.0 || exponent >= 0) return f;  // (a positive exponent this large is an error in serde)
    f /= 1e308;
    exponent += 308;
  }
}

}  // namespace

double serde_json_f64(double value) {
  if (value == 0.0 || !std::isfinite(value)) return value;
  // The shortest round-trip digits in scientific form: "d.ddde-XX".
  char text[64];
  const auto r = std::to_chars(text, text + sizeof text, std::fabs(value), std::chars_format::scientific);
  uint64_t significand = 0;
  int digits = 0;
  const char* p = text;
  for (; p < r.ptr && *p != 'e'; ++p) {
    if (*p >= '0' && *p <= '9') {
      significand = significand * 10 + uint64_t(*p - '0');
      ++digits;
    }
  }
  int exponent10 = 0;
  if (p < r.ptr) {
    const char* e = p + 1;
    if (e < r.ptr && *e == '+') ++e;  // from_chars takes '-' but not '+'
    std::from_chars(e, r.ptr, exponent10);
  }
  const double f = from_parts(significand, exponent10 - (digits - 1));
  return value < 0 ? -f : f;
}

}  // namespace bertpt::tokenizer
