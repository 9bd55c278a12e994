/* tocha_conv.h -- C ABI of the neural-network ops: convolutions over 1-3 spatial dims (with their two
 * adjoints, the transposed convolution and the weight gradient) and 2-D max and average pooling.
 * Included by tocha.h; see its conventions. Layouts are channels-first (N x C x spatial, or
 * C x spatial for one sample); see core/ops/conv.h and core/ops/pool2d.h for sizes and rules. */
#ifndef TOCHA_CONV_ABI_H
#define TOCHA_CONV_ABI_H

/* Per spatial dim, in the order depth, height, width; the first nd entries are used. */
typedef struct tocha_conv_options {
  int32_t nd;
  int32_t groups;
  int64_t stride[3];
  int64_t padding[3];
  int64_t dilation[3];
  int64_t output_padding[3]; /* transposed convolution only */
} tocha_conv_options;

/* conv(input, weight) + bias; weight is out x in/groups x kernel; bias may be NULL. */
TOCHA_API tocha_tensor *tocha_conv(const tocha_tensor *input, const tocha_tensor *weight, const tocha_tensor *bias,
                                   const tocha_conv_options *o) TOCHA_NOEXCEPT;
TOCHA_API int tocha_conv_out(tocha_tensor *out, const tocha_tensor *input, const tocha_tensor *weight,
                             const tocha_tensor *bias, const tocha_conv_options *o) TOCHA_NOEXCEPT;
/* The transposed convolution; weight is in x out/groups x kernel; bias may be NULL. */
TOCHA_API tocha_tensor *tocha_conv_transpose(const tocha_tensor *input, const tocha_tensor *weight,
                                             const tocha_tensor *bias, const tocha_conv_options *o) TOCHA_NOEXCEPT;
TOCHA_API int tocha_conv_transpose_out(tocha_tensor *out, const tocha_tensor *input, const tocha_tensor *weight,
                                       const tocha_tensor *bias, const tocha_conv_options *o) TOCHA_NOEXCEPT;
/* The gradient of conv with respect to its weight; kernel holds nd sizes. */
TOCHA_API tocha_tensor *tocha_conv_weight(const tocha_tensor *input, const tocha_tensor *grad_output,
                                          const int64_t *kernel, const tocha_conv_options *o) TOCHA_NOEXCEPT;
/* grad_weight = beta * grad_weight + alpha * the weight gradient (never recorded: nn accumulators);
   grad_bias (may be NULL: one value per channel of grad_output) = beta * grad_bias + alpha * grad_output
   summed over all dims but the channel dim, read in the same pass where the kernel can. */
TOCHA_API int tocha_conv_weight_acc(tocha_tensor *grad_weight, tocha_tensor *grad_bias, const tocha_tensor *input,
                                    const tocha_tensor *grad_output, const tocha_conv_options *o, double alpha,
                                    double beta) TOCHA_NOEXCEPT;
/* grad_bias += alpha * grad_output summed over all dims but the channel dim (never recorded). */
TOCHA_API int tocha_conv_bias_acc(tocha_tensor *grad_bias, const tocha_tensor *grad_output, int nd,
                                  double alpha) TOCHA_NOEXCEPT;

/* 2-D pooling options: (height, width) pairs. */
typedef struct tocha_pool_options {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int32_t ceil_mode;
  int32_t count_include_pad; /* average pooling: divide by the padded window size */
} tocha_pool_options;

/* Max pooling: *values and *indices (LongTensor, flat positions in the plane plus index_base). */
TOCHA_API int tocha_max_pool2d(const tocha_tensor *input, const tocha_pool_options *o, int64_t index_base,
                               tocha_tensor **values, tocha_tensor **indices) TOCHA_NOEXCEPT;
TOCHA_API int tocha_max_pool2d_out(tocha_tensor *values, tocha_tensor *indices, const tocha_tensor *input,
                                   const tocha_pool_options *o, int64_t index_base) TOCHA_NOEXCEPT;
/* The gradient of max pooling for an input of the given size (ndim 3 or 4). windows: the options
   the indices were computed with, or NULL when unknown (indices from elsewhere); with them, kernels
   may gather per input element when windows cannot overlap. */
TOCHA_API tocha_tensor *tocha_max_pool2d_backward(const tocha_tensor *grad_output, const tocha_tensor *indices,
                                                  int ndim, const int64_t *input_size, int64_t index_base,
                                                  const tocha_pool_options *windows) TOCHA_NOEXCEPT;
TOCHA_API int tocha_max_pool2d_backward_out(tocha_tensor *grad_input, const tocha_tensor *grad_output,
                                            const tocha_tensor *indices, int ndim, const int64_t *input_size,
                                            int64_t index_base, const tocha_pool_options *windows) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_avg_pool2d(const tocha_tensor *input, const tocha_pool_options *o) TOCHA_NOEXCEPT;
TOCHA_API int tocha_avg_pool2d_out(tocha_tensor *out, const tocha_tensor *input,
                                   const tocha_pool_options *o) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_avg_pool2d_backward(const tocha_tensor *grad_output, int ndim,
                                                  const int64_t *input_size,
                                                  const tocha_pool_options *o) TOCHA_NOEXCEPT;
TOCHA_API int tocha_avg_pool2d_backward_out(tocha_tensor *grad_input, const tocha_tensor *grad_output, int ndim,
                                            const int64_t *input_size, const tocha_pool_options *o) TOCHA_NOEXCEPT;

#endif
