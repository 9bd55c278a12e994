// Front-ends of pinned host memory and asynchronous copies (see pinned_memory.h).
#include "core/pinned_memory.h"
#include "core/autograd/meta.h"
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/ops/pointwise.h"
#include "core/storage.h"

namespace tocha {

namespace {
PinnedMemoryHooks g_hooks;
bool g_registered = false;

void free_pinned(void* data, void*) { g_hooks.free(data); }

const PinnedMemoryHooks& require(const char* op) {
  TOCHA_CHECK(g_registered, op, "pinned memory needs the CUDA backend (Tocha was built without CUDA support)");
  return g_hooks;
}
}  // namespace

void register_pinned_memory(const PinnedMemoryHooks& h) {
  g_hooks = h;
  g_registered = true;
}
const PinnedMemoryHooks* pinned_memory() { return g_registered ? &g_hooks : nullptr; }

Tensor empty_pinned(const DimVec& sizes, DType dt) {
  const PinnedMemoryHooks& h = require("pinMemory");
  int64_t n = shape_numel(sizes, "pinMemory");
  size_t nbytes = size_t(n) * dtype_size(dt);
  // A zero-byte request still gets a block, so that the storage has a pinned address.
  void* p = h.alloc(nbytes ? nbytes : 1);
  auto storage = Storage::from_blob(p, nbytes, Device{}, free_pinned, nullptr);
  return make_view(storage, dt, sizes, contiguous_strides(sizes), 0);
}

bool is_pinned(const Tensor& t) {
  const PinnedMemoryHooks* h = pinned_memory();
  return h && t.defined() && t.is_cpu() && t.storage()->data() && h->is_pinned(t.storage()->data());
}

Tensor pin_memory(const Tensor& t) {
  TOCHA_CHECK(t.is_cpu(), "pinMemory", "expected a CPU tensor, got one on ", t.device().str());
  if (is_pinned(t)) return t;
  Tensor r = empty_pinned(t.sizes(), t.dtype());
  copy_(r, t);
  return r;
}

void copy_async(const Tensor& dst, const Tensor& src) {
  const PinnedMemoryHooks* h = pinned_memory();
  bool fast = h && dst.device().type != src.device().type && dst.dtype() == src.dtype() &&
              dst.sizes() == src.sizes() && dst.is_contiguous() && src.is_contiguous() && dst.numel() > 0 &&
              is_pinned(dst.is_cpu() ? dst : src) && !autograd::needs_record(src) && autograd::is_leaf(dst);
  if (!fast) {
    copy_(dst, src);
    return;
  }
  check_writable("copy", dst);
  h->copy_async(dst.raw_data(), dst.device(), src.raw_data(), src.device(), size_t(src.numel()) * src.elsize());
  dst.bump_version();
}

}  // namespace tocha
