// The fake GPU stack's answers to the device queries CUB's device-wide algorithms make before they
// launch (cub::DeviceRadixSort in kernels/cuda/random_perm.cu): the PTX version of a kernel, a
// device attribute, an occupancy. Each answers as the fake's one device (compute capability 9.0,
// 132 SMs: fake_cuda.cpp's cudaGetDeviceProperties) and counts nothing: it is no device work.
#include <cuda_runtime_api.h>
#include <cstring>

extern "C" {

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void*) {
  std::memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = 1024;
  a->ptxVersion = 90;
  a->binaryVersion = 90;
  a->numRegs = 32;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr attr, int) {
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    case cudaDevAttrMultiProcessorCount: *v = 132; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = 2048; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = 48 << 10; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = 227 << 10; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = 228 << 10; break;
    case cudaDevAttrL2CacheSize: *v = 50 << 20; break;
    case cudaDevAttrMaxGridDimX: *v = 0x7fffffff; break;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ: *v = 65535; break;
    default: *v = 0; break;
  }
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void*, int, size_t, unsigned) {
  *blocks = 1;
  return cudaSuccess;
}

}  // extern "C"
