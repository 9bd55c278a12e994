/* tocha_dist.h -- C ABI of torch.distributed's MPI backend: the plugin library libtocha_mpi.so,
 * loaded by lua/torch/distributed.lua only when a script calls torch.distributed.init, so that
 * libtocha itself never depends on MPI.
 *
 * Tensors must be contiguous CPU tensors of an MPI-native dtype (f32, f64, i64, i32, u8, bool);
 * the Lua side converts f16/bf16 and averages. Collectives are asynchronous: each returns a work
 * handle (NULL on error, with tocha_dist_last_error()) that holds references to its tensors until
 * tocha_dist_work_free; tocha_dist_wait blocks until it completes or the timeout passes.
 * Unless checks are off, every collective first exchanges a small descriptor (kind, dtype, count,
 * root, op) so that ranks calling different collectives, or the same one with different sizes or
 * dtypes, all fail with an error naming the ranks instead of hanging or corrupting memory.
 * Ranks are 0-based, as in MPI. */
#ifndef TOCHA_DIST_H
#define TOCHA_DIST_H

#ifndef TOCHA_CDEF
#include <stdint.h>
#include "core/tensor_header.h"
#define TOCHA_DIST_API extern "C" __attribute__((visibility("default")))
#define TOCHA_DIST_NOEXCEPT noexcept
#else
#define TOCHA_DIST_API
#define TOCHA_DIST_NOEXCEPT
#endif
#include "pg_decls.h"

enum { TOCHA_REDUCE_SUM = 0, TOCHA_REDUCE_PROD, TOCHA_REDUCE_MAX, TOCHA_REDUCE_MIN };
/* The operations, as descriptors name them (tocha_dist_fail_collective takes one). */
enum {
  TOCHA_DIST_ALL_REDUCE = 1, TOCHA_DIST_BROADCAST, TOCHA_DIST_REDUCE, TOCHA_DIST_ALL_GATHER,
  TOCHA_DIST_REDUCE_SCATTER, TOCHA_DIST_GATHER, TOCHA_DIST_SCATTER, TOCHA_DIST_BARRIER,
  TOCHA_DIST_SEND, TOCHA_DIST_RECV
};

typedef struct tocha_dist_work tocha_dist_work;

/* The declarations of this header as text, for ffi.cdef. */
TOCHA_DIST_API const char *tocha_dist_cdef(void) TOCHA_DIST_NOEXCEPT;
TOCHA_DIST_API const char *tocha_dist_last_error(void) TOCHA_DIST_NOEXCEPT;
/* MPI_Init_thread (once); fills rank, world size and the rank among those on this host. */
TOCHA_DIST_API int tocha_dist_init(int *rank, int *size, int *local_rank, int *local_size) TOCHA_DIST_NOEXCEPT;
TOCHA_DIST_API int tocha_dist_initialized(void) TOCHA_DIST_NOEXCEPT;
/* MPI_Finalize (skipped, with 1 returned, after a timeout left a collective pending). */
TOCHA_DIST_API int tocha_dist_finalize(void) TOCHA_DIST_NOEXCEPT;
/* MPI_Abort on the world communicator: ends every rank of the job. */
TOCHA_DIST_API void tocha_dist_abort(int code) TOCHA_DIST_NOEXCEPT;
/* Seconds a wait may take before it fails (default 300; <= 0: forever). */
TOCHA_DIST_API void tocha_dist_set_timeout(double seconds) TOCHA_DIST_NOEXCEPT;
/* Descriptor checks before each collective (1 on, the default; 0 off). */
TOCHA_DIST_API void tocha_dist_set_checks(int on) TOCHA_DIST_NOEXCEPT;
/* Marks the next collective as waited for at once: when every rank marked it (and checks are on)
 * it runs as a blocking MPI call, OpenMPI's faster path. Each collective clears the mark. */
TOCHA_DIST_API void tocha_dist_set_blocking(int on) TOCHA_DIST_NOEXCEPT;

/* The operations (pg_decls.h documents them): with checks on, a send completes once the receiver
 * has checked dtype and count; wait and test drive MPI progress. */
TOCHA_PG_DECLARE_OPS(TOCHA_DIST_API, TOCHA_DIST_NOEXCEPT, tocha_dist_, tocha_dist_work)

#endif
