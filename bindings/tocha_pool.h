/* tocha_pool.h -- C ABI of the nn pooling, padding and resampling ops (core/ops/pool.h and
 * resample.h). Included by tocha.h; see its conventions. Here:
 *  - Max poolings return values and a LongTensor of indices: the flat position of each maximum in
 *    its input plane ((t*H + h)*W + w), counted from index_base (1 for Lua, 0 for C hosts).
 *  - Sizes of 3D windows are arrays of 3 in (T, H, W) order. An input size is (int ndim, sizes).
 *  - `_out` forms write into the given tensors (resized; Torch7's reused module buffers).
 *  - Backward functions compute an input gradient from an output gradient; they are
 *    differentiable themselves (second-order gradients).
 */
#ifndef TOCHA_POOL_ABI_H
#define TOCHA_POOL_ABI_H

/* ---- adaptive 2D pooling of (C x H x W) or (N x C x H x W) to oh x ow ------------------------ */
TOCHA_API int tocha_adaptive_max_pool2d(const tocha_tensor *x, int64_t oh, int64_t ow, int64_t index_base,
                                        tocha_tensor **values, tocha_tensor **indices) TOCHA_NOEXCEPT;
TOCHA_API int tocha_adaptive_max_pool2d_out(tocha_tensor *values, tocha_tensor *indices, const tocha_tensor *x,
                                            int64_t oh, int64_t ow, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_adaptive_avg_pool2d(const tocha_tensor *x, int64_t oh, int64_t ow) TOCHA_NOEXCEPT;
TOCHA_API int tocha_adaptive_avg_pool2d_out(tocha_tensor *out, const tocha_tensor *x, int64_t oh,
                                            int64_t ow) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_adaptive_avg_pool2d_backward(const tocha_tensor *grad, int ndim,
                                                           const int64_t *input_size) TOCHA_NOEXCEPT;
TOCHA_API int tocha_adaptive_avg_pool2d_backward_out(tocha_tensor *grad_input, const tocha_tensor *grad, int ndim,
                                                     const int64_t *input_size) TOCHA_NOEXCEPT;

/* ---- 3D pooling of (C x T x H x W) or (N x C x T x H x W) ------------------------------------ */
TOCHA_API int tocha_max_pool3d(const tocha_tensor *x, const int64_t *k, const int64_t *d, const int64_t *pad,
                               int ceil_mode, int64_t index_base, tocha_tensor **values,
                               tocha_tensor **indices) TOCHA_NOEXCEPT;
TOCHA_API int tocha_max_pool3d_out(tocha_tensor *values, tocha_tensor *indices, const tocha_tensor *x,
                                   const int64_t *k, const int64_t *d, const int64_t *pad, int ceil_mode,
                                   int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_avg_pool3d(const tocha_tensor *x, const int64_t *k, const int64_t *d,
                                         const int64_t *pad, int ceil_mode, int count_include_pad) TOCHA_NOEXCEPT;
TOCHA_API int tocha_avg_pool3d_out(tocha_tensor *out, const tocha_tensor *x, const int64_t *k, const int64_t *d,
                                   const int64_t *pad, int ceil_mode, int count_include_pad) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_avg_pool3d_backward(const tocha_tensor *grad, int ndim, const int64_t *input_size,
                                                  const int64_t *k, const int64_t *d, const int64_t *pad,
                                                  int ceil_mode, int count_include_pad) TOCHA_NOEXCEPT;
TOCHA_API int tocha_avg_pool3d_backward_out(tocha_tensor *grad_input, const tocha_tensor *grad, int ndim,
                                            const int64_t *input_size, const int64_t *k, const int64_t *d,
                                            const int64_t *pad, int ceil_mode, int count_include_pad) TOCHA_NOEXCEPT;

/* ---- Torch7's temporal max pooling of (T x F) or (N x T x F); indices are frames ------------- */
TOCHA_API int tocha_temporal_max_pool(const tocha_tensor *x, int64_t kw, int64_t dw, int64_t index_base,
                                      tocha_tensor **values, tocha_tensor **indices) TOCHA_NOEXCEPT;
TOCHA_API int tocha_temporal_max_pool_out(tocha_tensor *values, tocha_tensor *indices, const tocha_tensor *x,
                                          int64_t kw, int64_t dw, int64_t index_base) TOCHA_NOEXCEPT;

/* ---- the gradient of a max pooling: grad added into zeros of input_size at indices ----------- */
/* indices are flat positions in dims [first, first + count) (0-based) of each slice. */
TOCHA_API tocha_tensor *tocha_max_pool_backward(const tocha_tensor *grad, const tocha_tensor *indices, int ndim,
                                                const int64_t *input_size, int first, int count,
                                                int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API int tocha_max_pool_backward_out(tocha_tensor *grad_input, const tocha_tensor *grad,
                                          const tocha_tensor *indices, int ndim, const int64_t *input_size, int first,
                                          int count, int64_t index_base) TOCHA_NOEXCEPT;

/* ---- padding of the last 1-3 dims: mode 0 constant, 1 reflect, 2 replicate ------------------- */
/* pads: (before, after) pairs from the last dim on (2, 4 or 6 values); negative pads crop. */
TOCHA_API tocha_tensor *tocha_pad(const tocha_tensor *x, int npads, const int64_t *pads, int mode,
                                  double value) TOCHA_NOEXCEPT;
TOCHA_API int tocha_pad_out(tocha_tensor *out, const tocha_tensor *x, int npads, const int64_t *pads, int mode,
                            double value) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_pad_backward(const tocha_tensor *grad, int ndim, const int64_t *input_size, int npads,
                                           const int64_t *pads, int mode) TOCHA_NOEXCEPT;
TOCHA_API int tocha_pad_backward_out(tocha_tensor *grad_input, const tocha_tensor *grad, int ndim,
                                     const int64_t *input_size, int npads, const int64_t *pads,
                                     int mode) TOCHA_NOEXCEPT;

/* ---- 2D resampling of (C x H x W) or (N x C x H x W): mode 0 nearest, 1 bilinear -------------- */
TOCHA_API tocha_tensor *tocha_upsample2d(const tocha_tensor *x, int64_t oh, int64_t ow, int mode,
                                         int align_corners) TOCHA_NOEXCEPT;
TOCHA_API int tocha_upsample2d_out(tocha_tensor *out, const tocha_tensor *x, int64_t oh, int64_t ow, int mode,
                                   int align_corners) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_upsample2d_backward(const tocha_tensor *grad, int ndim, const int64_t *input_size,
                                                  int mode, int align_corners) TOCHA_NOEXCEPT;
TOCHA_API int tocha_upsample2d_backward_out(tocha_tensor *grad_input, const tocha_tensor *grad, int ndim,
                                            const int64_t *input_size, int mode, int align_corners) TOCHA_NOEXCEPT;

#endif
