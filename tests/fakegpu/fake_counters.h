/* The counters of the fake GPU stack (Note [Fake GPU], tests/fakegpu/fake_cuda.cpp), shared by its
   C++ and C parts. tests/fakegpu/counters.lua declares the same struct for the FFI. */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif

struct FakeGpuCounters {
  long launches;          /* kernels launched through <<<>>> */
  long syncs;             /* cudaStreamSynchronize / cudaDeviceSynchronize: the host waits */
  long copies_to_host;    /* cudaMemcpy*Async device -> host */
  long copies_to_device;
  long copies_on_device;
  long memsets;
  long device_mallocs;    /* cudaMalloc: the caching allocator missed */
  long device_frees;
  long host_allocs;       /* cudaHostAlloc */
  long events;            /* cudaEventRecord */
  long cudnn_calls;       /* convolutions and tensor ops queued */
  long cudnn_heuristics;  /* cudnnGetConvolution*Algorithm_v7 and cudnnFind*AlgorithmEx calls */
  long cudnn_descriptors; /* descriptors created */
  long cublas_calls;
  long gpu_busy_ns;       /* simulated device time of the work queued (Note [Simulated device time]) */
  long gpu_idle_ns;       /* simulated device time spent waiting for the host to queue work */
};

struct FakeGpuCounters* fakegpu_counters(void);
void fakegpu_trace_call(const char* what); /* appends a line to the trace when tracing */
void fakegpu_device_work(void);            /* one kernel or library call queued on the device */

#ifdef __cplusplus
}
#endif
