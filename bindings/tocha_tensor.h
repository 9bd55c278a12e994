/* tocha_tensor.h -- C ABI: tensor lifecycle, construction, geometry, views, copies and element
 * access. Included by tocha.h; see its conventions. */
#ifndef TOCHA_TENSOR_ABI_H
#define TOCHA_TENSOR_ABI_H

/* ---- lifecycle ----------------------------------------------------------------------------- */
TOCHA_API void tocha_tensor_retain(tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API void tocha_tensor_release(tocha_tensor *t) TOCHA_NOEXCEPT;
/* Finalizer of a Lua handle: drops its reference and points it at the freed sentinel. */
TOCHA_API void tocha_handle_release(tocha_handle *h) TOCHA_NOEXCEPT;
/* The sentinel a freed handle points at; every op given it fails with "tensor was freed". */
TOCHA_API tocha_tensor *tocha_freed_tensor(void) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_use_count(const tocha_tensor *t) TOCHA_NOEXCEPT;

/* ---- construction -------------------------------------------------------------------------- */
/* Uninitialized contiguous tensor. */
TOCHA_API tocha_tensor *tocha_tensor_empty(int ndim, const int64_t *sizes, int dtype, int device_type,
                                           int device_index) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_tensor_full(int ndim, const int64_t *sizes, double value, int dtype,
                                          int device_type, int device_index) TOCHA_NOEXCEPT;
/* A view of base's storage with the given geometry (strides NULL: contiguous). */
TOCHA_API tocha_tensor *tocha_tensor_view_storage(const tocha_tensor *base, int64_t offset, int ndim,
                                                  const int64_t *sizes, const int64_t *strides) TOCHA_NOEXCEPT;
/* A new header sharing t's storage and geometry (Torch7's torch.Tensor(t)). */
TOCHA_API tocha_tensor *tocha_tensor_alias(const tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_tensor_clone(const tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_tensor_contiguous(const tocha_tensor *t) TOCHA_NOEXCEPT;
/* t converted to dtype (t itself, with a new reference, when it already has that dtype). */
TOCHA_API tocha_tensor *tocha_tensor_to_dtype(const tocha_tensor *t, int dtype) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_tensor_to_device(const tocha_tensor *t, int device_type, int device_index) TOCHA_NOEXCEPT;
/* Wraps host memory without copying; deleter(data, ctx) runs when the last reference goes. */
TOCHA_API tocha_tensor *tocha_tensor_from_blob(void *data, int ndim, const int64_t *sizes, const int64_t *strides,
                                               int dtype, void (*deleter)(void *data, void *ctx),
                                               void *ctx) TOCHA_NOEXCEPT;

/* ---- in-place geometry (Torch7 resize/set) ------------------------------------------------- */
TOCHA_API int tocha_tensor_resize(tocha_tensor *t, int ndim, const int64_t *sizes) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_set(tocha_tensor *t, const tocha_tensor *src) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_set_storage(tocha_tensor *t, const tocha_tensor *storage_of, int64_t offset, int ndim,
                                       const int64_t *sizes, const int64_t *strides) TOCHA_NOEXCEPT;
/* Number of elements the storage under t can hold. */
TOCHA_API int64_t tocha_tensor_storage_size(const tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_same_storage(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;

/* ---- data ---------------------------------------------------------------------------------- */
TOCHA_API int tocha_tensor_copy(tocha_tensor *dst, const tocha_tensor *src) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_fill(tocha_tensor *t, double value) TOCHA_NOEXCEPT;
/* Element number `linear` (0-based, row-major) as a double, on any device. */
TOCHA_API int tocha_tensor_get_item(const tocha_tensor *t, int64_t linear, double *value) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_set_item(tocha_tensor *t, int64_t linear, double value) TOCHA_NOEXCEPT;
/* The element at `offset` elements from the start of t's storage (for f16/bf16 and devices). */
TOCHA_API int tocha_tensor_get_at(const tocha_tensor *t, int64_t offset, double *value) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_set_at(tocha_tensor *t, int64_t offset, double value) TOCHA_NOEXCEPT;
/* Records an in-place write done by a caller through the data pointer (Note [Version counter]). */
TOCHA_API void tocha_tensor_bump_version(tocha_tensor *t) TOCHA_NOEXCEPT;
/* Address of t's first element in host memory (CPU tensors; NULL with an error otherwise, or
   NULL for an empty storage). Element (i, j, ...) is at data + i*stride[0] + j*stride[1] + ...
   elements. Valid while the host holds a reference to t (or to a tensor sharing its storage) and
   nobody grows the storage (resize to more elements, set); copy it when in doubt. */
TOCHA_API void *tocha_tensor_data(const tocha_tensor *t) TOCHA_NOEXCEPT;
/* 1 when every element of a equals b's and the sizes match (Torch7 equal), 0 if not, -1 on error. */
TOCHA_API int tocha_tensor_equal(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;

/* ---- views --------------------------------------------------------------------------------- */
TOCHA_API tocha_tensor *tocha_narrow(const tocha_tensor *t, int dim, int64_t start, int64_t length) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_select(const tocha_tensor *t, int dim, int64_t index) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_transpose(const tocha_tensor *t, int d1, int d2) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_permute(const tocha_tensor *t, int ndim, const int64_t *dims) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_view(const tocha_tensor *t, int ndim, const int64_t *sizes) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_reshape(const tocha_tensor *t, int ndim, const int64_t *sizes) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_expand(const tocha_tensor *t, int ndim, const int64_t *sizes) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_unfold(const tocha_tensor *t, int dim, int64_t size, int64_t step) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_squeeze(const tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_squeeze_dim(const tocha_tensor *t, int dim) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_unsqueeze(const tocha_tensor *t, int dim) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_as_strided(const tocha_tensor *t, int ndim, const int64_t *sizes,
                                         const int64_t *strides, int64_t offset) TOCHA_NOEXCEPT;

#endif
