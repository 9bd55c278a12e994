// mpi_collectives.cpp -- the operations of libtocha_mpi.so: the MPI-specific argument checks
// (CPU tensors), the descriptor exchange that catches ranks disagreeing, and the nonblocking MPI
// calls that move the data. The exported entry points are collective_entries.inc's.
#include <algorithm>
#include <climits>
#include <cstdio>

#include "distributed/mpi_work.h"
#include "tocha.h"

namespace tocha::dist {

void progress_all();  // mpi_backend.cpp

// Note [Descriptor exchange]: every rank gathers every rank's descriptor, so every rank reaches
// the same verdict: all post the data transfer, or all fail with the same message (no rank is
// left waiting for a transfer the others refused).
void check_descriptors(tocha_dist_work *w) {
  State &s = state();
  std::string err = tocha::pg::verdict(w->kind, w->all.data(), s.size);
  if (!err.empty()) {
    w->error = err;
    w->stage = Stage::Failed;
    return;
  }
  w->blocking = true;
  for (int r = 0; r < s.size; ++r) w->blocking = w->blocking && w->all[size_t(r)].blocking;
  w->stage = Stage::Queued;
}

static MPI_Op mpi_op(int op, int dtype) {
  bool logical = dtype == TOCHA_DTYPE_BOOL;  // Note [Reducing bool]: sum/max = or, prod/min = and
  switch (op) {
    case TOCHA_REDUCE_SUM: return logical ? MPI_LOR : MPI_SUM;
    case TOCHA_REDUCE_PROD: return logical ? MPI_LAND : MPI_PROD;
    case TOCHA_REDUCE_MAX: return logical ? MPI_LOR : MPI_MAX;
    default: return logical ? MPI_LAND : MPI_MIN;
  }
}

static void *ptr(tocha_tensor *t) {
  static char empty;
  if (!t || t->numel == 0) return &empty;
  return tocha_tensor_data(t);
}

// Note [All-reduce in chunks]: a blocking all-reduce larger than State::chunk_bytes (4 MiB) runs
// as one MPI_Allreduce per chunk. OpenMPI allocates a temporary buffer as large as the message on
// every call: above glibc's largest mmap threshold (32 MiB) that buffer is mapped and page-faulted
// anew each time (64 and 256 MiB moved at 0.2-0.27 GiB/s on the development VM, where a first
// touch costs ~13 us a page), and even at 16 MiB its algorithm ran at 6.3-6.8 GiB/s against
// 8.6-14 GiB/s at 1-4 MiB. Every rank cuts at the same places (the descriptors agreed on the
// count), so the chunks pair up; each element is still reduced by MPI_Allreduce.
static int all_reduce_chunked(void *data, int64_t n, MPI_Datatype dt, int64_t elsize, MPI_Op op, MPI_Comm comm,
                              int64_t chunk_bytes) {
  if (n == 0) return MPI_Allreduce(MPI_IN_PLACE, data, 0, dt, op, comm);
  const int64_t per = std::max<int64_t>(1, chunk_bytes / elsize);
  char *p = static_cast<char *>(data);
  for (int64_t off = 0; off < n; off += per) {
    int rc = MPI_Allreduce(MPI_IN_PLACE, p + off * elsize, int(std::min(per, n - off)), dt, op, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// Note [Blocking fast path]: OpenMPI's nonblocking collectives (libnbc) move large buffers much
// slower than the blocking ones (the tuned component's algorithms, progressed inside the call), so
// a collective that every rank waits for at once (the synchronous forms: dist.allReduce, not
// allReduceAsync; the descriptor says so) runs the blocking call. MPI cannot match a blocking
// collective with a nonblocking one, hence the agreement of every rank in the descriptors. Only
// after the descriptor exchange: every rank has then reached this very collective, so the call
// cannot wait for a rank that is elsewhere (only for one that dies in between, a window the
// timeout does not cover). With checks off every collective stays nonblocking.
void post_data(tocha_dist_work *w, bool blocking) {
  State &s = state();
  const Desc &d = w->mine;
  int n = int(d.count);
  MPI_Datatype dt = mpi_dtype(d.dtype);
  MPI_Op op = mpi_op(d.op, d.dtype);
  MPI_Request *r = &w->reqs[0];
  bool root = s.rank == d.root;
  int rc = MPI_SUCCESS;
  if (blocking) {
    switch (w->kind) {
      case TOCHA_DIST_ALL_REDUCE:
        rc = all_reduce_chunked(ptr(w->out), d.count, dt, dtype_size(d.dtype), op, s.data, s.chunk_bytes);
        break;
      case TOCHA_DIST_BROADCAST: rc = MPI_Bcast(ptr(w->out), n, dt, d.root, s.data); break;
      case TOCHA_DIST_REDUCE:
        rc = root ? MPI_Reduce(MPI_IN_PLACE, ptr(w->out), n, dt, op, d.root, s.data)
                  : MPI_Reduce(ptr(w->out), nullptr, n, dt, op, d.root, s.data);
        break;
      case TOCHA_DIST_ALL_GATHER: rc = MPI_Allgather(ptr(w->in), n, dt, ptr(w->out), n, dt, s.data); break;
      case TOCHA_DIST_REDUCE_SCATTER: rc = MPI_Reduce_scatter_block(ptr(w->in), ptr(w->out), n, dt, op, s.data); break;
      case TOCHA_DIST_GATHER:
        rc = MPI_Gather(ptr(w->in), n, dt, root ? ptr(w->out) : nullptr, n, dt, d.root, s.data);
        break;
      case TOCHA_DIST_SCATTER:
        rc = MPI_Scatter(root ? ptr(w->in) : nullptr, n, dt, ptr(w->out), n, dt, d.root, s.data);
        break;
      case TOCHA_DIST_BARRIER: rc = MPI_Barrier(s.data); break;
    }
  } else switch (w->kind) {
    case TOCHA_DIST_ALL_REDUCE: rc = MPI_Iallreduce(MPI_IN_PLACE, ptr(w->out), n, dt, op, s.data, r); break;
    case TOCHA_DIST_BROADCAST: rc = MPI_Ibcast(ptr(w->out), n, dt, d.root, s.data, r); break;
    case TOCHA_DIST_REDUCE:
      rc = root ? MPI_Ireduce(MPI_IN_PLACE, ptr(w->out), n, dt, op, d.root, s.data, r)
                : MPI_Ireduce(ptr(w->out), nullptr, n, dt, op, d.root, s.data, r);
      break;
    case TOCHA_DIST_ALL_GATHER: rc = MPI_Iallgather(ptr(w->in), n, dt, ptr(w->out), n, dt, s.data, r); break;
    case TOCHA_DIST_REDUCE_SCATTER:
      rc = MPI_Ireduce_scatter_block(ptr(w->in), ptr(w->out), n, dt, op, s.data, r);
      break;
    case TOCHA_DIST_GATHER:
      rc = MPI_Igather(ptr(w->in), n, dt, root ? ptr(w->out) : nullptr, n, dt, d.root, s.data, r);
      break;
    case TOCHA_DIST_SCATTER:
      rc = MPI_Iscatter(root ? ptr(w->in) : nullptr, n, dt, ptr(w->out), n, dt, d.root, s.data, r);
      break;
    case TOCHA_DIST_BARRIER: rc = MPI_Ibarrier(s.data, r); break;
  }
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    w->error = std::string("[") + kind_name(w->kind) + "] MPI error: " + std::string(text, size_t(len));
    w->stage = Stage::Failed;
    return;
  }
  w->stage = Stage::Data;  // a blocking call's requests are null: the next advance finishes it
}

// A receive learned what the sender sends: accept it, or drain it and fail on both sides.
void recv_got_descriptor(tocha_dist_work *w) {
  State &s = state();
  const Desc &theirs = w->all[0];
  bool ok = theirs.dtype == w->mine.dtype && theirs.count == w->mine.count;
  w->ack[0] = ok ? 1 : 0;
  w->ack[1] = w->mine.count;
  w->ack[2] = w->mine.dtype;
  MPI_Isend(w->ack, 3, MPI_INT64_T, w->peer, w->tag, s.ack, &w->reqs[0]);
  void *buf = ptr(w->out);
  if (!ok) {
    w->scratch.resize(size_t(std::max<int64_t>(1, theirs.count * dtype_size(theirs.dtype))));
    buf = w->scratch.data();
    w->error = "[recv] rank " + std::to_string(w->peer) + " sent " + std::to_string(theirs.count) + " " +
               dtype_name(theirs.dtype) + " elements but rank " + std::to_string(s.rank) + " expected " +
               std::to_string(w->mine.count) + " " + dtype_name(w->mine.dtype) + " (tag " + std::to_string(w->tag) + ")";
  }
  MPI_Irecv(buf, int(theirs.count), mpi_dtype(theirs.dtype), w->peer, w->tag, s.data, &w->reqs[1]);
  w->stage = Stage::Data;
}

}  // namespace tocha::dist

using namespace tocha::dist;

namespace {

bool check_tensor(const char *op, const char *what, tocha_tensor *t) {
  char buf[256];
  if (!t || t == tocha_freed_tensor()) {
    snprintf(buf, sizeof buf, "[%s] %s is %s", op, what, t ? "a freed tensor" : "missing");
  } else if (t->device_type != TOCHA_DEVICE_CPU) {
    snprintf(buf, sizeof buf, "[%s] %s is on a CUDA device; the MPI backend takes CPU tensors", op, what);
  } else if (!(t->flags & TOCHA_FLAG_CONTIGUOUS)) {
    snprintf(buf, sizeof buf, "[%s] %s is not contiguous (call :contiguous() first)", op, what);
  } else if (mpi_dtype(t->dtype) == MPI_DATATYPE_NULL) {
    snprintf(buf, sizeof buf, "[%s] %s has dtype %s, which MPI cannot carry", op, what, dtype_name(t->dtype));
  } else if (t->numel > INT_MAX) {
    snprintf(buf, sizeof buf, "[%s] %s has %lld elements; MPI counts stop at %d", op, what, (long long)t->numel, INT_MAX);
  } else {
    return true;
  }
  set_error(buf);
  return false;
}

// Registers a new work: exchanges its descriptor (checks on) or queues it for posting.
tocha_dist_work *start(tocha_dist_work *w) {
  State &s = state();
  w->mine.kind = w->kind;
  w->mine.blocking = s.issue_blocking ? 1 : 0;
  s.issue_blocking = false;
  if (w->out) tocha_tensor_retain(w->out);
  if (w->in) tocha_tensor_retain(w->in);
  if (s.checks || w->mine.invalid) {
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

// What usable() (collective_entries.inc) says before init and after a failure.
const char kNotInitialized[] = "torch.distributed is not initialized (call torch.distributed.init first)";
const char kBroken[] = "an earlier operation timed out; collectives cannot continue (end the job)";

// Point to point: with checks on, the sender's descriptor goes ahead of the data and the
// receiver answers on the acknowledgement communicator (Note [Three communicators]).
tocha_dist_work *post_send(tocha_tensor *t, int dst, int tag) {
  State &s = state();
  auto *w = new tocha_dist_work;
  w->kind = TOCHA_DIST_SEND;
  w->in = t;
  tocha_tensor_retain(t);
  w->peer = dst;
  w->tag = tag;
  w->mine.kind = TOCHA_DIST_SEND;
  w->mine.count = t->numel;
  w->mine.dtype = t->dtype;
  if (s.checks) {
    MPI_Isend(&w->mine, sizeof(Desc), MPI_BYTE, dst, tag, s.desc, &w->reqs[0]);
    MPI_Irecv(w->ack, 3, MPI_INT64_T, dst, tag, s.ack, &w->reqs[2]);
  }
  MPI_Isend(ptr(t), int(t->numel), mpi_dtype(t->dtype), dst, tag, s.data, &w->reqs[1]);
  w->stage = Stage::Data;
  s.active.push_back(w);
  progress_all();
  return w;
}

tocha_dist_work *post_recv(tocha_tensor *t, int src, int tag) {
  State &s = state();
  auto *w = new tocha_dist_work;
  w->kind = TOCHA_DIST_RECV;
  w->out = t;
  tocha_tensor_retain(t);
  w->peer = src;
  w->tag = tag;
  w->mine.kind = TOCHA_DIST_RECV;
  w->mine.count = t->numel;
  w->mine.dtype = t->dtype;
  if (s.checks) {
    w->all.resize(1);
    MPI_Irecv(w->all.data(), sizeof(Desc), MPI_BYTE, src, tag, s.desc, &w->reqs[0]);
    w->stage = Stage::Desc;
  } else {
    MPI_Irecv(ptr(t), int(t->numel), mpi_dtype(t->dtype), src, tag, s.data, &w->reqs[1]);
    w->stage = Stage::Data;
  }
  s.active.push_back(w);
  progress_all();
  return w;
}

}  // namespace

// The exported entry points (tocha_dist_all_reduce ... tocha_dist_recv), shared with the NCCL plugin.
#include "distributed/collective_entries.inc"
