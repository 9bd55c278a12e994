/* tocha_cuda.h -- C ABI of the device runtime (torch.cuda): availability, devices, properties,
 * synchronization and the caching allocator's counters. Included by tocha.h; see its conventions.
 * Every function works in a build without CUDA: there are then no devices, and calls that need one
 * fail with a message saying Tocha was built without CUDA. */
#ifndef TOCHA_CUDA_ABI_H
#define TOCHA_CUDA_ABI_H

typedef struct tocha_device_properties {
  char name[256];
  int64_t total_memory;
  int major, minor;
  int multiprocessors;
  int warp_size;
  int max_threads_per_block;
  int64_t shared_memory_per_block;
} tocha_device_properties;

/* The caching allocator's counters of one device (bytes unless said otherwise). */
typedef struct tocha_cuda_memory_stats {
  int64_t allocated_bytes, requested_bytes, reserved_bytes, cached_bytes;
  int64_t peak_allocated_bytes, peak_reserved_bytes;
  int64_t device_allocs, device_frees, cache_hits, oom_retries, ooms;
} tocha_cuda_mem_stats;

/* 1 when this library was built with the CUDA backend. */
TOCHA_API int tocha_cuda_is_built(void) TOCHA_NOEXCEPT;
/* Devices present (0 without a driver, a device, or the backend); never fails. */
TOCHA_API int tocha_cuda_device_count(void) TOCHA_NOEXCEPT;
/* Why there is no device ("" when there is one). */
TOCHA_API const char *tocha_cuda_unavailable_reason(void) TOCHA_NOEXCEPT;
/* The current device index, or -1 on error. */
TOCHA_API int tocha_cuda_current_device(void) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cuda_set_device(int device) TOCHA_NOEXCEPT;
/* Waits for all work queued on the device (device < 0: the current one). */
TOCHA_API int tocha_cuda_synchronize(int device) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cuda_device_properties(int device, tocha_device_properties *out) TOCHA_NOEXCEPT;
/* Releases every cached (free) block of every device back to the driver. */
TOCHA_API int tocha_cuda_empty_cache(void) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cuda_memory_stats(int device, tocha_cuda_mem_stats *out) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cuda_reset_peak_stats(int device) TOCHA_NOEXCEPT;
/* Seeds the Philox generator of one CUDA device (device < 0: every device, now and later). */
TOCHA_API int tocha_cuda_manual_seed(int device, uint64_t seed) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cuda_initial_seed(int device, uint64_t *seed) TOCHA_NOEXCEPT;
/* The whole state of one device's Philox generator (its seed and the counter offset of the next
   fill), read and restored (torch.cuda.getRNGState/setRNGState); like seeding, works before any
   GPU use. */
TOCHA_API int tocha_cuda_get_rng_state(int device, uint64_t *seed, uint64_t *offset) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cuda_set_rng_state(int device, uint64_t seed, uint64_t offset) TOCHA_NOEXCEPT;
/* torch.backends.cuda.allowTF32: TF32 tensor-core math for f32 matmuls (off by default). */
TOCHA_API int tocha_cuda_allow_tf32(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_cuda_set_allow_tf32(int on) TOCHA_NOEXCEPT;
/* torch.backends.cudnn.benchmark: time cuDNN's convolution algorithms once per shape (off by default). */
TOCHA_API int tocha_cudnn_benchmark(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_cudnn_set_benchmark(int on) TOCHA_NOEXCEPT;
/* torch.backends.cudnn.graphAPI: convolutions through cuDNN's graph API and engine heuristics
   first (off by default; TOCHA_CUDNN_GRAPH=1 in the environment turns it on at start-up). */
TOCHA_API int tocha_cudnn_graph_api(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_cudnn_set_graph_api(int on) TOCHA_NOEXCEPT;
/* How many convolution shapes got an execution plan of the graph API, and how many went to the
   legacy API because no engine took them, since start-up. */
TOCHA_API void tocha_cudnn_graph_stats(int64_t *plans, int64_t *legacy) TOCHA_NOEXCEPT;

#endif
