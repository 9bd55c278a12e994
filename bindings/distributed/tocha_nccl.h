/* tocha_nccl.h -- C ABI of torch.distributed's NCCL backend and of the single-process multi-GPU
 * communicator of nn.DataParallelTable: the plugin libtocha_nccl.so, built only when CUDA and NCCL
 * are found and loaded by lua/torch/distributed.lua (backend 'nccl') or lua/nn/DataParallelTable.lua.
 *
 * Tensors must be contiguous CUDA tensors on the communicator's device. Collectives take the same
 * arguments as tocha_dist.h's (same TOCHA_REDUCE_* and TOCHA_DIST_* numbers) and return a work
 * handle (NULL on error, with tocha_nccl_last_error()); its NCCL call runs on the plugin's own
 * stream, after the work already queued on Tocha's compute stream when it was issued, and waiting
 * for it makes the compute stream wait for it (Note [NCCL streams]). Unless checks are off, a
 * descriptor is exchanged over MPI before each operation, so ranks that disagree fail with an error
 * instead of hanging the GPUs (Note [NCCL descriptor checks]). Ranks are 0-based. */
#ifndef TOCHA_NCCL_H
#define TOCHA_NCCL_H

#ifndef TOCHA_CDEF
#include <stdint.h>
#include "core/tensor_header.h"
#include "distributed/tocha_dist.h"
#define TOCHA_NCCL_API extern "C" __attribute__((visibility("default")))
#define TOCHA_NCCL_NOEXCEPT noexcept
/* Tocha's compute stream of a CUDA device (a cudaStream_t; NULL when there is no such device):
 * exported by libtocha for this plugin (kernels/cuda/nccl_glue.cpp), not part of tocha.h. */
extern "C" void *tocha_cuda_compute_stream(int device) noexcept;
#else
#define TOCHA_NCCL_API
#define TOCHA_NCCL_NOEXCEPT
#endif
#include "pg_decls.h"

typedef struct tocha_nccl_work tocha_nccl_work;
typedef struct tocha_nccl_local tocha_nccl_local;

/* The declarations of this header as text, for ffi.cdef. */
TOCHA_NCCL_API const char *tocha_nccl_cdef(void) TOCHA_NCCL_NOEXCEPT;
TOCHA_NCCL_API const char *tocha_nccl_last_error(void) TOCHA_NCCL_NOEXCEPT;
/* NCCL's version code (e.g. 22809 for 2.28.9). */
TOCHA_NCCL_API int tocha_nccl_version(void) TOCHA_NCCL_NOEXCEPT;

/* ---- the process-group backend (one GPU per rank, bootstrapped over MPI) ------------------- */
/* Needs MPI initialized (tocha_dist_init): rank 0 creates NCCL's unique id, MPI broadcasts it (with
 * the timeout) and every rank joins the communicator on CUDA device `device`. */
TOCHA_NCCL_API int tocha_nccl_init(int device, double timeout) TOCHA_NCCL_NOEXCEPT;
TOCHA_NCCL_API int tocha_nccl_initialized(void) TOCHA_NCCL_NOEXCEPT;
/* The communicator's CUDA device (-1 before init). */
TOCHA_NCCL_API int tocha_nccl_device(void) TOCHA_NCCL_NOEXCEPT;
/* Waits for pending works (within the timeout), then destroys the communicator; 1 when it had to
 * abort it instead. MPI is left to tocha_dist_finalize. */
TOCHA_NCCL_API int tocha_nccl_finalize(void) TOCHA_NCCL_NOEXCEPT;
/* Seconds a wait may take before the communicator is aborted and the wait fails (<= 0: forever). */
TOCHA_NCCL_API void tocha_nccl_set_timeout(double seconds) TOCHA_NCCL_NOEXCEPT;
/* Descriptor checks before each operation (1 on, the default; 0 off). */
TOCHA_NCCL_API void tocha_nccl_set_checks(int on) TOCHA_NCCL_NOEXCEPT;

/* The operations (pg_decls.h documents them): with checks on, the NCCL send is queued only once
 * the receiver has accepted dtype and count; barrier is an all-reduce of one element (NCCL has
 * none); a failed or timed-out wait aborts the communicator; progress advances descriptor
 * exchanges and launches the operations whose turn has come. */
TOCHA_PG_DECLARE_OPS(TOCHA_NCCL_API, TOCHA_NCCL_NOEXCEPT, tocha_nccl_, tocha_nccl_work)

/* ---- one process, several GPUs (nn.DataParallelTable) ----------------------------------------- */
/* ncclCommInitAll over n distinct CUDA devices. */
TOCHA_NCCL_API tocha_nccl_local *tocha_nccl_local_new(int n, const int *devices) TOCHA_NCCL_NOEXCEPT;
TOCHA_NCCL_API void tocha_nccl_local_free(tocha_nccl_local *c) TOCHA_NCCL_NOEXCEPT;
/* ts[i] lives on the communicator's device i; all have the same dtype and element count. The
 * operations are queued on each device's compute stream (ordered with Tocha's kernels there, no
 * host synchronization). Reduce and broadcast: root is an index into ts (0-based). */
TOCHA_NCCL_API int tocha_nccl_local_all_reduce(tocha_nccl_local *c, tocha_tensor **ts, int n, int op) TOCHA_NCCL_NOEXCEPT;
TOCHA_NCCL_API int tocha_nccl_local_reduce(tocha_nccl_local *c, tocha_tensor **ts, int n, int root, int op) TOCHA_NCCL_NOEXCEPT;
TOCHA_NCCL_API int tocha_nccl_local_broadcast(tocha_nccl_local *c, tocha_tensor **ts, int n, int root) TOCHA_NCCL_NOEXCEPT;

#endif
