/* tocha.h -- the C ABI of Tocha: the one boundary that LuaJIT's FFI and embedding hosts use.
 *
 * Conventions (DESIGN.md decisions 7 and 8):
 *  - Every function is noexcept. On failure a pointer-returning function returns NULL and an
 *    int-returning one returns -1; tocha_last_error() then holds a message that starts with the
 *    op's name ("[mm] a is 2x3 but b is 4x5") and tocha_last_error_code() a TOCHA_E* code. Both
 *    are thread-local.
 *  - A returned tocha_tensor* carries one reference that the caller owns (tocha_tensor_release).
 *    Arguments are borrowed. `_out` functions write into `out` and return 0.
 *  - Dims are 0-based (negative counts from the end). Ops that take or return index tensors
 *    take an index base (1 for Lua, 0 for C hosts).
 *  - The FFI cdef is this header preprocessed with -DTOCHA_CDEF (tocha_cdef() returns it), so
 *    the Lua bindings cannot drift from the library.
 */
#ifndef TOCHA_H
#define TOCHA_H

#ifndef TOCHA_CDEF
#include <stddef.h>
#include <stdint.h>
#endif
#include "core/tensor_header.h"

#if defined(TOCHA_CDEF)
#define TOCHA_API
#define TOCHA_NOEXCEPT
#elif defined(__cplusplus)
#define TOCHA_API extern "C" __attribute__((visibility("default")))
#define TOCHA_NOEXCEPT noexcept
#else
#define TOCHA_API extern __attribute__((visibility("default")))
#define TOCHA_NOEXCEPT
#endif

enum {
  TOCHA_DTYPE_F32 = 0, TOCHA_DTYPE_F64, TOCHA_DTYPE_F16, TOCHA_DTYPE_BF16,
  TOCHA_DTYPE_I64, TOCHA_DTYPE_I32, TOCHA_DTYPE_U8, TOCHA_DTYPE_BOOL, TOCHA_DTYPE_I8, TOCHA_DTYPE_I16
};
enum { TOCHA_DEVICE_CPU = 0, TOCHA_DEVICE_CUDA = 1 };
enum { TOCHA_OK = 0, TOCHA_EINVAL = 1, TOCHA_EOOM = 2, TOCHA_EINTERNAL = 3 };

/* A Lua tensor handle: one reference to a tensor (a struct so that t[i] reaches __index). */
typedef struct tocha_handle { tocha_tensor *p; } tocha_handle;

/* ---- library ---------------------------------------------------------------------------- */
TOCHA_API const char *tocha_version(void) TOCHA_NOEXCEPT;
/* The FFI declarations of this header, for ffi.cdef. */
TOCHA_API const char *tocha_cdef(void) TOCHA_NOEXCEPT;
TOCHA_API const char *tocha_last_error(void) TOCHA_NOEXCEPT;
TOCHA_API int tocha_last_error_code(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_set_num_threads(int n) TOCHA_NOEXCEPT;
TOCHA_API int tocha_get_num_threads(void) TOCHA_NOEXCEPT;
TOCHA_API int tocha_num_cores(void) TOCHA_NOEXCEPT;
/* f32 CPU convolutions and large f32 GEMMs on AVX-512 machines on oneDNN (torch.backends.mkldnn):
   built in; switched on (the default). */
TOCHA_API int tocha_mkldnn_available(void) TOCHA_NOEXCEPT;
TOCHA_API int tocha_mkldnn_enabled(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_mkldnn_set_enabled(int on) TOCHA_NOEXCEPT;
/* oneDNN's counters since start-up, the first n of: convolution passes it ran, passes it refused with
   an error (im2col ran them), GEMMs it computed, passes it ran as Winograd. Returns how many there are. */
TOCHA_API int tocha_mkldnn_stats(int64_t *counts, int n) TOCHA_NOEXCEPT;
/* Name of a dtype ("f32"...), or of its Torch7 tensor class ("torch.FloatTensor"). */
TOCHA_API const char *tocha_dtype_name(int dtype) TOCHA_NOEXCEPT;
TOCHA_API const char *tocha_dtype_tensor_name(int dtype) TOCHA_NOEXCEPT;
TOCHA_API int tocha_dtype_size(int dtype) TOCHA_NOEXCEPT;
TOCHA_API int tocha_default_float_dtype(void) TOCHA_NOEXCEPT;
TOCHA_API int tocha_set_default_float_dtype(int dtype) TOCHA_NOEXCEPT;
/* Result dtype of an op on two tensors of these dtypes (Note [Type promotion]). */
TOCHA_API int tocha_promote_types(int a, int b) TOCHA_NOEXCEPT;

/* The op table (core/ops.def): count, Lua names, kinds (0 UNARY, 1 UNARY_FLOAT, 2 BINARY,
   3 BINARY_FLOAT, 4 COMPARE, 5 POINTWISE, 6 OTHER, 7 UNARY_INT, 8 BINARY_INT) and whether each is differentiable. */
TOCHA_API int tocha_op_count(void) TOCHA_NOEXCEPT;
TOCHA_API const char *tocha_op_name(int op) TOCHA_NOEXCEPT;
TOCHA_API int tocha_op_kind(int op) TOCHA_NOEXCEPT;
TOCHA_API int tocha_op_differentiable(int op) TOCHA_NOEXCEPT;

/* ---- memory (DESIGN.md decision 9) ------------------------------------------------------- */
TOCHA_API int tocha_memory_gc_pending(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_memory_gc_done(void) TOCHA_NOEXCEPT;
/* tocha_memory_gc_pending: 1 a full collection is asked for, 2 an incremental step of size 8 (Note
   [Graph-driven GC steps]), k >= 3: k - 2 basic steps (Note [CPU-tensor GC steps]). */
TOCHA_API void tocha_memory_gc_step_done(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_memory_set_gc_threshold(int64_t min_bytes) TOCHA_NOEXCEPT;
TOCHA_API int64_t tocha_memory_gc_threshold(void) TOCHA_NOEXCEPT;
/* Fills live, peak, allocation count and GC requests for a device type; returns 0. */
TOCHA_API int tocha_memory_stats(int device_type, int64_t *live, int64_t *peak, int64_t *allocations,
                                 int64_t *gc_requests) TOCHA_NOEXCEPT;
/* Sets the peak of a device type's tensor bytes to the live bytes now; returns 0. */
TOCHA_API int tocha_memory_reset_peak(int device_type) TOCHA_NOEXCEPT;

#include "tocha_tensor.h"
#include "tocha_pointwise.h"
#include "tocha_reduce.h"
#include "tocha_index.h"
#include "tocha_linalg.h"
#include "tocha_products.h"
#include "tocha_random.h"
#include "tocha_serialize.h"
#include "tocha_autograd.h"
#include "tocha_pool.h"
#include "tocha_nn.h"
#include "tocha_data.h"
#include "tocha_image.h"
#include "tocha_optim.h"
#include "tocha_rnn.h"
#include "tocha_norm.h"
#include "tocha_cuda.h"
#include "tocha_conv.h"
#include "tocha_amp.h"
#include "tocha_predicates.h"
#include "tocha_arrange.h"
#include "tocha_pointwise_math.h"
#include "tocha_shape.h"
#include "tocha_linalg_ns.h"
#include "tocha_stats.h"
#include "tocha_fft.h"

#endif
