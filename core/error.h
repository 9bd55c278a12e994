// Errors raised by the core: tocha::Error carries a message that starts with the op's name,
// e.g. "[mm] a is 2x3 but b is 4x5". TOCHA_CHECK is for user-facing checks (every check lives
// in the op front-ends); TOCHA_ASSERT is for internal invariants.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tocha {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

// Thrown when an allocation fails; the bindings map it to TOCHA_EOOM so Lua can collect and retry.
class OutOfMemory : public Error {
 public:
  explicit OutOfMemory(const std::string& msg) : Error(msg) {}
};

namespace detail {
inline void append(std::ostringstream&) {}
template <class T, class... Rest> void append(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
  append(os, rest...);
}
}  // namespace detail

template <class... Args> std::string str_cat(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  return os.str();
}

template <class... Args> [[noreturn]] void fail(const char* op, const Args&... args) {
  throw Error(str_cat("[", op, "] ", args...));
}

}  // namespace tocha

#define TOCHA_CHECK(cond, op, ...) \
  do {                             \
    if (!(cond)) ::tocha::fail(op, __VA_ARGS__); \
  } while (0)

#define TOCHA_ASSERT(cond)                                                             \
  do {                                                                                 \
    if (!(cond))                                                                       \
      throw ::tocha::Error(::tocha::str_cat("internal error: ", #cond, " at ", __FILE__, \
                                            ":", __LINE__));                           \
  } while (0)
