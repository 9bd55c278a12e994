// The fake GPU stack's cuBLAS and cuDNN calls that fill in outputs: handles, descriptors, error
// strings, the convolution heuristics and timings (one algorithm, status success) and workspace
// sizes (1 MiB, so the workspace path through the caching allocator runs as on a GPU), and the
// graph API's descriptors, engine heuristics (one engine without numerical notes; none when the
// environment says FAKEGPU_CUDNN_ENGINES=0) and plan workspace. Note [Fake GPU] in
// fake_cuda.cpp says what the stack is for; the calls that only count are in fake_libs.c.
#include <cublas_v2.h>
#include <cudnn.h>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "tests/fakegpu/fake_counters.h"

namespace {
constexpr size_t kWorkspace = size_t(1) << 20;

// Library handles stay reachable from here: Tocha keeps one per device for the process's life and
// never destroys it (as with the real libraries), which LeakSanitizer would otherwise report.
std::vector<void*>& library_handles() {
  static std::vector<void*>* handles = new std::vector<void*>();
  return *handles;
}
template <class T> int new_library_handle(T* out) {
  void* h = std::calloc(1, 64);
  library_handles().push_back(h);
  *out = reinterpret_cast<T>(h);
  return 0;
}
template <class T> int new_handle(T* out) {
  *out = reinterpret_cast<T>(std::calloc(1, 64));
  return 0;
}
// One candidate algorithm: number 1 (cuDNN's IMPLICIT_PRECOMP_GEMM / ALGO_1), status success.
template <class Perf> cudnnStatus_t one_algorithm(int requested, int* returned, Perf* perf, const char* what) {
  fakegpu_counters()->cudnn_heuristics += 1;
  fakegpu_trace_call(what);
  *returned = requested > 0 ? 1 : 0;
  if (requested > 0) {
    perf[0] = Perf{};
    perf[0].algo = decltype(perf[0].algo)(1);
    perf[0].status = CUDNN_STATUS_SUCCESS;
    perf[0].mathType = CUDNN_DEFAULT_MATH;
    perf[0].memory = kWorkspace;
  }
  return CUDNN_STATUS_SUCCESS;
}
}  // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* h) { return cublasStatus_t(new_library_handle(h)); }
const char* cublasGetStatusName(cublasStatus_t) { return "CUBLAS_STATUS_FAKE"; }
const char* cublasGetStatusString(cublasStatus_t) { return "fake cuBLAS error"; }

cudnnStatus_t cudnnCreate(cudnnHandle_t* h) { return cudnnStatus_t(new_library_handle(h)); }
const char* cudnnGetErrorString(cudnnStatus_t) { return "fake cuDNN error"; }

#define DESCRIPTOR(Type, Name)                                \
  cudnnStatus_t cudnnCreate##Name(Type* d) {                  \
    fakegpu_counters()->cudnn_descriptors += 1;               \
    return cudnnStatus_t(new_handle(d));                      \
  }                                                           \
  cudnnStatus_t cudnnDestroy##Name(Type d) {                  \
    std::free(d);                                             \
    return CUDNN_STATUS_SUCCESS;                              \
  }
