/* The read-only part of a tensor that the C ABI exposes (bindings/tocha.h includes this file).
   LuaJIT reads sizes, strides and the data pointer straight from it; C++ extends it in
   TensorImpl (core/tensor.h). Fields are const in the FFI view so Lua cannot write them. */
#ifndef TOCHA_TENSOR_HEADER_H
#define TOCHA_TENSOR_HEADER_H

#ifdef TOCHA_CDEF
#define TOCHA_RO const
#else
#include <stdint.h>
#define TOCHA_RO
#endif

#define TOCHA_MAX_DIMS 16

/* Storage: the data pointer may change when a storage is resized, so tensors reach it through
   the storage rather than caching it (a cached pointer would dangle in the other views). */
typedef struct tocha_storage_view {
  TOCHA_RO char *data;
  TOCHA_RO int64_t nbytes;
} tocha_storage_view;

enum { TOCHA_FLAG_CONTIGUOUS = 1, TOCHA_FLAG_REQUIRES_GRAD = 2 };

typedef struct tocha_tensor {
  TOCHA_RO int32_t ndim;
  TOCHA_RO int32_t dtype;          /* TOCHA_DTYPE_* */
  TOCHA_RO int32_t device_type;    /* TOCHA_DEVICE_* */
  TOCHA_RO int32_t device_index;
  TOCHA_RO int64_t numel;
  TOCHA_RO int64_t storage_offset; /* in elements, 0-based */
  TOCHA_RO tocha_storage_view *storage;
  TOCHA_RO int32_t flags;          /* TOCHA_FLAG_* */
  TOCHA_RO int32_t elsize;         /* bytes per element */
  TOCHA_RO int64_t size[TOCHA_MAX_DIMS];
  TOCHA_RO int64_t stride[TOCHA_MAX_DIMS];
} tocha_tensor;

#endif
