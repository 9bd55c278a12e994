/* tocha_data.h -- C ABI of the data module: dataset file readers and the data loader's worker
 * threads (DESIGN.md decision 10; lua/data/). Included by tocha.h; see its conventions. */
#ifndef TOCHA_DATA_ABI_H
#define TOCHA_DATA_ABI_H

/* ---- readers ------------------------------------------------------------------------------- */
/* A file's bytes as a 1D u8 tensor, decompressed when it is gzip (*gzip set to 1 then; may be
   NULL). Errors name the file: missing, unreadable, truncated gzip. */
TOCHA_API tocha_tensor *tocha_data_read_file(const char *path, int *gzip) TOCHA_NOEXCEPT;
/* An IDX file (MNIST format, gzip or not) as a tensor: u8, i8, i16, i32 (unsigned byte, signed byte, short, int), f32 or
   f64. Truncation, a bad magic or trailing bytes are errors naming the file and byte offset. */
TOCHA_API tocha_tensor *tocha_data_read_idx(const char *path) TOCHA_NOEXCEPT;

/* The entries of a directory (without . and ..), sorted by name, each as a type letter ('d'
   directory, 'f' anything else, links followed) then the name then a NUL byte; *len gets the total
   length. The buffer is thread-local and valid until the next call. NULL on error. */
TOCHA_API const char *tocha_data_list_dir(const char *path, int64_t *len) TOCHA_NOEXCEPT;

/* ---- data loader ------------------------------------------------------------------------------ */
/* A loader: `workers` threads, each with a private Lua state (package.path/cpath as given) that
   runs require('data.worker').start(spec, worker_number); `capacity` bounds the results ready
   or in progress ahead of the consumer. The workers share `tensors` (retained, never copied). */
typedef struct tocha_loader tocha_loader;
TOCHA_API tocha_loader *tocha_loader_new(int workers, int capacity, const char *path, const char *cpath,
                                         const char *spec, int64_t spec_len, int ntensors,
                                         tocha_tensor *const *tensors) TOCHA_NOEXCEPT;
/* Stops the workers (after the sample each is working on) and joins them. */
TOCHA_API void tocha_loader_free(tocha_loader *l) TOCHA_NOEXCEPT;
/* Queues a task (an encoded list of sample indices); returns its number (0, 1, ...) or -1. */
TOCHA_API int64_t tocha_loader_push(tocha_loader *l, const char *task, int64_t len) TOCHA_NOEXCEPT;
/* Waits for the next result in task order; -1 with the worker's error and traceback (or an
   interrupt) in tocha_last_error(). Then tocha_loader_result gives its encoded value and
   tocha_loader_result_tensor(i) its tensors (new references; i from 0 to count - 1). */
TOCHA_API int tocha_loader_next(tocha_loader *l) TOCHA_NOEXCEPT;
/* tocha_loader_next waiting at most timeout_s seconds (0: no limit); then -1 with a timeout error. */
TOCHA_API int tocha_loader_next_timeout(tocha_loader *l, double timeout_s) TOCHA_NOEXCEPT;
TOCHA_API const char *tocha_loader_result(tocha_loader *l, int64_t *len, int *ntensors) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_loader_result_tensor(tocha_loader *l, int i) TOCHA_NOEXCEPT;
/* Drops queued tasks and undelivered results (an epoch abandoned early). */
TOCHA_API int tocha_loader_reset(tocha_loader *l) TOCHA_NOEXCEPT;
/* Tasks pushed and not yet delivered. */
TOCHA_API int64_t tocha_loader_pending(tocha_loader *l) TOCHA_NOEXCEPT;

/* Worker side (called from lua/data/worker.lua inside a worker state): its number (0 outside a
   worker), the loader's shared tensor i (a new reference), adding a tensor to the result being
   built (retained), and whether the loader is shutting down. */
TOCHA_API int tocha_loader_worker_id(void) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_loader_worker_input(int i) TOCHA_NOEXCEPT;
TOCHA_API int tocha_loader_worker_put(const tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API int tocha_loader_worker_stopping(void) TOCHA_NOEXCEPT;

#endif
