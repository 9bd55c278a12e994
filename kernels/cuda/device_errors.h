// Errors that CUDA kernels find in their input (a class target or an index out of range) and the
// host raises later, at its next synchronization, instead of synchronizing in the op to check first.
//
// Note [Deferred device errors]: checking a device tensor's values on the host needs a copy to
// the host, which waits for every kernel queued before it: a loss that checked its targets that
// way stalled the GPU pipeline two or three times per training step. Kernels check them instead:
// the first thread that meets a bad value claims the record (mapped pinned host memory, written
// by the kernel directly), skips the value (no out-of-bounds access, no device assert: the CUDA
// context stays usable), and the host raises the error at the first synchronization after the
// kernel: a copy to the host (:item(), :float(), printing) or torch.cuda.synchronize(). Torch7's
// criterion:forward reads its loss, so there the error still comes from the loss's own line. The
// record is cleared once raised; the CPU keeps its checks before the kernel (except
// maxPool2dBackward's: Note [Positions checked by the pooling backward]). Index ops (index,
// gather, scatter, indexCopy/Add/Fill) check their indices the same way: a bad one is skipped (a
// read gives 0) and reported. So does maxPool2dBackward with its argmax positions: it read them
// back with a min and a max per call, four waits per step of a CNN with two pooling layers.
#pragma once
#include <cstdint>

namespace tocha {
namespace cuda {

// What a kernel found. kind kBadTarget: `value` is the class target of sample `where`, bound the
// number of classes. kind kBadIndex: `value` is an index into dim `dim` of size `bound`. kind
// kBadPosition: `value` is a position in a plane of `bound` elements and `where` columns.
// kind kBadWeight (multinomial, Note [Device multinomial]): row `where` has, by `dim`: 0, a weight
// that is negative or not finite (`value` holds the double's bits, `base` its column); 1, no
// non-zero weight; 2, only `value` non-zero weights for `bound` samples without replacement.
enum DeviceErrorKind : int { kBadTarget = 1, kBadIndex = 2, kBadPosition = 3, kBadWeight = 4 };
struct DeviceErrorRecord {
  unsigned int claimed;  // 0 until a kernel claims the record
  volatile unsigned int ready;  // 1 once the claiming thread has written the fields below
  int kind;
  int op;                // the OpId of the kernel that found the error
  int dim;
  long long value, where, base, bound;
};

// The record, mapped into every device's address space (allocated on first use). Must be called
// with a CUDA context current (inside a LaunchScope).
DeviceErrorRecord* device_error_record();

// Throws the recorded error, if any, and clears it. Call after the host waited for the stream.
void raise_device_errors();

#ifdef __CUDACC__
// The first report wins; later ones (other threads, later kernels) are dropped until it is raised.
__device__ __forceinline__ void report_device_error(DeviceErrorRecord* r, int kind, int op, int dim, int64_t value,
                                                   int64_t where, int64_t base, int64_t bound) {
  if (atomicCAS(&r->claimed, 0u, 1u) != 0u) return;
  r->kind = kind;
  r->op = op;
  r->dim = dim;
  r->value = value;
  r->where = where;
  r->base = base;
  r->bound = bound;
  // Fields first, then the flag: the host, which may read while a kernel on another device is
  // still writing, takes the record only once it is whole.
  __threadfence_system();
  r->ready = 1u;
  __threadfence_system();
}
// A class-loss kernel met target `target` for sample `sample` (0-based) outside [0, classes)
// after subtracting base.
__device__ __forceinline__ void report_bad_target(DeviceErrorRecord* r, int op, int64_t sample, int64_t target,
                                                  int64_t base, int64_t classes) {
  report_device_error(r, kBadTarget, op, 0, target, sample, base, classes);
}
// An index kernel met `index` outside [base, base + size) for dim `dim` (0-based).
__device__ __forceinline__ void report_bad_index(DeviceErrorRecord* r, int op, int dim, int64_t index, int64_t base,
                                                 int64_t size) {
  report_device_error(r, kBadIndex, op, dim, index, 0, base, size);
}
// A pooling backward met `position` outside [base, base + height * width) of a height x width plane.
__device__ __forceinline__ void report_bad_position(DeviceErrorRecord* r, int op, int64_t position, int64_t base,
                                                   int64_t height, int64_t width) {
  report_device_error(r, kBadPosition, op, 0, position, width, base, height * width);
}
#endif

}  // namespace cuda
}  // namespace tocha
