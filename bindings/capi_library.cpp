// C ABI: library information, errors, threads, dtypes and memory accounting.
#include "capi.h"
#include "core/memory.h"
#include "core/op_id.h"
#include "kernels/cpu/blas_gemm_call.h"
#include "kernels/cpu/conv_onednn.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace capi {

namespace {
thread_local std::string t_error;
thread_local int t_error_code = TOCHA_OK;
}  // namespace

void set_error(int code, const std::string& msg) {
  t_error_code = code;
  t_error = msg;
}

}  // namespace capi
}  // namespace tocha

using namespace tocha;
using namespace tocha::capi;

static const char kCdef[] =
#include "tocha_cdef.inc"
    ;

const char* tocha_version(void) noexcept { return TOCHA_VERSION_STRING; }
const char* tocha_cdef(void) noexcept { return kCdef; }
const char* tocha_last_error(void) noexcept { return t_error.c_str(); }
int tocha_last_error_code(void) noexcept { return t_error_code; }

void tocha_set_num_threads(int n) noexcept { cpu::set_num_threads(n); }
int tocha_get_num_threads(void) noexcept { return cpu::get_num_threads(); }
int tocha_num_cores(void) noexcept { return cpu::num_cores(); }
int tocha_mkldnn_available(void) noexcept { return cpu::onednn_available() ? 1 : 0; }
int tocha_mkldnn_enabled(void) noexcept { return cpu::onednn_enabled() ? 1 : 0; }
void tocha_mkldnn_set_enabled(int on) noexcept { cpu::set_onednn_enabled(on != 0); }
int tocha_mkldnn_stats(int64_t* counts, int n) noexcept {
  const cpu::OnednnStats s = cpu::onednn_stats();
  const int64_t all[] = {s.ran, s.failed, cpu::onednn_gemm_count(), s.winograd};
  const int total = int(sizeof all / sizeof all[0]);
  for (int i = 0; i < n && i < total; ++i) counts[i] = all[i];
  return total;
}

const char* tocha_dtype_name(int d) noexcept { return dtype_name(DType(d)); }
const char* tocha_dtype_tensor_name(int d) noexcept { return dtype_tensor_name(DType(d)); }
int tocha_dtype_size(int d) noexcept { return int(dtype_size(DType(d))); }
int tocha_default_float_dtype(void) noexcept { return int(default_float_dtype()); }
int tocha_set_default_float_dtype(int d) noexcept {
  return guard_int([&] { set_default_float_dtype(arg_dtype(d, "setdefaulttensortype")); });
}
int tocha_promote_types(int a, int b) noexcept {
  if (a < 0 || a >= kNumDTypes || b < 0 || b >= kNumDTypes) return -1;
  return int(promote_types(DType(a), DType(b)));
}

int tocha_op_count(void) noexcept { return kNumOps; }
const char* tocha_op_name(int op) noexcept { return op >= 0 && op < kNumOps ? op_name(OpId(op)) : nullptr; }
int tocha_op_kind(int op) noexcept { return op >= 0 && op < kNumOps ? int(op_kind(OpId(op))) : -1; }
int tocha_op_differentiable(int op) noexcept { return op >= 0 && op < kNumOps && op_differentiable(OpId(op)) ? 1 : 0; }

int tocha_memory_gc_pending(void) noexcept {
  if (memory_gc_pending()) return 1;
  const int step = memory_gc_step_pending();
  return step ? 1 + step : 0;
}
void tocha_memory_gc_done(void) noexcept { memory_gc_done(); }
void tocha_memory_gc_step_done(void) noexcept { memory_gc_step_done(); }
void tocha_memory_set_gc_threshold(int64_t b) noexcept { memory_set_gc_threshold(b); }
int64_t tocha_memory_gc_threshold(void) noexcept { return memory_gc_threshold(); }
int tocha_memory_stats(int device_type, int64_t* live, int64_t* peak, int64_t* allocs, int64_t* gcs) noexcept {
  if (device_type < 0 || device_type >= kNumDeviceTypes) {
    set_error(TOCHA_EINVAL, "[memoryStats] invalid device type");
    return -1;
  }
  MemoryStats s = memory_stats(DeviceType(device_type));
  if (live) *live = s.live_bytes;
  if (peak) *peak = s.peak_bytes;
  if (allocs) *allocs = s.allocations;
  if (gcs) *gcs = s.gc_requests;
  return 0;
}
int tocha_memory_reset_peak(int device_type) noexcept {
  if (device_type < 0 || device_type >= kNumDeviceTypes) {
    set_error(TOCHA_EINVAL, "[resetPeakMemoryStats] invalid device type");
    return -1;
  }
  memory_reset_peak(DeviceType(device_type));
  return 0;
}
