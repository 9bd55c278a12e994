// nccl_collectives.cpp -- the operations of libtocha_nccl.so's process-group backend: the
// NCCL-specific argument checks (CUDA tensors on the communicator's device), the descriptor
// exchange over MPI that catches ranks disagreeing, and the NCCL calls on the plugin's stream
// (gather and scatter as grouped sends and receives: NCCL has neither). The exported entry
// points are collective_entries.inc's.
#include <cstdio>

#include "distributed/nccl_work.h"
#include "tocha.h"

namespace tocha::nccl {

void progress_all();  // nccl_backend.cpp

// Note [NCCL descriptor checks]: as the MPI plugin's Note [Descriptor exchange], every rank
// gathers every rank's descriptor (over MPI) and reaches the same verdict: all launch the NCCL
// call, or none does and all fail with the same message. A mismatched NCCL call would not fail:
// it would hang the GPUs or read past a buffer.
void check_descriptors(tocha_nccl_work *w) {
  State &s = state();
  if (!w->error.empty()) {  // this rank failed locally (start): its own message wins
    w->stage = Stage::Failed;
    return;
  }
  std::string err = tocha::pg::verdict(w->kind, w->all.data(), s.size);
  if (!err.empty()) {
    w->error = err;
    w->stage = Stage::Failed;
    return;
  }
  w->stage = Stage::Queued;
}

// A receive learned what the sender sends: it answers, and both launch only if they agree.
void recv_got_descriptor(tocha_nccl_work *w) {
  State &s = state();
  const Desc &theirs = w->all[0];
  bool ok = theirs.dtype == w->mine.dtype && theirs.count == w->mine.count && !theirs.invalid && !w->mine.invalid;
  w->ack[0] = ok ? 1 : 0;
  w->ack[1] = w->mine.count;
  w->ack[2] = w->mine.dtype;
  MPI_Isend(w->ack, 3, MPI_INT64_T, w->peer, w->tag, s.ack, &w->reqs[1]);
  if (ok) {
    w->stage = Stage::Queued;
    return;
  }
  if (!w->error.empty()) {
    w->stage = Stage::Failed;
    return;
  }
  w->error = "[recv] rank " + std::to_string(w->peer) + " sent " + std::to_string(theirs.count) + " " +
             dtype_name(theirs.dtype) + " elements but rank " + std::to_string(s.rank) + " expected " +
             std::to_string(w->mine.count) + " " + dtype_name(w->mine.dtype) + " (tag " + std::to_string(w->tag) + ")";
  w->stage = Stage::Failed;
}

void send_got_ack(tocha_nccl_work *w) {
  if (w->ack[0] == 1 && w->error.empty()) {
    w->stage = Stage::Queued;
    return;
  }
  if (!w->error.empty()) {
    w->stage = Stage::Failed;
    return;
  }
  w->error = std::string("[send] rank ") + std::to_string(w->peer) + " expected " + std::to_string(w->ack[1]) + " " +
             dtype_name(int(w->ack[2])) + " elements but rank " + std::to_string(state().rank) + " sent " +
             std::to_string(w->mine.count) + " " + dtype_name(w->mine.dtype) + " (tag " + std::to_string(w->tag) + ")";
  w->stage = Stage::Failed;
}

// Queues w's NCCL call on the NCCL stream behind the compute stream's work at issue time (inside
// a group, NCCL launches it at ncclGroupEnd); false, with w failed, on error.
static bool enqueue(tocha_nccl_work *w) {
  State &s = state();
  const Desc &d = w->mine;
  const char *name = kind_name(w->kind);
  DeviceScope g(s.device);
  cudaError_t e = cudaStreamWaitEvent(s.stream, w->ready, 0);
  if (e != cudaSuccess) {
    w->error = cuda_message(name, e);
    w->stage = Stage::Failed;
    return false;
  }
  auto dt = ncclDataType_t(d.kind == TOCHA_DIST_BARRIER ? ncclFloat32 : nccl_dtype(d.dtype));
  ncclRedOp_t op = nccl_op(d.op, d.dtype);
  size_t n = size_t(d.count);
  size_t bytes = n * size_t(d.dtype >= 0 ? (w->out ? w->out->elsize : w->in->elsize) : 4);
  char *out = static_cast<char *>(device_ptr(w->out));
  char *in = static_cast<char *>(device_ptr(w->in));
  bool root = s.rank == d.root;
  ncclResult_t r = ncclSuccess;
  if (n > 0 || d.kind == TOCHA_DIST_BARRIER) {
    switch (w->kind) {
      case TOCHA_DIST_ALL_REDUCE: r = ncclAllReduce(out, out, n, dt, op, s.comm, s.stream); break;
      case TOCHA_DIST_BROADCAST: r = ncclBroadcast(out, out, n, dt, d.root, s.comm, s.stream); break;
      case TOCHA_DIST_REDUCE: r = ncclReduce(out, out, n, dt, op, d.root, s.comm, s.stream); break;
      case TOCHA_DIST_ALL_GATHER: r = ncclAllGather(in, out, n, dt, s.comm, s.stream); break;
      case TOCHA_DIST_REDUCE_SCATTER: r = ncclReduceScatter(in, out, n, dt, op, s.comm, s.stream); break;
      case TOCHA_DIST_BARRIER: r = ncclAllReduce(s.scratch, s.scratch, 1, ncclFloat32, ncclSum, s.comm, s.stream); break;
      case TOCHA_DIST_SEND: r = ncclSend(in, n, dt, w->peer, s.comm, s.stream); break;
      case TOCHA_DIST_RECV: r = ncclRecv(out, n, dt, w->peer, s.comm, s.stream); break;
      case TOCHA_DIST_GATHER:
      case TOCHA_DIST_SCATTER: {
        bool gather = w->kind == TOCHA_DIST_GATHER;
        r = ncclGroupStart();
        if (r != ncclSuccess) break;
        if (!root) {
          r = gather ? ncclSend(in, n, dt, d.root, s.comm, s.stream) : ncclRecv(out, n, dt, d.root, s.comm, s.stream);
        } else {
          for (int p = 0; p < s.size && r == ncclSuccess && e == cudaSuccess; ++p) {
            char *block = (gather ? out : in) + size_t(p) * bytes;
            if (p == s.rank)
              e = gather ? cudaMemcpyAsync(block, in, bytes, cudaMemcpyDeviceToDevice, s.stream)
                         : cudaMemcpyAsync(out, block, bytes, cudaMemcpyDeviceToDevice, s.stream);
            else
              r = gather ? ncclRecv(block, n, dt, p, s.comm, s.stream) : ncclSend(block, n, dt, p, s.comm, s.stream);
          }
        }
        ncclResult_t end = ncclGroupEnd();  // always closes the group, even after an error
        if (r == ncclSuccess) r = end;
        break;
      }
    }
  }
  if (r != ncclSuccess || e != cudaSuccess) {
    w->error = r != ncclSuccess ? nccl_message(name, r, s.comm) : cuda_message(name, e);
    w->stage = Stage::Failed;
    return false;
  }
  return true;
}

// After the NCCL call was launched: the event that tells its completion.
static void mark_launched(tocha_nccl_work *w) {
  State &s = state();
  DeviceScope g(s.device);
  cudaError_t e = cudaEventRecord(w->done, s.stream);
  if (e != cudaSuccess) {
    w->error = cuda_message(kind_name(w->kind), e);
    w->stage = Stage::Failed;
    return;
  }
  w->stage = Stage::Launched;
}

static bool p2p(const tocha_nccl_work *w) { return w->kind == TOCHA_DIST_SEND || w->kind == TOCHA_DIST_RECV; }

// Note [NCCL p2p groups]: a send and a receive queued on one stream one after the other can
// deadlock (each rank's send waits for the peer's receive, queued behind the peer's send), so
// consecutive sends and receives that are ready together launch as one NCCL group, as
// torch.distributed.batch_isend_irecv does. Collectives launch one by one, in issue order.
void launch_batch(const std::vector<tocha_nccl_work *> &batch) {
  State &s = state();
  for (size_t i = 0; i < batch.size();) {
    if (!p2p(batch[i])) {
      if (enqueue(batch[i])) mark_launched(batch[i]);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < batch.size() && p2p(batch[j])) ++j;
    DeviceScope g(s.device);
    ncclResult_t r = ncclGroupStart();
    std::vector<bool> queued(j - i, false);
    for (size_t k = i; k < j && r == ncclSuccess; ++k) queued[k - i] = enqueue(batch[k]);
    ncclResult_t end = r == ncclSuccess ? ncclGroupEnd() : r;
    for (size_t k = i; k < j; ++k) {
      if (!queued[k - i]) continue;
      if (end == ncclSuccess) {
        mark_launched(batch[k]);
      } else {
        batch[k]->error = nccl_message(kind_name(batch[k]->kind), end, s.comm);
        batch[k]->stage = Stage::Failed;
      }
    }
    i = j;
  }
}

}  // namespace tocha::nccl

