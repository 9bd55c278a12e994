// mpi_backend.cpp -- libtocha_mpi.so's process state: MPI start and end, errors, and the progress
// engine that advances asynchronous works, and what a wait that times out leaves behind (the
// waiting loop itself, test and the settings are backend_entries.inc's).
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "distributed/mpi_work.h"
#include "tocha.h"

namespace tocha::dist {

State &state() {
  static State s;
  return s;
}

static thread_local std::string t_error;
void set_error(std::string msg) { t_error = std::move(msg); }

int64_t dtype_size(int dtype) {
  static const int64_t sizes[] = {4, 8, 2, 2, 8, 4, 1, 1};
  return dtype >= 0 && dtype < 8 ? sizes[dtype] : 1;
}
// bool is reduced as bytes with logical ops (Note [Reducing bool]).
MPI_Datatype mpi_dtype(int dtype) {
  switch (dtype) {
    case TOCHA_DTYPE_F32: return MPI_FLOAT;
    case TOCHA_DTYPE_F64: return MPI_DOUBLE;
    case TOCHA_DTYPE_I64: return MPI_INT64_T;
    case TOCHA_DTYPE_I32: return MPI_INT32_T;
    case TOCHA_DTYPE_U8: case TOCHA_DTYPE_BOOL: return MPI_UINT8_T;
    default: return MPI_DATATYPE_NULL;
  }
}

void post_data(tocha_dist_work *w, bool blocking);  // mpi_collectives.cpp
void check_descriptors(tocha_dist_work *w);
void recv_got_descriptor(tocha_dist_work *w);

static void destroy(tocha_dist_work *w) {
  if (w->out) tocha_tensor_release(w->out);
  if (w->in) tocha_tensor_release(w->in);
  delete w;
}

static bool done(const tocha_dist_work *w) { return w->stage == Stage::Done || w->stage == Stage::Failed; }

static void finish(tocha_dist_work *w) {
  w->stage = Stage::Done;
  if (w->out) tocha_tensor_bump_version(w->out);
}

static void mpi_failed(tocha_dist_work *w, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  w->error = std::string("[") + kind_name(w->kind) + "] MPI error: " + std::string(text, size_t(len));
  w->stage = Stage::Failed;
}

// Advances one work as far as it can go without blocking.
static void advance(tocha_dist_work *w) {
  int flag = 0;
  if (w->stage == Stage::Desc) {
    int rc = MPI_Test(&w->reqs[0], &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_failed(w, rc);
    if (!flag) return;
    if (w->kind == TOCHA_DIST_RECV) recv_got_descriptor(w);
    else check_descriptors(w);  // Queued or Failed
  }
  if (w->stage == Stage::Data) {
    int rc = MPI_Testall(3, w->reqs, &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_failed(w, rc);
    if (!flag) return;
    if (w->kind == TOCHA_DIST_SEND && state().checks && w->ack[0] != 1) {
      w->error = std::string("[send] rank ") + std::to_string(w->peer) + " expected " + std::to_string(w->ack[1]) +
                 " " + dtype_name(int(w->ack[2])) + " elements but rank " + std::to_string(state().rank) + " sent " +
                 std::to_string(w->mine.count) + " " + dtype_name(w->mine.dtype) + " (tag " + std::to_string(w->tag) + ")";
      w->stage = Stage::Failed;
    } else if (w->kind == TOCHA_DIST_RECV && !w->error.empty()) {
      w->stage = Stage::Failed;  // the mismatched message was drained into scratch
    } else {
      finish(w);
    }
  }
}

// Note [Collective order]: MPI needs every rank to start collectives on a communicator in the
// same order. Descriptors are exchanged in issue order, and a collective's data transfer is
// posted only once every collective issued before it has been posted (or has failed on every
// rank alike), so the data communicator sees the same sequence everywhere.
void progress_all() {
  State &s = state();
  for (size_t i = 0; i < s.active.size(); ++i) advance(s.active[i]);
  while (!s.order.empty()) {
    tocha_dist_work *w = s.order.front();
    if (w->stage == Stage::Desc) break;
    if (w->stage == Stage::Queued) post_data(w, w->blocking);
    s.order.pop_front();
    if (w->stage == Stage::Data) advance(w);
  }
  // Works whose owner let go are deleted once MPI no longer uses their buffers.
  size_t k = 0;
  for (tocha_dist_work *w : s.active) {
    if (done(w) && !w->stuck) {
      if (w->freed) destroy(w);
      continue;
    }
    s.active[k++] = w;
  }
  s.active.resize(k);
}

}  // namespace tocha::dist

using namespace tocha::dist;

static const char kCdef[] =
#include "tocha_dist_cdef.inc"
    ;

TOCHA_DIST_API const char *tocha_dist_cdef(void) noexcept { return kCdef; }
TOCHA_DIST_API const char *tocha_dist_last_error(void) noexcept { return t_error.c_str(); }

TOCHA_DIST_API int tocha_dist_init(int *rank, int *size, int *local_rank, int *local_size) noexcept {
  State &s = state();
  if (!s.initialized) {
    if (s.finalized) {
      set_error("[distributed.init] MPI was already finalized in this process; it cannot start again");
      return -1;
    }
    int already = 0, provided = 0;
    MPI_Initialized(&already);
    if (!already && MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      set_error("[distributed.init] MPI_Init_thread failed");
      return -1;
    }
    // Note [MPI errors return]: MPI's default handler aborts the whole job on any error; with
    // MPI_ERRORS_RETURN the failing call reports it and we raise a Lua error naming it. A process
    // that dies is another matter: mpirun (ORTE) then ends the job (see the README).
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.data);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.desc);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.ack);
    for (MPI_Comm c : {s.data, s.desc, s.ack}) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    if (const char *chunk = std::getenv("TOCHA_MPI_CHUNK_BYTES"))  // Note [All-reduce in chunks]
      if (std::atoll(chunk) > 0) s.chunk_bytes = std::atoll(chunk);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, s.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &s.local_rank);
    MPI_Comm_size(node, &s.local_size);
    MPI_Comm_free(&node);
    s.initialized = true;
    // A script that ends (or calls os.exit) without torch.distributed.finalize still finalizes.
    // Note [Plugin stays loaded]: LuaJIT closes an ffi.load'ed library when its namespace is
    // collected (lua_close), before atexit handlers and maybe before the last work finalizers
    // run; pinning it with RTLD_NODELETE keeps both pointing at mapped code.
    Dl_info self;
    if (dladdr(reinterpret_cast<void *>(&tocha_dist_init), &self) && self.dli_fname)
      dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    std::atexit([] { tocha_dist_finalize(); });
  }
  *rank = s.rank;
  *size = s.size;
  *local_rank = s.local_rank;
  *local_size = s.local_size;
  return 0;
}

