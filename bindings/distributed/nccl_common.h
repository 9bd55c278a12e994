// nccl_common.h -- what every part of the NCCL plugin (libtocha_nccl.so) shares: error text,
// dtype and reduction mapping, device pointers and a device guard. Needs no MPI.
#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include "distributed/pg_text.h"
#include "distributed/tocha_nccl.h"

namespace tocha::nccl {

void set_error(std::string msg);
using tocha::pg::kind_name;  // pg_text.h
using tocha::pg::dtype_name;
// NCCL's type for a Tocha dtype (bool travels as uint8), or -1.
int nccl_dtype(int dtype);
// NCCL's reduction for op on dtype (Note [Reducing bool]: or / and on bool).
ncclRedOp_t nccl_op(int op, int dtype);
// The device address of t's first element.
void *device_ptr(tocha_tensor *t);
// "[op] NCCL error: ..." with NCCL's last message.
std::string nccl_message(const char *op, ncclResult_t r, ncclComm_t comm);
std::string cuda_message(const char *op, cudaError_t e);
// Keeps the plugin mapped until the process ends (Note [Plugin stays loaded] in mpi_backend.cpp):
// the finalizers of works and communicators may run after LuaJIT closed the library.
void pin_plugin();

// Makes `device` current for a scope (the plugin cannot use libtocha's internal DeviceGuard).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&prev_) == cudaSuccess && prev_ != device) cudaSetDevice(device);
    else prev_ = -1;
  }
  ~DeviceScope() {
    if (prev_ >= 0) cudaSetDevice(prev_);
  }
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

 private:
  int prev_ = -1;
};

}  // namespace tocha::nccl
