// nccl_local.cpp -- libtocha_nccl.so's single-process communicator over several GPUs
// (ncclCommInitAll), used by nn.DataParallelTable to reduce gradients and broadcast parameters
// between the replicas of one model.
#include <cstdio>
#include <set>

#include <vector>

#include "distributed/nccl_common.h"
#include "tocha.h"

using namespace tocha::nccl;

struct tocha_nccl_local {
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;  // Tocha's compute stream of each device
};

TOCHA_NCCL_API tocha_nccl_local *tocha_nccl_local_new(int n, const int *devices) noexcept {
  const char *op = "nn.DataParallelTable";
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    cudaGetLastError();
    set_error(std::string("[") + op + "] NCCL needs CUDA devices; " +
              (e != cudaSuccess ? std::string(cudaGetErrorString(e)) : std::string("the driver reports 0 devices")));
    return nullptr;
  }
  if (n < 1 || !devices) {
    set_error(std::string("[") + op + "] expected at least one device, got " + std::to_string(n));
    return nullptr;
  }
  std::set<int> seen;
  auto *c = new tocha_nccl_local;
  for (int i = 0; i < n; ++i) {
    int d = devices[i];
    void *stream = d >= 0 && d < ndev ? tocha_cuda_compute_stream(d) : nullptr;
    if (!stream || !seen.insert(d).second) {
      set_error(std::string("[") + op + "] device " + std::to_string(d) +
                (stream ? " is listed twice" : " is not a CUDA device (0.." + std::to_string(ndev - 1) + ")"));
      delete c;
      return nullptr;
    }
    c->devices.push_back(d);
    c->streams.push_back(static_cast<cudaStream_t>(stream));
  }
  c->comms.assign(size_t(n), nullptr);
  ncclResult_t r = ncclCommInitAll(c->comms.data(), n, c->devices.data());
  if (r != ncclSuccess) {
    set_error(nccl_message(op, r, nullptr));
    delete c;
    return nullptr;
  }
  pin_plugin();
  return c;
}

TOCHA_NCCL_API void tocha_nccl_local_free(tocha_nccl_local *c) noexcept {
  if (!c) return;
  for (size_t i = 0; i < c->comms.size(); ++i) {
    DeviceScope g(c->devices[i]);
    if (c->comms[i]) ncclCommDestroy(c->comms[i]);
  }
  delete c;
}

namespace {

enum class LocalOp { AllReduce, Reduce, Broadcast };

bool check_list(const char *op, tocha_nccl_local *c, tocha_tensor **ts, int n) {
  char buf[320];
  if (!c) {
    snprintf(buf, sizeof buf, "[%s] the communicator is missing", op);
  } else if (n != int(c->devices.size()) || !ts) {
    snprintf(buf, sizeof buf, "[%s] expected one tensor per device (%d), got %d", op, int(c->devices.size()), n);
  } else {
    for (int i = 0; i < n; ++i) {
      tocha_tensor *t = ts[i];
      if (!t || t == tocha_freed_tensor()) {
        snprintf(buf, sizeof buf, "[%s] tensor %d is %s", op, i + 1, t ? "a freed tensor" : "missing");
      } else if (t->device_type != TOCHA_DEVICE_CUDA || t->device_index != c->devices[size_t(i)]) {
        snprintf(buf, sizeof buf, "[%s] tensor %d must be on cuda:%d, got one on %s%d", op, i + 1,
                 c->devices[size_t(i)], t->device_type == TOCHA_DEVICE_CUDA ? "cuda:" : "the CPU ",
                 t->device_type == TOCHA_DEVICE_CUDA ? t->device_index : 0);
      } else if (!(t->flags & TOCHA_FLAG_CONTIGUOUS)) {
        snprintf(buf, sizeof buf, "[%s] tensor %d is not contiguous", op, i + 1);
      } else if (nccl_dtype(t->dtype) < 0) {
        snprintf(buf, sizeof buf, "[%s] tensor %d has dtype %s, which NCCL cannot carry", op, i + 1, dtype_name(t->dtype));
      } else if (t->dtype != ts[0]->dtype || t->numel != ts[0]->numel) {
        snprintf(buf, sizeof buf, "[%s] tensor %d holds %lld %s elements but tensor 1 holds %lld %s", op, i + 1,
                 (long long)t->numel, dtype_name(t->dtype), (long long)ts[0]->numel, dtype_name(ts[0]->dtype));
      } else {
        continue;
      }
      set_error(buf);
      return false;
    }
    return true;
  }
  set_error(buf);
  return false;
}

// Note [Local NCCL on compute streams]: the replicas' tensors are written by Tocha's kernels on
// each device's compute stream, so the grouped NCCL calls are queued on those same streams: they
// run after the backward kernels and before whatever is queued next, with no events and no host
// synchronization (a single process has no peer that can vanish, so no timeout either).
int run(const char *op, LocalOp kind, tocha_nccl_local *c, tocha_tensor **ts, int n, int root, int red) {
  if (!check_list(op, c, ts, n)) return -1;
  if ((kind != LocalOp::AllReduce && (root < 0 || root >= n)) || red < TOCHA_REDUCE_SUM || red > TOCHA_REDUCE_MIN) {
    set_error(std::string("[") + op + "] invalid root " + std::to_string(root) + " or reduction " + std::to_string(red));
    return -1;
  }
  if (ts[0]->numel == 0) return 0;
  auto dt = ncclDataType_t(nccl_dtype(ts[0]->dtype));
  ncclRedOp_t rop = nccl_op(red, ts[0]->dtype);
  size_t count = size_t(ts[0]->numel);
  ncclResult_t r = ncclGroupStart();
  if (r != ncclSuccess) {
    set_error(nccl_message(op, r, nullptr));
    return -1;
  }
  ncclComm_t failed = nullptr;
  for (int i = 0; i < n && r == ncclSuccess; ++i) {
    void *p = device_ptr(ts[i]);
    ncclComm_t comm = c->comms[size_t(i)];
    cudaStream_t s = c->streams[size_t(i)];
    switch (kind) {
      case LocalOp::AllReduce: r = ncclAllReduce(p, p, count, dt, rop, comm, s); break;
      case LocalOp::Reduce: r = ncclReduce(p, p, count, dt, rop, root, comm, s); break;
      case LocalOp::Broadcast: r = ncclBroadcast(p, p, count, dt, root, comm, s); break;
    }
    if (r != ncclSuccess) failed = comm;
  }
  ncclResult_t end = ncclGroupEnd();
  if (r == ncclSuccess) r = end;
  if (r != ncclSuccess) {
    set_error(nccl_message(op, r, failed));
    return -1;
  }
  for (int i = 0; i < n; ++i) tocha_tensor_bump_version(ts[i]);
  return 0;
}

}  // namespace

TOCHA_NCCL_API int tocha_nccl_local_all_reduce(tocha_nccl_local *c, tocha_tensor **ts, int n, int op) noexcept {
  return run("allReduce", LocalOp::AllReduce, c, ts, n, 0, op);
}
TOCHA_NCCL_API int tocha_nccl_local_reduce(tocha_nccl_local *c, tocha_tensor **ts, int n, int root, int op) noexcept {
  return run("reduce", LocalOp::Reduce, c, ts, n, root, op);
}
TOCHA_NCCL_API int tocha_nccl_local_broadcast(tocha_nccl_local *c, tocha_tensor **ts, int n, int root) noexcept {
  return run("broadcast", LocalOp::Broadcast, c, ts, n, root, TOCHA_REDUCE_SUM);
}
