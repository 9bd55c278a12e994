/* tocha_nn.h -- C ABI of the fused ops behind nn's criterions (core/ops/loss.h). Included by
 * tocha.h; see its conventions. */
#ifndef TOCHA_NN_ABI_H
#define TOCHA_NN_ABI_H

/* Class losses: input is N x C scores (or a vector of C), target N class numbers offset by base
 * (1 from Lua), weight NULL or one weight per class; a target equal to ignore_index adds nothing.
 * nll_loss reads log-probabilities, cross_entropy raw scores. Returns a 0-dim tensor. */
TOCHA_API tocha_tensor *tocha_nll_loss(const tocha_tensor *input, const tocha_tensor *target,
                                       const tocha_tensor *weight, int size_average, int64_t ignore_index,
                                       int64_t base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_cross_entropy(const tocha_tensor *input, const tocha_tensor *target,
                                            const tocha_tensor *weight, int size_average, int64_t ignore_index,
                                            int64_t base) TOCHA_NOEXCEPT;
/* Their gradients with respect to input, times grad (not recorded by autograd). */
TOCHA_API tocha_tensor *tocha_nll_loss_backward(double grad, const tocha_tensor *input, const tocha_tensor *target,
                                                const tocha_tensor *weight, int size_average,
                                                int64_t ignore_index, int64_t base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_cross_entropy_backward(double grad, const tocha_tensor *input,
                                                     const tocha_tensor *target, const tocha_tensor *weight,
                                                     int size_average, int64_t ignore_index,
                                                     int64_t base) TOCHA_NOEXCEPT;
/* Either gradient (cross_entropy 0: nll_loss) written into out, resized to the input's size; out
 * must have the input's dtype and device. Returns 0, or -1 with the error set. */
TOCHA_API int tocha_class_loss_backward_out(tocha_tensor *out, int cross_entropy, double grad,
                                            const tocha_tensor *input, const tocha_tensor *target,
                                            const tocha_tensor *weight, int size_average, int64_t ignore_index,
                                            int64_t base) TOCHA_NOEXCEPT;

#endif
