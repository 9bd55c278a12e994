// cuDNN handles, status errors, dtype mapping and tensor descriptors. See cudnn_util.h.
#ifdef TOCHA_HAVE_CUDNN
#include "kernels/cuda/cudnn_util.h"
#include <climits>
#include <mutex>
#include <vector>
#include "core/error.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {

cudnnHandle_t cudnn_handle(const char* op, int device) {
  static std::mutex m;
  static std::vector<cudnnHandle_t> handles;
  std::lock_guard<std::mutex> g(m);
  if (handles.size() <= size_t(device)) handles.resize(size_t(device) + 1, nullptr);
  cudnnHandle_t& h = handles[size_t(device)];
  if (!h) {
    DeviceGuard dg(device);
    cudnnHandle_t created = nullptr;
    TOCHA_CUDNN_CHECK(op, cudnnCreate(&created));
    cudnnStatus_t st = cudnnSetStream(created, stream(device));
    if (st != CUDNN_STATUS_SUCCESS) {
      cudnnDestroy(created);
      fail_cudnn(op, "cudnnSetStream", st);
    }
    h = created;
  }
  return h;
}

void fail_cudnn(const char* op, const char* what, cudnnStatus_t st) {
  const char* text = cudnnGetErrorString(st);
  // cuDNN 9: ALLOC_FAILED is the host-memory code (4003); 4004 is device memory.
  if (st == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED || st == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    throw OutOfMemory(str_cat("[", op, "] cuDNN could not allocate memory (", what, ")"));
  fail(op, "cuDNN error: ", text ? text : "?", " (status ", int(st), " from ", what, ")");
}

cudnnDataType_t cudnn_dtype(const char* op, DType dt) {
  switch (dt) {
    case DType::f32: return CUDNN_DATA_FLOAT;
    case DType::f64: return CUDNN_DATA_DOUBLE;
    case DType::f16: return CUDNN_DATA_HALF;
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    default: fail(op, "internal: no cuDNN type for ", dtype_tensor_name(dt));
  }
}

cudnnDataType_t cudnn_compute_dtype(DType dt) { return dt == DType::f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

int cudnn_int(const char* op, int64_t v) {
  TOCHA_CHECK(v >= 0 && v <= INT_MAX, op, "size ", v, " is too large for cuDNN (at most ", INT_MAX, ")");
  return int(v);
}

TensorDesc::TensorDesc(const char* op, DType dt, int nd, const int64_t* sizes) {
  int dims[8], strides[8];
  int64_t stride = 1;
  for (int i = nd - 1; i >= 0; --i) {
    dims[i] = cudnn_int(op, sizes[i]);
    strides[i] = cudnn_int(op, stride);
    stride *= sizes[i] > 0 ? sizes[i] : 1;
  }
  TOCHA_CUDNN_CHECK(op, cudnnCreateTensorDescriptor(&d));
  cudnnStatus_t st = cudnnSetTensorNdDescriptor(d, cudnn_dtype(op, dt), nd, dims, strides);
  if (st != CUDNN_STATUS_SUCCESS) {
    cudnnDestroyTensorDescriptor(d);
    d = nullptr;
    fail_cudnn(op, "cudnnSetTensorNdDescriptor", st);
  }
}

TensorDesc::~TensorDesc() {
  if (d) cudnnDestroyTensorDescriptor(d);
}

}  // namespace cuda
}  // namespace tocha
#endif  // TOCHA_HAVE_CUDNN
