/* tocha_amp.h -- C ABI of mixed precision and pinned memory (issue 9): the thread-local autocast
 * state (Note [Autocast] in core/autocast.cpp), pinned host tensors and asynchronous copies
 * (core/pinned_memory.h). Included by tocha.h; see its conventions. Builds without CUDA answer
 * too: autocast works for CPU tensors, and pinned memory is an error naming the missing backend. */
#ifndef TOCHA_AMP_ABI_H
#define TOCHA_AMP_ABI_H

/* Turns autocast on (enabled 1, with dtype TOCHA_DTYPE_F16 or TOCHA_DTYPE_BF16) or off for one
   device type (0 cpu, 1 cuda) on the calling thread. */
TOCHA_API int tocha_autocast_set(int device_type, int enabled, int dtype) TOCHA_NOEXCEPT;
/* 1 when autocast is on for the device type, 0 when off, -1 for a bad device type; *dtype (if not
   NULL) receives its dtype. */
TOCHA_API int tocha_autocast_get(int device_type, int *dtype) TOCHA_NOEXCEPT;

/* An uninitialized contiguous CPU tensor in pinned (page-locked) host memory. */
TOCHA_API tocha_tensor *tocha_tensor_empty_pinned(int ndim, const int64_t *sizes, int dtype) TOCHA_NOEXCEPT;
/* A contiguous pinned copy of a CPU tensor (a new reference to t when it is pinned already). */
TOCHA_API tocha_tensor *tocha_tensor_pin_memory(const tocha_tensor *t) TOCHA_NOEXCEPT;
/* 1 when t's memory is pinned host memory, 0 otherwise (-1 for a bad handle). */
TOCHA_API int tocha_tensor_is_pinned(const tocha_tensor *t) TOCHA_NOEXCEPT;
/* dst <- src, queued on the device's stream without waiting when one is pinned host memory and
   the other on a CUDA device (same dtype and sizes, contiguous); otherwise an ordinary copy. */
TOCHA_API int tocha_tensor_copy_async(tocha_tensor *dst, const tocha_tensor *src) TOCHA_NOEXCEPT;

#endif
