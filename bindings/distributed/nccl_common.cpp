// nccl_common.cpp -- the NCCL plugin's shared helpers (see nccl_common.h), its last error and
// its FFI declarations.
#include <dlfcn.h>

#include "distributed/nccl_common.h"
#include "tocha.h"

namespace tocha::nccl {

static thread_local std::string t_error;
const std::string &last_error() { return t_error; }
void set_error(std::string msg) { t_error = std::move(msg); }

int nccl_dtype(int dtype) {
  switch (dtype) {
    case TOCHA_DTYPE_F32: return ncclFloat32;
    case TOCHA_DTYPE_F64: return ncclFloat64;
    case TOCHA_DTYPE_F16: return ncclFloat16;
    case TOCHA_DTYPE_BF16: return ncclBfloat16;
    case TOCHA_DTYPE_I64: return ncclInt64;
    case TOCHA_DTYPE_I32: return ncclInt32;
    case TOCHA_DTYPE_U8: case TOCHA_DTYPE_BOOL: return ncclUint8;
    default: return -1;
  }
}

// Note [Reducing bool] (as in the MPI plugin): bool tensors hold 0/1 bytes; sum and max are a
// logical or (max of the bytes), prod and min a logical and (min of the bytes).
ncclRedOp_t nccl_op(int op, int dtype) {
  bool logical = dtype == TOCHA_DTYPE_BOOL;
  switch (op) {
    case TOCHA_REDUCE_SUM: return logical ? ncclMax : ncclSum;
    case TOCHA_REDUCE_PROD: return logical ? ncclMin : ncclProd;
    case TOCHA_REDUCE_MAX: return ncclMax;
    default: return ncclMin;
  }
}

void *device_ptr(tocha_tensor *t) {
  if (!t || !t->storage || !t->storage->data) return nullptr;
  return t->storage->data + t->storage_offset * t->elsize;
}

std::string nccl_message(const char *op, ncclResult_t r, ncclComm_t comm) {
  std::string msg = std::string("[") + op + "] NCCL error: " + ncclGetErrorString(r);
  const char *last = ncclGetLastError(comm);
  if (last && *last) msg += std::string(" (") + last + ")";
  return msg;
}

std::string cuda_message(const char *op, cudaError_t e) {
  return std::string("[") + op + "] CUDA error: " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
}

void pin_plugin() {
  static bool pinned = false;
  if (pinned) return;
  pinned = true;
  Dl_info self;
  if (dladdr(reinterpret_cast<void *>(&pin_plugin), &self) && self.dli_fname)
    dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

}  // namespace tocha::nccl

using namespace tocha::nccl;

static const char kCdef[] =
#include "tocha_nccl_cdef.inc"
    ;

TOCHA_NCCL_API const char *tocha_nccl_cdef(void) noexcept { return kCdef; }
TOCHA_NCCL_API const char *tocha_nccl_last_error(void) noexcept { return tocha::nccl::last_error().c_str(); }
TOCHA_NCCL_API int tocha_nccl_version(void) noexcept {
  int v = 0;
  ncclGetVersion(&v);
  return v;
}

