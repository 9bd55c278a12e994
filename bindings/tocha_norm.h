/* tocha_norm.h -- C ABI of the normalization ops (core/ops/norm.h). Included by tocha.h; see its
 * conventions. Optional tensors (weight, bias, running statistics, results) may be NULL; flags
 * are ints (non-zero: true). Batch normalization normalizes dim 1 (channels) of N x C x ... */
#ifndef TOCHA_NORM_ABI_H
#define TOCHA_NORM_ABI_H

/* Returns the normalized x; in training the batch statistics are used and running_mean and
   running_var (when given) are updated in place with Torch7's momentum convention; otherwise the
   running statistics are used. save_mean and save_invstd, when not NULL, receive new tensors
   holding the per-channel mean and 1 / sqrt(var + eps) that were used. Differentiable. */
TOCHA_API tocha_tensor *tocha_batch_norm(const tocha_tensor *x, const tocha_tensor *weight, const tocha_tensor *bias,
                                         tocha_tensor *running_mean, tocha_tensor *running_var, int training,
                                         double momentum, double eps, tocha_tensor **save_mean,
                                         tocha_tensor **save_invstd) TOCHA_NOEXCEPT;
/* The same into out (resized like x), save_mean and save_invstd (resized to C). */
TOCHA_API int tocha_batch_norm_out(tocha_tensor *out, tocha_tensor *save_mean, tocha_tensor *save_invstd,
                                   const tocha_tensor *x, const tocha_tensor *weight, const tocha_tensor *bias,
                                   tocha_tensor *running_mean, tocha_tensor *running_var, int training,
                                   double momentum, double eps) TOCHA_NOEXCEPT;
/* Gradients of batch normalization from the saved mean and invstd. The _out form writes
   grad_input (resized) and adds scale times the parameter gradients into grad_weight and
   grad_bias (each may be NULL). The other stores new tensors through the non-NULL pointers. */
TOCHA_API int tocha_batch_norm_backward_out(tocha_tensor *grad_input, tocha_tensor *grad_weight,
                                            tocha_tensor *grad_bias, const tocha_tensor *grad_output,
                                            const tocha_tensor *x, const tocha_tensor *weight,
                                            const tocha_tensor *save_mean, const tocha_tensor *save_invstd,
                                            int training, double scale) TOCHA_NOEXCEPT;
TOCHA_API int tocha_batch_norm_backward(const tocha_tensor *grad_output, const tocha_tensor *x,
                                        const tocha_tensor *weight, const tocha_tensor *save_mean,
                                        const tocha_tensor *save_invstd, int training, tocha_tensor **grad_input,
                                        tocha_tensor **grad_weight, tocha_tensor **grad_bias) TOCHA_NOEXCEPT;

/* Layer normalization over the last ndims dims (tocha_layer_norm, in tocha_autograd.h, returns
   just the output): the _out form also fills save_mean and save_invstd (one per normalized row);
   the backward forms follow batch normalization's. */
TOCHA_API int tocha_layer_norm_out(tocha_tensor *out, tocha_tensor *save_mean, tocha_tensor *save_invstd,
                                   const tocha_tensor *x, int ndims, const tocha_tensor *weight,
                                   const tocha_tensor *bias, double eps) TOCHA_NOEXCEPT;
TOCHA_API int tocha_layer_norm_backward_out(tocha_tensor *grad_input, tocha_tensor *grad_weight,
                                            tocha_tensor *grad_bias, const tocha_tensor *grad_output,
                                            const tocha_tensor *x, int ndims, const tocha_tensor *weight,
                                            const tocha_tensor *save_mean, const tocha_tensor *save_invstd,
                                            double scale) TOCHA_NOEXCEPT;

#endif
