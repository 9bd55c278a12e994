// Binary and ascii element codecs with dtype conversion. See codec.h.
#include "core/io/codec.h"
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include "core/error.h"
#include "core/ops/pointwise.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "serialization writes the host's bytes as little-endian; big-endian hosts need byte swapping");

namespace tocha {
namespace io {

namespace {

// A file byte that means a boolean; any non-zero byte reads as true (a raw byte is not a valid bool).
struct Bool8 { uint8_t v; };

template <class F> decltype(auto) visit_kind(Kind k, F&& f) {
  switch (k) {
    case Kind::u8: return f(uint8_t{});
    case Kind::i8: return f(int8_t{});
    case Kind::i16: return f(int16_t{});
    case Kind::i32: return f(int32_t{});
    case Kind::i64: return f(int64_t{});
    case Kind::f32: return f(float{});
    case Kind::f64: return f(double{});
    case Kind::f16: return f(Half{});
    case Kind::bf16: return f(BFloat16{});
    case Kind::b8: return f(Bool8{});
    default: fail("io", "invalid element kind ", int(k));
  }
}

template <class T> constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Value conversion between element types; float-to-integer saturates (NaN gives 0) instead of
// being undefined, since the values come from files.
template <class To, class From> To convert(From v) {
  if constexpr (std::is_same_v<From, Bool8>) {
    return convert<To>(uint8_t(v.v != 0));
  } else if constexpr (is_reduced_v<From>) {
    return convert<To>(float(v));
  } else if constexpr (std::is_same_v<To, Bool8>) {
    return Bool8{uint8_t(v != From(0))};
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_reduced_v<To>) {
    return To(float(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v)) return To(0);
    if (v <= From(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (v >= From(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <class To, class From> void convert_n(To* dst, const From* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = convert<To>(src[i]);
}

constexpr size_t kChunk = 8192;  // values converted per step (bounded scratch memory)

// ---- ascii ------------------------------------------------------------------------------------

bool raw_in_ascii(Kind k) { return k == Kind::u8 || k == Kind::i8; }  // Torch7 writes bytes as is

template <class T> int format_value(char* buf, size_t cap, T v) {
  if constexpr (std::is_same_v<T, double>) return snprintf(buf, cap, "%.17g", v);
  else if constexpr (std::is_floating_point_v<T> || is_reduced_v<T>) return snprintf(buf, cap, "%.9g", double(float(v)));
  else if constexpr (std::is_same_v<T, Bool8>) return snprintf(buf, cap, "%d", v.v ? 1 : 0);
  else return snprintf(buf, cap, "%lld", (long long)v);
}

template <class T> void write_ascii(Stream& s, const T* src, size_t n, bool last_chunk, Format f) {
  std::string out;
  out.reserve(n * 12);
  char buf[64];
  for (size_t i = 0; i < n; ++i) {
    out.append(buf, size_t(format_value(buf, sizeof buf, src[i])));
    if (f.autospace && (i + 1 < n || !last_chunk)) out.push_back(' ');
  }
  if (f.autospace && last_chunk) out.push_back('\n');
  s.write(out.data(), out.size());
}

bool is_space(int c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Reads one whitespace-delimited token (at most 63 characters); false at the end of the stream.
bool read_token(Stream& s, char* tok) {
  int c;
  while ((c = s.peek()) >= 0 && is_space(c)) s.read(tok, 1);
  size_t n = 0;
  while ((c = s.peek()) >= 0 && !is_space(c)) {
    if (n == 63) return false;  // no number is this long: corrupt text
    s.read(tok + n, 1);
    ++n;
  }
  tok[n] = 0;
  return n > 0;
}

template <class T> bool parse_value(const char* tok, T* out) {
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_floating_point_v<T> || is_reduced_v<T>) {
    double v = strtod(tok, &end);
    if (end == tok || *end) return false;
    *out = T(float(v));
    if constexpr (std::is_same_v<T, double>) *out = v;
  } else {
    long long v = strtoll(tok, &end, 10);
    if (end == tok || *end || errno == ERANGE) return false;
    if constexpr (std::is_same_v<T, Bool8>) {
      out->v = uint8_t(v != 0);
    } else {
      if (v < (long long)std::numeric_limits<T>::min() || v > (long long)std::numeric_limits<T>::max()) return false;
      *out = T(v);
    }
  }
  return true;
}

template <class T> size_t read_ascii(Stream& s, T* dst, size_t n) {
  char tok[64];
  for (size_t i = 0; i < n; ++i)
    if (!read_token(s, tok) || !parse_value(tok, dst + i)) return i;
  return n;
}

void end_ascii_read(Stream& s, size_t n, Format f) {
  if (f.autospace && n > 0 && s.peek() == '\n') {
    char c;
    s.read(&c, 1);
  }
}

// Reads n values of kind K into dst (as K), binary or ascii, without the trailing newline.
template <class K> size_t read_kind(Stream& s, K* dst, size_t n, Kind k, Format f) {
  if (!f.ascii || raw_in_ascii(k)) return s.read(dst, n * sizeof(K)) / sizeof(K);
  return read_ascii(s, dst, n);
}

template <class K> void write_kind(Stream& s, const K* src, size_t n, Kind k, bool last_chunk, Format f) {
  if (n == 0) return;  // Torch7 writes nothing, not even the newline, for zero values
  if (!f.ascii) {
    s.write(src, n * sizeof(K));
  } else if (raw_in_ascii(k)) {
    s.write(src, n * sizeof(K));
    if (f.autospace && last_chunk) s.write("\n", 1);
  } else {
    write_ascii(s, src, n, last_chunk, f);
  }
}

}  // namespace

Kind arg_kind(int k, const char* op) {
  TOCHA_CHECK(k >= 0 && k < kNumKinds, op, "invalid element kind ", k);
  return Kind(k);
}

size_t kind_size(Kind k) {
  return visit_kind(k, [](auto v) { return sizeof(v); });
}

Kind native_kind(DType t) {
  switch (t) {
    case DType::f32: return Kind::f32;
    case DType::f64: return Kind::f64;
    case DType::f16: return Kind::f16;
    case DType::bf16: return Kind::bf16;
    case DType::i64: return Kind::i64;
    case DType::i32: return Kind::i32;
    case DType::i16: return Kind::i16;
    case DType::i8: return Kind::i8;
    case DType::u8: return Kind::u8;
    case DType::b8: return Kind::b8;
    default: throw_bad_dtype("io", t);
  }
}

void write_values(Stream& s, const void* src, Kind k, size_t n, Format f) {
  visit_kind(k, [&](auto v) {
    using K = decltype(v);
    write_kind(s, static_cast<const K*>(src), n, k, true, f);
  });
}

size_t read_values(Stream& s, void* dst, Kind k, size_t n, Format f) {
  return visit_kind(k, [&](auto v) {
    using K = decltype(v);
    size_t got = read_kind(s, static_cast<K*>(dst), n, k, f);
    if (f.ascii && got == n) end_ascii_read(s, n, f);
    return got;
  });
}

void write_tensor_values(Stream& s, const Tensor& t, Kind k, Format f) {
  Tensor c = t;
  if (!c.is_cpu()) {
    Tensor h = empty(t.sizes(), t.dtype(), Device{});
    copy_(h, t);
    c = h;
  }
  c = contiguous(c);
  size_t n = size_t(c.numel());
  if (n == 0) return;
  visit_dtype(c.dtype(), [&](auto tv) {
    using T = decltype(tv);
    const T* src = c.data<T>();
    visit_kind(k, [&](auto kv) {
      using K = decltype(kv);
      if constexpr (std::is_same_v<T, K>) {
        write_kind(s, src, n, k, true, f);  // same representation: no conversion
      } else {
        std::unique_ptr<K[]> buf(new K[std::min(n, kChunk)]);
        for (size_t i = 0; i < n; i += kChunk) {
          size_t m = std::min(kChunk, n - i);
          convert_n(buf.get(), src + i, m);
          write_kind(s, buf.get(), m, k, i + m == n, f);
        }
      }
    });
  });
}

size_t read_tensor_values(Stream& s, const Tensor& t, Kind k, Format f) {
  TOCHA_CHECK(t.is_cpu() && t.is_contiguous(), "io", "reading needs a contiguous CPU tensor");
  size_t n = size_t(t.numel());
  if (n == 0) return 0;
  size_t got = 0;
  visit_dtype(t.dtype(), [&](auto tv) {
    using T = decltype(tv);
    T* dst = t.data<T>();
    visit_kind(k, [&](auto kv) {
      using K = decltype(kv);
      if constexpr (std::is_same_v<T, K>) {
        got = read_kind(s, dst, n, k, f);
      } else {
        std::unique_ptr<K[]> buf(new K[std::min(n, kChunk)]);
        while (got < n) {
          size_t m = std::min(kChunk, n - got);
          size_t r = read_kind(s, buf.get(), m, k, f);
          convert_n(dst + got, buf.get(), r);
          got += r;
          if (r < m) break;
        }
      }
    });
  });
  if (f.ascii && got == n) end_ascii_read(s, n, f);
  t.bump_version();
  return got;
}

Tensor read_storage(Stream& s, int64_t n, Kind k, DType dt, Format f) {
  if (n < 0) s.fail(str_cat("corrupt data: negative element count ", n));
  uint64_t left = s.remaining();
  // Each binary value takes kind_size bytes and each ascii value at least one: a declared size
  // the stream cannot hold is corruption, found before allocating anything.
  uint64_t need = f.ascii && !raw_in_ascii(k) ? uint64_t(n) : uint64_t(n) * kind_size(k);
  if (uint64_t(n) > (uint64_t(1) << 60) || need > left)
    s.fail(str_cat("corrupt data: declares ", n, " elements (", need, " bytes) but only ", left,
                   " bytes remain (the file is truncated or corrupt)"));
  Tensor t = empty(DimVec{n}, dt, Device{});
  size_t got = read_tensor_values(s, t, k, f);
  if (got != size_t(n))
    s.fail(str_cat("unexpected end of data: read ", got, " of ", n, " elements",
                   f.ascii ? " (or text that is not a number)" : ""));
  return t;
}

}  // namespace io
}  // namespace tocha
