// nccl_backend.cpp -- libtocha_nccl.so's process state: joining the NCCL communicator (unique id
// bootstrapped over MPI), errors, and the progress engine that exchanges descriptors, launches
// operations in order, and what a wait that times out does (aborts the communicator instead of
// hanging when a rank is gone; the waiting loop itself, test and the settings are
// backend_entries.inc's).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "distributed/nccl_work.h"
#include "tocha.h"

namespace tocha::nccl {

State &state() {
  static State s;
  return s;
}

void launch_batch(const std::vector<tocha_nccl_work *> &batch);  // nccl_collectives.cpp
void check_descriptors(tocha_nccl_work *w);
void recv_got_descriptor(tocha_nccl_work *w);
void send_got_ack(tocha_nccl_work *w);

static bool done(const tocha_nccl_work *w) { return w->stage == Stage::Done || w->stage == Stage::Failed; }

// MPI no longer reads or writes the work's descriptor and acknowledgement buffers.
static bool mpi_idle(tocha_nccl_work *w) {
  int flag = 1;
  MPI_Testall(2, w->reqs, &flag, MPI_STATUSES_IGNORE);
  return flag != 0;
}

static void destroy(tocha_nccl_work *w) {
  if (w->out) tocha_tensor_release(w->out);
  if (w->in) tocha_tensor_release(w->in);
  if (w->ready) cudaEventDestroy(w->ready);
  if (w->done) cudaEventDestroy(w->done);
  delete w;
}

static void fail(tocha_nccl_work *w, std::string msg) {
  w->error = std::move(msg);
  w->stage = Stage::Failed;
}

// Note [NCCL streams]: the compute stream waits for the NCCL stream only here, once the work is
// complete, not at launch: kernels queued after an async collective (the rest of a backward) then
// overlap with it. Host code that waited has already seen the event fire, so this wait is free;
// it keeps the ordering explicit for the allocator's same-stream reuse rule.
static void finish(tocha_nccl_work *w) {
  State &s = state();
  DeviceScope g(s.device);
  cudaStreamWaitEvent(s.compute, w->done, 0);
  w->stage = Stage::Done;
  if (w->out) tocha_tensor_bump_version(w->out);
}

// The communicator failed or timed out: abort it so that no kernel waits for a peer forever.
static void abort_comm() {
  State &s = state();
  s.broken = true;
  if (s.comm) {
    DeviceScope g(s.device);
    ncclCommAbort(s.comm);
    s.comm = nullptr;
  }
}

static void advance(tocha_nccl_work *w) {
  State &s = state();
  if (w->stage == Stage::Desc) {
    int flag = 0;
    int rc = MPI_Testall(2, w->reqs, &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return fail(w, std::string("[") + kind_name(w->kind) + "] MPI error in the descriptor exchange");
    if (!flag) return;
    if (w->kind == TOCHA_DIST_RECV) recv_got_descriptor(w);
    else if (w->kind == TOCHA_DIST_SEND) send_got_ack(w);
    else check_descriptors(w);  // Queued or Failed
  }
  if (w->stage == Stage::Launched) {
    DeviceScope g(s.device);
    cudaError_t e = cudaEventQuery(w->done);
    if (e == cudaSuccess) return finish(w);
    if (e != cudaErrorNotReady) {
      fail(w, cuda_message(kind_name(w->kind), e));
      return abort_comm();
    }
    ncclResult_t async = ncclSuccess;
    if (s.comm && ncclCommGetAsyncError(s.comm, &async) == ncclSuccess && async != ncclSuccess &&
        async != ncclInProgress) {
      fail(w, nccl_message(kind_name(w->kind), async, s.comm) + " on rank " + std::to_string(s.rank) +
                  "; the NCCL communicator was aborted (end the job)");
      abort_comm();
    }
  }
}

// Note [NCCL launch order]: NCCL needs every rank to launch the operations of a communicator in
// the same order. Descriptors are exchanged in issue order, and an operation is launched only
// once every operation issued before it has been launched (or has failed on every rank alike).
void progress_all() {
  State &s = state();
  for (size_t i = 0; i < s.active.size(); ++i) advance(s.active[i]);
  std::vector<tocha_nccl_work *> batch;
  while (!s.order.empty()) {
    tocha_nccl_work *w = s.order.front();
    if (w->stage == Stage::Desc) break;
    if (w->stage == Stage::Queued) {
      if (s.broken) fail(w, std::string("[") + kind_name(w->kind) + "] the NCCL communicator was aborted by an earlier error");
      else batch.push_back(w);
    }
    s.order.pop_front();
  }
  if (!batch.empty()) {
    launch_batch(batch);
    for (tocha_nccl_work *w : batch) advance(w);
  }
  size_t k = 0;
  for (tocha_nccl_work *w : s.active) {
    if (done(w) && !w->stuck && mpi_idle(w)) {
      if (w->freed) destroy(w);
      continue;
    }
    s.active[k++] = w;
  }
  s.active.resize(k);
}

// Polls an MPI request until it completes or the timeout passes (init only).
static bool wait_request(MPI_Request *req, double timeout) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  int flag = 0;
  while (true) {
    if (MPI_Test(req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (flag) return true;
    if (timeout > 0 && std::chrono::duration<double>(clock::now() - start).count() > timeout) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

}  // namespace tocha::nccl

using namespace tocha::nccl;

// Note [NCCL bootstrap]: ncclCommInitRank blocks until every rank joins, with no timeout. So each
// rank first checks what it can alone (MPI running, the device, Tocha's stream) and the ranks
// agree over MPI, with the timeout, that all can go on; rank 0 then broadcasts the unique id
// (again with the timeout) and only then do the ranks enter NCCL.
TOCHA_NCCL_API int tocha_nccl_init(int device, double timeout) noexcept {
  State &s = state();
  const char *op = "distributed.init";
  if (s.initialized) {
    if (device == s.device) return 0;
    set_error(std::string("[") + op + "] NCCL already runs on cuda:" + std::to_string(s.device) +
              "; it cannot move to cuda:" + std::to_string(device));
    return -1;
  }
  if (s.broken) {
    set_error(std::string("[") + op + "] an earlier NCCL communicator failed; NCCL cannot start again in this process");
    return -1;
  }
  int mpi_up = 0;
  MPI_Initialized(&mpi_up);
  if (!mpi_up) {
    set_error(std::string("[") + op + "] the NCCL backend bootstraps over MPI, which is not running");
    return -1;
  }
  s.timeout = timeout;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  std::string local;
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    cudaGetLastError();
    local = "backend 'nccl' needs a CUDA device; " +
            (e != cudaSuccess ? std::string(cudaGetErrorString(e)) : std::string("the driver reports 0 devices"));
  } else if (device < 0 || device >= ndev) {
    local = "device " + std::to_string(device) + " is not a CUDA device (0.." + std::to_string(ndev - 1) + ")";
  } else if (!(s.compute = static_cast<cudaStream_t>(tocha_cuda_compute_stream(device)))) {
    local = "Tocha has no compute stream on cuda:" + std::to_string(device) + " (was libtocha built with CUDA?)";
  } else {
    // Everything that can fail alone happens before the ranks agree to enter NCCL.
    DeviceScope g(device);
    if (!s.stream) e = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
    if (e == cudaSuccess && !s.scratch) e = cudaMalloc(&s.scratch, 16);
    if (e == cudaSuccess) e = cudaMemsetAsync(s.scratch, 0, 16, s.stream);  // the barrier's operand
    if (e != cudaSuccess) local = cuda_message(op, e).substr(std::strlen(op) + 3);
  }
  if (s.desc == MPI_COMM_NULL) {
    MPI_Comm_dup(MPI_COMM_WORLD, &s.desc);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.ack);
    MPI_Comm_set_errhandler(s.desc, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(s.ack, MPI_ERRORS_RETURN);
  }
  // Every rank says whether it can go on; rank 0 adds the id.
  struct Hello {
    int32_t ok;
    char id[NCCL_UNIQUE_ID_BYTES];
  };
  std::vector<int32_t> oks(size_t(s.size), 0);
  int32_t ok = local.empty() ? 1 : 0;
  MPI_Request req;
  MPI_Iallgather(&ok, 1, MPI_INT32_T, oks.data(), 1, MPI_INT32_T, s.desc, &req);
  if (!wait_request(&req, timeout)) {
    s.broken = true;
    set_error(std::string("[") + op + "] timed out on rank " + std::to_string(s.rank) +
              " waiting for the other ranks to start NCCL");
    return -1;
  }
  std::string bad;
  for (int r = 0; r < s.size; ++r)
    if (!oks[size_t(r)]) bad += (bad.empty() ? "" : ", ") + std::to_string(r);
  if (!local.empty()) {
    set_error(std::string("[") + op + "] " + local);
    return -1;
  }
  if (!bad.empty()) {
    set_error(std::string("[") + op + "] rank(s) " + bad + " could not start NCCL (see the error on those ranks)");
    return -1;
  }
  Hello hello{};
  if (s.rank == 0) {
    ncclUniqueId id;
    ncclResult_t r = ncclGetUniqueId(&id);
    hello.ok = r == ncclSuccess ? 1 : 0;
    if (r != ncclSuccess) local = nccl_message(op, r, nullptr);
    else std::memcpy(hello.id, id.internal, NCCL_UNIQUE_ID_BYTES);
  }
  MPI_Ibcast(&hello, sizeof hello, MPI_BYTE, 0, s.desc, &req);
  if (!wait_request(&req, timeout)) {
    s.broken = true;
    set_error(std::string("[") + op + "] timed out on rank " + std::to_string(s.rank) + " waiting for NCCL's unique id");
    return -1;
  }
  if (!hello.ok) {
    set_error(s.rank == 0 ? local : std::string("[") + op + "] rank 0 could not create NCCL's unique id");
    return -1;
  }
  ncclUniqueId id;
  std::memcpy(id.internal, hello.id, NCCL_UNIQUE_ID_BYTES);
  DeviceScope g(device);
  ncclResult_t r = ncclCommInitRank(&s.comm, s.size, id, s.rank);
  if (r != ncclSuccess) {
    set_error(nccl_message(op, r, nullptr));
    s.comm = nullptr;
    return -1;
  }
  s.device = device;
  s.initialized = true;
  pin_plugin();
  return 0;
}

TOCHA_NCCL_API int tocha_nccl_device(void) noexcept { return state().initialized ? state().device : -1; }

// A wait passed the timeout: fail it and abort the communicator so no kernel waits forever.
static void time_out(tocha_nccl_work *w) {
  State &s = state();
  bool launched = w->stage == Stage::Launched;
  w->stuck = true;  // its requests or kernels may still touch its buffers: keep them for good
  char secs[32];
  snprintf(secs, sizeof secs, "%g", s.timeout);
  fail(w, std::string("[") + kind_name(w->kind) + "] timed out after " + secs + " s on rank " +
              std::to_string(s.rank) +
              (launched ? " waiting for the NCCL transfer to complete" : " waiting for the other ranks to join it") +
              ": a rank may have exited, died, or be stuck elsewhere. The NCCL communicator was aborted (end the "
              "job); set the limit with torch.distributed.init{timeout=...}");
  abort_comm();
}

// initialized, set_timeout, set_checks, progress, test, wait, work_free: shared with the MPI plugin.
#include "distributed/backend_entries.inc"

TOCHA_NCCL_API int tocha_nccl_finalize(void) noexcept {
  State &s = state();
  if (!s.initialized) return 0;
  // Pending works (freed ones included) finish first, within the timeout; then the comm goes.
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  while (!s.broken) {
    progress_all();
    bool pending = false;
    for (tocha_nccl_work *w : s.active) pending = pending || !done(w);
    if (!pending) break;
    if (s.timeout > 0 && std::chrono::duration<double>(clock::now() - start).count() > s.timeout) {
      abort_comm();
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  s.initialized = false;
  DeviceScope g(s.device);
  int rc = 0;
  if (s.comm) {
    if (s.broken) ncclCommAbort(s.comm);
    else ncclCommDestroy(s.comm);
    s.comm = nullptr;
  } else {
    rc = 1;
  }
  if (s.stream) cudaStreamDestroy(s.stream);
  if (s.scratch) cudaFree(s.scratch);
  s.stream = nullptr;
  s.scratch = nullptr;
  s.device = -1;
  s.broken = true;  // NCCL does not start twice in one process (its unique id is spent)
  return rc;
}
