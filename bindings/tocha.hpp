// tocha.hpp -- a thin header-only C++ wrapper over the embedding API (tocha_embed.h): RAII for
// interpreters and tensors, exceptions instead of error codes. Everything here calls the C API;
// nothing of Tocha's C++ core is exposed.
//
//   tocha::Interpreter lua;                        // torch loaded
//   lua.run_file("model.lua");
//   float pixels[784] = {...};
//   auto x = tocha::Tensor::from_blob(pixels, {1, 784});   // no copy
//   auto y = lua.call("predict", {x});             // std::vector<tocha::Value>
//   std::cout << y[0].number() << "\n";
#pragma once
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tocha_embed.h"

namespace tocha {

// An error reported by the C API (code is TOCHA_E*; a Lua error's message has its traceback).
class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr int value = TOCHA_DTYPE_F32; };
template <> struct DTypeOf<double> { static constexpr int value = TOCHA_DTYPE_F64; };
template <> struct DTypeOf<int64_t> { static constexpr int value = TOCHA_DTYPE_I64; };
template <> struct DTypeOf<int32_t> { static constexpr int value = TOCHA_DTYPE_I32; };
template <> struct DTypeOf<int16_t> { static constexpr int value = TOCHA_DTYPE_I16; };
template <> struct DTypeOf<int8_t> { static constexpr int value = TOCHA_DTYPE_I8; };
template <> struct DTypeOf<uint8_t> { static constexpr int value = TOCHA_DTYPE_U8; };

// One reference to a tensor (copying adds a reference; the tensor's data is shared).
class Tensor {
 public:
  Tensor() = default;
  // Takes over one reference (what the C API returns).
  static Tensor adopt(tocha_tensor* t) {
    if (!t) throw Error(tocha_last_error_code(), tocha_last_error());
    Tensor r;
    r.t_ = t;
    return r;
  }
  // Wraps host memory without copying (row-major when strides is empty). The memory must outlive
  // every use of the tensor (Lua included), unless a deleter frees it when the last reference goes.
  template <class T>
  static Tensor from_blob(T* data, std::vector<int64_t> sizes, std::vector<int64_t> strides = {},
                          void (*deleter)(void*, void*) = nullptr, void* ctx = nullptr) {
    return adopt(tocha_tensor_from_blob(data, int(sizes.size()), sizes.data(),
                                        strides.empty() ? nullptr : strides.data(), DTypeOf<T>::value, deleter, ctx));
  }
  Tensor(const Tensor& o) : t_(o.t_) { if (t_) tocha_tensor_retain(t_); }
  Tensor(Tensor&& o) noexcept : t_(std::exchange(o.t_, nullptr)) {}
  Tensor& operator=(Tensor o) noexcept {
    std::swap(t_, o.t_);
    return *this;
  }
  ~Tensor() { if (t_) tocha_tensor_release(t_); }

  tocha_tensor* get() const { return t_; }
  explicit operator bool() const { return t_ != nullptr; }
  // An empty Tensor (default-constructed or moved from) throws instead of dereferencing NULL.
  int dim() const { return checked()->ndim; }
  // d is 0-based (C++ side); out of range throws.
  int64_t size(int d) const {
    if (d < 0 || d >= checked()->ndim)
      throw Error(TOCHA_EINVAL, "Tensor::size: dim " + std::to_string(d) + " out of range for a " +
                                    std::to_string(t_->ndim) + "-d tensor");
    return t_->size[d];
  }
  int64_t numel() const { return checked()->numel; }
  int dtype() const { return checked()->dtype; }
  // The first element's address (see tocha_tensor_data for the lifetime rules); T must match dtype.
  template <class T> T* data() const {
    if (DTypeOf<T>::value != checked()->dtype) throw Error(TOCHA_EINVAL, std::string("tensor has dtype ") + tocha_dtype_name(t_->dtype));
    return static_cast<T*>(tocha_tensor_data(t_));
  }

 private:
  const tocha_tensor* checked() const {
    if (!t_) throw Error(TOCHA_EINVAL, "empty tocha::Tensor (default-constructed or moved from)");
    return t_;
  }
  tocha_tensor* t_ = nullptr;
};

