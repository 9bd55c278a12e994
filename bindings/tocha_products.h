/* tocha_products.h -- C ABI of PyTorch's product functions built on the BLAS ops: matmul, outer,
 * tensordot and einsum (core/ops/matmul.h, core/ops/einsum.h). Included by tocha.h; see its
 * conventions. Operands share one dtype and device, as for mm; every result is a new tensor. */
#ifndef TOCHA_PRODUCTS_ABI_H
#define TOCHA_PRODUCTS_ABI_H

/* PyTorch's matmul: dot (0-dim result), mv, mm, or one batched product whose batch dims broadcast
   (10x1x3x4 with 5x4x2 gives 10x5x3x2). The _out form resizes out; out may alias a or b. */
TOCHA_API tocha_tensor *tocha_matmul(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API int tocha_matmul_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
/* The outer product of two 1D tensors (ger). */
TOCHA_API tocha_tensor *tocha_outer(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API int tocha_outer_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
/* The last n dims of a summed against the first n of b. */
TOCHA_API tocha_tensor *tocha_tensordot(const tocha_tensor *a, const tocha_tensor *b, int n) TOCHA_NOEXCEPT;
/* a's dims dims_a[i] summed against b's dims dims_b[i], i < ndims (0-based, negative from the end). */
TOCHA_API tocha_tensor *tocha_tensordot_dims(const tocha_tensor *a, const tocha_tensor *b, int ndims,
                                             const int64_t *dims_a, const int64_t *dims_b) TOCHA_NOEXCEPT;
/* Einstein summation over n operands ("bij,bjk->bik"; labels a-z A-Z, '...', implicit output). */
TOCHA_API tocha_tensor *tocha_einsum(const char *equation, int n, const tocha_tensor **operands) TOCHA_NOEXCEPT;

#endif