using namespace tocha::nccl;

namespace {

bool check_tensor(const char *op, const char *what, tocha_tensor *t) {
  State &s = state();
  char buf[320];
  if (!t || t == tocha_freed_tensor()) {
    snprintf(buf, sizeof buf, "[%s] %s is %s", op, what, t ? "a freed tensor" : "missing");
  } else if (t->device_type != TOCHA_DEVICE_CUDA) {
    snprintf(buf, sizeof buf, "[%s] %s is on the CPU; the NCCL backend takes CUDA tensors (on cuda:%d)", op, what, s.device);
  } else if (t->device_index != s.device) {
    snprintf(buf, sizeof buf, "[%s] %s is on cuda:%d but this rank's NCCL communicator is on cuda:%d", op, what,
             t->device_index, s.device);
  } else if (!(t->flags & TOCHA_FLAG_CONTIGUOUS)) {
    snprintf(buf, sizeof buf, "[%s] %s is not contiguous (call :contiguous() first)", op, what);
  } else if (nccl_dtype(t->dtype) < 0) {
    snprintf(buf, sizeof buf, "[%s] %s has dtype %s, which NCCL cannot carry", op, what, dtype_name(t->dtype));
  } else {
    return true;
  }
  set_error(buf);
  return false;
}

// What usable() (collective_entries.inc) says before init and after a failure.
const char kNotInitialized[] = "the NCCL backend is not initialized (call torch.distributed.init{backend='nccl'} first)";
const char kBroken[] = "an earlier NCCL operation failed or timed out; the communicator was aborted and collectives "
                       "cannot continue (end the job)";

// Registers a new work: records where the compute stream stands, then exchanges its descriptor
// (checks on) or queues it for launch.
tocha_nccl_work *start(tocha_nccl_work *w) {
  State &s = state();
  if (w->out) tocha_tensor_retain(w->out);
  if (w->in) tocha_tensor_retain(w->in);
  DeviceScope g(s.device);
  cudaError_t e = cudaEventCreateWithFlags(&w->ready, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaEventCreateWithFlags(&w->done, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaEventRecord(w->ready, s.compute);
  if (e != cudaSuccess) {
    // Still joins the exchange (as an invalid rank) so that the others fail instead of waiting.
    w->error = cuda_message(kind_name(w->kind), e);
    w->mine.invalid = 1;
  }
  bool p2p = w->kind == TOCHA_DIST_SEND || w->kind == TOCHA_DIST_RECV;
  if (p2p && s.checks) {
    if (w->kind == TOCHA_DIST_SEND) {
      MPI_Isend(&w->mine, sizeof(Desc), MPI_BYTE, w->peer, w->tag, s.desc, &w->reqs[0]);
      MPI_Irecv(w->ack, 3, MPI_INT64_T, w->peer, w->tag, s.ack, &w->reqs[1]);
    } else {
      w->all.resize(1);
      MPI_Irecv(w->all.data(), sizeof(Desc), MPI_BYTE, w->peer, w->tag, s.desc, &w->reqs[0]);
    }
    w->stage = Stage::Desc;
  } else if (!p2p && (s.checks || w->mine.invalid)) {
    w->all.resize(size_t(s.size));
    MPI_Iallgather(&w->mine, sizeof(Desc), MPI_BYTE, w->all.data(), sizeof(Desc), MPI_BYTE, s.desc, &w->reqs[0]);
    w->stage = Stage::Desc;
  } else {
    w->stage = Stage::Queued;
  }
  s.active.push_back(w);
  s.order.push_back(w);
  progress_all();
  return w;
}

// Point to point: the descriptor goes ahead (checks on) and start() queues the NCCL call.
tocha_nccl_work *post_p2p(int kind, tocha_tensor *t, int peer, int tag) {
  if (peer == state().rank) {
    set_error(kind == TOCHA_DIST_SEND ? "[send] a rank cannot send to itself on the NCCL backend"
                                      : "[recv] a rank cannot receive from itself on the NCCL backend");
    return nullptr;
  }
  auto *w = new tocha_nccl_work;
  w->kind = kind;
  (kind == TOCHA_DIST_SEND ? w->in : w->out) = t;
  w->peer = peer;
  w->tag = tag;
  w->mine.kind = kind;
  w->mine.count = t->numel;
  w->mine.dtype = t->dtype;
  return start(w);
}

tocha_nccl_work *post_send(tocha_tensor *t, int dst, int tag) { return post_p2p(TOCHA_DIST_SEND, t, dst, tag); }
tocha_nccl_work *post_recv(tocha_tensor *t, int src, int tag) { return post_p2p(TOCHA_DIST_RECV, t, src, tag); }

}  // namespace

// The exported entry points (tocha_nccl_all_reduce ... tocha_nccl_recv), shared with the MPI plugin.
#include "distributed/collective_entries.inc"
