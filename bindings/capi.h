// Helpers shared by the C ABI implementation files: the exception guard that keeps every
// exception on this side of the boundary (DESIGN.md decision 8) and argument unwrapping.
#pragma once
#include <cmath>
#include <limits>
#include <new>
#include <string>
#include "core/error.h"
#include "core/interrupt.h"
#include "core/tensor.h"
#include "tocha.h"

namespace tocha {
namespace capi {

void set_error(int code, const std::string& msg);
TensorImpl* freed_sentinel();

// A tensor argument borrowed for the duration of a C ABI call: the caller holds a reference for
// as long as the call runs, so no reference is taken (two atomic operations saved per argument).
// Copying it into a Tensor takes a real reference.
class Borrowed {
 public:
  explicit Borrowed(tocha_tensor* p) : t_(Ref<TensorImpl>::adopt(static_cast<TensorImpl*>(p))) {}
  ~Borrowed() { t_.release(); }
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  operator const Tensor&() const { return t_; }  // NOLINT: used where a const Tensor& is expected
  const Tensor& get() const { return t_; }

 private:
  Tensor t_;
};

// Borrows a tensor argument; a NULL or freed handle is an error naming the op.
inline Borrowed arg(const tocha_tensor* p, const char* op) {
  if (!p) fail(op, "expected a tensor, got NULL");
  if (p == freed_sentinel()) fail(op, "tensor was freed (t:free() was called on it earlier)");
  return Borrowed(const_cast<tocha_tensor*>(p));
}
inline DType arg_dtype(int d, const char* op) {
  TOCHA_CHECK(d >= 0 && d < kNumDTypes, op, "invalid dtype ", d);
  return DType(d);
}
inline DimVec arg_dims(int n, const int64_t* v, const char* op) {
  TOCHA_CHECK(n >= 0 && n <= kMaxDims, op, "number of dimensions ", n, " is not between 0 and ", kMaxDims);
  TOCHA_CHECK(n == 0 || v, op, "sizes pointer is NULL");
  return DimVec(v, n);
}
inline Device arg_device(int type, int index, const char* op) {
  TOCHA_CHECK(type >= 0 && type < kNumDeviceTypes && index >= 0, op, "invalid device ", type, ":", index);
  return Device{DeviceType(type), index};
}

// A double handed back to Lua through an out-parameter: any NaN becomes the canonical quiet NaN of
// its sign, since LuaJIT reads some NaN payloads as other Lua values (Note [NaNs that LuaJIT reads
// as other values], lua/torch/float_read.lua). Values are otherwise unchanged.
inline double lua_number(double v) {
  return v != v ? (std::signbit(v) ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN()) : v;
}

template <class F> void catch_all(F&& f, bool* ok) noexcept {
  *ok = false;
  try {
    // A pending Ctrl-C fails the next entry point (Note [Interrupts], core/interrupt.cpp).
    if (interrupt_pending()) interrupt_check();
    f();
    *ok = true;
  } catch (const OutOfMemory& e) {
    set_error(TOCHA_EOOM, e.what());
  } catch (const Error& e) {
    set_error(TOCHA_EINVAL, e.what());
  } catch (const std::bad_alloc&) {
    set_error(TOCHA_EOOM, "[alloc] out of memory");
  } catch (const std::exception& e) {
    set_error(TOCHA_EINTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    set_error(TOCHA_EINTERNAL, "internal error: unknown exception");
  }
}

// Runs f (returning a Tensor) and hands its reference to the caller; NULL on error.
template <class F> tocha_tensor* guard_tensor(F&& f) noexcept {
  tocha_tensor* out = nullptr;
  bool ok;
  catch_all([&] { out = f().release(); }, &ok);
  return ok ? out : nullptr;
}

// Runs f (returning void); 0 on success, -1 on error.
template <class F> int guard_int(F&& f) noexcept {
  bool ok;
  catch_all(f, &ok);
  return ok ? 0 : -1;
}

}  // namespace capi
}  // namespace tocha
