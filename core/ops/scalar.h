// Scalar: a number operand from Lua (a double) with the facts type promotion needs.
#pragma once
#include <cmath>

namespace tocha {

struct Scalar {
  double v = 0;
  bool integral = true;   // 2 and 2.0 are integral; 2.5 is not
  bool boolean = false;
  Scalar() = default;
  Scalar(double x) : v(x), integral(std::isfinite(x) && x == std::floor(x)) {}  // NOLINT: implicit by design
  static Scalar from_bool(bool b) { Scalar s(b ? 1.0 : 0.0); s.boolean = true; return s; }
};

}  // namespace tocha