TOCHA_DIST_API int tocha_dist_finalize(void) noexcept {
  State &s = state();
  if (!s.initialized) return 0;
  s.initialized = false;
  s.finalized = true;
  // A collective that timed out is still posted; finalizing would wait for it forever.
  if (s.broken) return 1;
  progress_all();
  MPI_Finalize();
  return 0;
}

TOCHA_DIST_API void tocha_dist_abort(int code) noexcept { MPI_Abort(MPI_COMM_WORLD, code); }
TOCHA_DIST_API void tocha_dist_set_blocking(int on) noexcept { state().issue_blocking = on != 0; }

// A wait passed the timeout: the work's requests stay posted, so nothing can run after it.
static void time_out(tocha_dist_work *w) {
  State &s = state();
  s.broken = true;
  w->stuck = true;  // its requests stay posted: keep its buffers alive for good
  char secs[32];
  snprintf(secs, sizeof secs, "%g", s.timeout);
  w->error = std::string("[") + kind_name(w->kind) + "] timed out after " + secs + " s on rank " +
             std::to_string(s.rank) + (w->stage == Stage::Desc ? " waiting for the other ranks to join it"
                                                                 : " waiting for the transfer to complete") +
             ": a rank may have exited, died, or be stuck elsewhere. Collectives cannot continue after this "
             "(end the job); set the limit with torch.distributed.init{timeout=...}";
  w->stage = Stage::Failed;
}

// initialized, set_timeout, set_checks, progress, test, wait, work_free: shared with the NCCL plugin.
#include "distributed/backend_entries.inc"
