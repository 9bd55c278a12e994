/* pg_decls.h -- the declarations that the two process-group plugins' C ABIs share (tocha_dist.h:
 * libtocha_mpi.so, prefix tocha_dist_; tocha_nccl.h: libtocha_nccl.so, prefix tocha_nccl_), as one
 * macro that each header expands with its prefix, work type and attributes. Also read by the C
 * preprocessor that generates the FFI cdef (TOCHA_CDEF), so it stays plain C.
 *
 * The operations (see each header for what its tensors must be):
 *   all_reduce(t, op), broadcast(t, root), reduce(t, root, op): in place (reduce: at root only).
 *   all_gather(out, in): out holds size * numel(in) elements; rank r's tensor lands at r * numel(in).
 *   reduce_scatter(out, in, op): in holds size * numel(out); rank r gets the reduction of block r.
 *   gather(out, in, root): out (significant at root only; NULL elsewhere) holds size * numel(in).
 *   scatter(out, in, root): in (significant at root only; NULL elsewhere) holds size * numel(out).
 *   send(t, dst, tag), recv(t, src, tag): with checks on, the receiver checks dtype and count first.
 *   barrier().
 *   fail_collective(kind): joins a collective's descriptor exchange as a rank whose arguments were
 *     invalid, so the other ranks fail too instead of waiting; the returned work fails.
 * Each returns a work handle, NULL on error (with <prefix>last_error()).
 *   wait(w): 0 when the work completed, -1 on error or timeout. test(w): 1 completed, 0 still
 *   running, -1 error. progress(): drives every pending work. work_free(w): lets go of a work. */
#ifndef TOCHA_PG_DECLS_H
#define TOCHA_PG_DECLS_H

#define TOCHA_PG_DECLARE_OPS(API, NOEXCEPT, P, WORK)                                               \
  API WORK *P##all_reduce(tocha_tensor *t, int op) NOEXCEPT;                                     \
  API WORK *P##broadcast(tocha_tensor *t, int root) NOEXCEPT;                                    \
  API WORK *P##reduce(tocha_tensor *t, int root, int op) NOEXCEPT;                               \
  API WORK *P##all_gather(tocha_tensor *out, tocha_tensor *in) NOEXCEPT;                         \
  API WORK *P##reduce_scatter(tocha_tensor *out, tocha_tensor *in, int op) NOEXCEPT;             \
  API WORK *P##gather(tocha_tensor *out, tocha_tensor *in, int root) NOEXCEPT;                   \
  API WORK *P##scatter(tocha_tensor *out, tocha_tensor *in, int root) NOEXCEPT;                  \
  API WORK *P##send(tocha_tensor *t, int dst, int tag) NOEXCEPT;                                 \
  API WORK *P##recv(tocha_tensor *t, int src, int tag) NOEXCEPT;                                 \
  API WORK *P##barrier(void) NOEXCEPT;                                                           \
  API WORK *P##fail_collective(int kind) NOEXCEPT;                                               \
  API int P##wait(WORK *w) NOEXCEPT;                                                             \
  API int P##test(WORK *w) NOEXCEPT;                                                             \
  API void P##progress(void) NOEXCEPT;                                                           \
  API void P##work_free(WORK *w) NOEXCEPT;

#endif