// A value passed to or returned from Lua.
class Value {
 public:
  Value() : v_(tocha_value_nil()) {}
  // Any arithmetic type but bool is a Lua number (int64_t and size_t included, which plain
  // double/int overloads made ambiguous); bool is a Lua boolean (it used to promote to int and
  // arrive as the number 1). Templates, so that pointers do not convert to bool silently.
  template <class N, typename std::enable_if<std::is_arithmetic<N>::value && !std::is_same<N, bool>::value,
                                             int>::type = 0>
  Value(N x) : v_(tocha_value_number(double(x))) {}  // NOLINT: implicit on purpose
  template <class B, typename std::enable_if<std::is_same<B, bool>::value, int>::type = 0>
  Value(B b) : v_(tocha_value_nil()) {  // NOLINT
    v_.type = TOCHA_VALUE_BOOLEAN;
    v_.boolean = b ? 1 : 0;
  }
  Value(const char* s) : str_(checked(s)), v_(tocha_value_string(nullptr)) {}  // NOLINT
  Value(std::string s) : str_(std::move(s)), v_(tocha_value_string(nullptr)) {}  // NOLINT
  Value(Tensor t) : tensor_(std::move(t)), v_(tocha_value_tensor(nullptr)) {}  // NOLINT
  static Value from_c(tocha_value& v) {  // takes over v's tensor reference and copies its string
    Value r;
    r.v_.type = v.type;
    r.v_.boolean = v.boolean;
    r.v_.number = v.number;
    if (v.type == TOCHA_VALUE_STRING) r.str_ = v.string;
    if (v.type == TOCHA_VALUE_TENSOR) r.tensor_ = Tensor::adopt(std::exchange(v.tensor, nullptr));
    v = tocha_value_nil();
    return r;
  }

  int type() const { return v_.type; }
  bool is_nil() const { return v_.type == TOCHA_VALUE_NIL; }
  double number() const { expect(TOCHA_VALUE_NUMBER, "a number"); return v_.number; }
  bool boolean() const { expect(TOCHA_VALUE_BOOLEAN, "a boolean"); return v_.boolean != 0; }
  const std::string& string() const { expect(TOCHA_VALUE_STRING, "a string"); return str_; }
  const Tensor& tensor() const { expect(TOCHA_VALUE_TENSOR, "a tensor"); return tensor_; }
  // The C view (valid while this Value lives).
  tocha_value c() const {
    tocha_value v = v_;
    if (v.type == TOCHA_VALUE_STRING) v.string = str_.c_str();
    if (v.type == TOCHA_VALUE_TENSOR) v.tensor = tensor_.get();
    return v;
  }

 private:
  static const char* checked(const char* s) {  // std::string(NULL) is undefined behaviour
    if (!s) throw Error(TOCHA_EINVAL, "string value is NULL");
    return s;
  }
  void expect(int type, const char* what) const {
    if (v_.type != type) throw Error(TOCHA_EINVAL, std::string("value is not ") + what);
  }
  std::string str_;
  Tensor tensor_;
  tocha_value v_;
};

// An interpreter (one thread at a time; see tocha_embed.h).
class Interpreter {
 public:
  explicit Interpreter(const char* lua_dir = nullptr) : I_(tocha_interp_new(lua_dir)) {
    if (!I_) throw Error(tocha_last_error_code(), tocha_last_error());
  }
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;
  ~Interpreter() { tocha_interp_free(I_); }

  void run(const std::string& code, const char* chunkname = nullptr) {
    check(tocha_interp_run_string(I_, code.c_str(), chunkname));
  }
  void run_file(const std::string& path, const std::vector<std::string>& args = {}) {
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    check(tocha_interp_run_file(I_, path.c_str(), int(argv.size()), argv.data()));
  }
  std::vector<Value> call(const std::string& name, std::initializer_list<Value> args = {}, int nresults = 1) {
    std::vector<tocha_value> in;
    for (const Value& a : args) in.push_back(a.c());
    std::vector<tocha_value> out(size_t(nresults > 0 ? nresults : 0));
    check(tocha_interp_call(I_, name.c_str(), in.data(), int(in.size()), out.data(), nresults));
    std::vector<Value> r;
    for (auto& v : out) r.push_back(Value::from_c(v));
    return r;
  }
  void set(const std::string& name, const Value& v) {
    tocha_value c = v.c();
    check(tocha_interp_set_global(I_, name.c_str(), &c));
  }
  Value get(const std::string& name) {
    tocha_value v = tocha_value_nil();
    check(tocha_interp_get_global(I_, name.c_str(), &v));
    return Value::from_c(v);
  }
  tocha_interp* get_c() const { return I_; }

 private:
  void check(int rc) {
    if (rc != TOCHA_OK) throw Error(rc, rc == TOCHA_ELUA ? tocha_interp_error(I_) : tocha_last_error());
  }
  tocha_interp* I_;
};

}  // namespace tocha