DESCRIPTOR(cudnnTensorDescriptor_t, TensorDescriptor)
DESCRIPTOR(cudnnFilterDescriptor_t, FilterDescriptor)
DESCRIPTOR(cudnnConvolutionDescriptor_t, ConvolutionDescriptor)

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t, const cudnnTensorDescriptor_t,
                                                     const cudnnFilterDescriptor_t,
                                                     const cudnnConvolutionDescriptor_t,
                                                     const cudnnTensorDescriptor_t, const int requested,
                                                     int* returned, cudnnConvolutionFwdAlgoPerf_t* perf) {
  return one_algorithm(requested, returned, perf, "cudnn heuristics forward");
}
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t, const cudnnFilterDescriptor_t,
                                                          const cudnnTensorDescriptor_t,
                                                          const cudnnConvolutionDescriptor_t,
                                                          const cudnnTensorDescriptor_t, const int requested,
                                                          int* returned, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
  return one_algorithm(requested, returned, perf, "cudnn heuristics data");
}
cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t, const cudnnTensorDescriptor_t,
                                                            const cudnnTensorDescriptor_t,
                                                            const cudnnConvolutionDescriptor_t,
                                                            const cudnnFilterDescriptor_t, const int requested,
                                                            int* returned,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
  return one_algorithm(requested, returned, perf, "cudnn heuristics filter");
}
// Benchmark mode's timing calls (Note [cuDNN benchmark]): the same single algorithm.
cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t, const cudnnTensorDescriptor_t, const void*,
                                                     const cudnnFilterDescriptor_t, const void*,
                                                     const cudnnConvolutionDescriptor_t,
                                                     const cudnnTensorDescriptor_t, void*, const int requested,
                                                     int* returned, cudnnConvolutionFwdAlgoPerf_t* perf, void*, size_t) {
  return one_algorithm(requested, returned, perf, "cudnn find forward");
}
cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t, const cudnnFilterDescriptor_t, const void*,
                                                          const cudnnTensorDescriptor_t, const void*,
                                                          const cudnnConvolutionDescriptor_t,
                                                          const cudnnTensorDescriptor_t, void*, const int requested,
                                                          int* returned, cudnnConvolutionBwdDataAlgoPerf_t* perf, void*,
                                                          size_t) {
  return one_algorithm(requested, returned, perf, "cudnn find data");
}
cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t, const cudnnTensorDescriptor_t, const void*,
                                                            const cudnnTensorDescriptor_t, const void*,
                                                            const cudnnConvolutionDescriptor_t,
                                                            const cudnnFilterDescriptor_t, void*, const int requested,
                                                            int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* perf,
                                                            void*, size_t) {
  return one_algorithm(requested, returned, perf, "cudnn find filter");
}
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t, const cudnnTensorDescriptor_t,
                                                      const cudnnFilterDescriptor_t,
                                                      const cudnnConvolutionDescriptor_t,
                                                      const cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t,
                                                      size_t* bytes) {
  *bytes = kWorkspace;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t, const cudnnFilterDescriptor_t,
                                                           const cudnnTensorDescriptor_t,
                                                           const cudnnConvolutionDescriptor_t,
                                                           const cudnnTensorDescriptor_t,
                                                           cudnnConvolutionBwdDataAlgo_t, size_t* bytes) {
  *bytes = kWorkspace;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t, const cudnnTensorDescriptor_t,
                                                             const cudnnTensorDescriptor_t,
                                                             const cudnnConvolutionDescriptor_t,
                                                             const cudnnFilterDescriptor_t,
                                                             cudnnConvolutionBwdFilterAlgo_t, size_t* bytes) {
  *bytes = kWorkspace;
  return CUDNN_STATUS_SUCCESS;
}

// The graph API (Note [cuDNN engines]): a descriptor remembers its type, so finalizing heuristics
// counts as a heuristics query.
struct FakeBackendDescriptor {
  cudnnBackendDescriptorType_t type;
};
cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t* d) {
  fakegpu_counters()->cudnn_descriptors += 1;
  auto* f = static_cast<FakeBackendDescriptor*>(std::calloc(1, sizeof(FakeBackendDescriptor)));
  f->type = type;
  *d = reinterpret_cast<cudnnBackendDescriptor_t>(f);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t d) {
  std::free(d);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t d) {
  if (reinterpret_cast<FakeBackendDescriptor*>(d)->type == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR) {
    fakegpu_counters()->cudnn_heuristics += 1;
    fakegpu_trace_call("cudnn engine heuristics");
  }
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t, int64_t requested, int64_t* count,
                                       void* elements) {
  *count = 0;
  if (name == CUDNN_ATTR_ENGINEHEUR_RESULTS) {
    const char* engines = std::getenv("FAKEGPU_CUDNN_ENGINES");
    *count = engines && std::strcmp(engines, "0") == 0 ? 0 : 1;
  } else if (name == CUDNN_ATTR_ENGINECFG_ENGINE) {
    *count = 1;
  } else if (name == CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE && requested >= 1) {
    *count = 1;
    *static_cast<int64_t*>(elements) = int64_t(kWorkspace);
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
