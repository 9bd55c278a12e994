// Storage allocation, wrapping and resizing. See storage.h.
#include "core/storage.h"
#include <cstring>
#include <new>
#include "core/error.h"
#include "core/memory.h"

namespace tocha {

namespace {
DeviceAllocator g_allocators[kNumDeviceTypes] = {
    {[](size_t n, int) { return cpu_alloc(n); }, [](void* p, size_t n, int) { cpu_free(p, n); },
     [](void* dst, Device, const void* src, Device, size_t n) { std::memcpy(dst, src, n); }},
    {nullptr, nullptr, nullptr},
};
const DeviceAllocator& allocator_for(Device dev) {
  const DeviceAllocator& a = g_allocators[int(dev.type)];
  if (!a.alloc)
    fail("alloc", "device ", dev.str(), " is not available (Tocha was built without its backend or no device is present)");
  return a;
}
}  // namespace

void register_device_allocator(DeviceType t, const DeviceAllocator& a) { g_allocators[int(t)] = a; }
const DeviceAllocator* device_allocator(DeviceType t) {
  return g_allocators[int(t)].alloc ? &g_allocators[int(t)] : nullptr;
}

Ref<Storage> Storage::allocate(size_t nbytes, Device dev) {
  const DeviceAllocator& a = allocator_for(dev);
  Storage* s = new Storage();
  s->device_ = dev;
  try {
    s->view_.data = static_cast<char*>(a.alloc(nbytes, dev.index));
  } catch (...) {
    delete s;
    throw;
  }
  s->view_.nbytes = int64_t(nbytes);
  return Ref<Storage>::adopt(s);
}

Ref<Storage> Storage::from_blob(void* data, size_t nbytes, Device dev, Deleter deleter, void* ctx) {
  Storage* s = new Storage();
  s->view_.data = static_cast<char*>(data);
  s->view_.nbytes = int64_t(nbytes);
  s->device_ = dev;
  // A null deleter means "not ours, never free": use a no-op so owns_memory() stays false.
  s->deleter_ = deleter ? deleter : [](void*, void*) {};
  s->deleter_ctx_ = ctx;
  return Ref<Storage>::adopt(s);
}

Storage* Storage::construct_in_block(void* at, void* block, size_t block_bytes, void* data, size_t nbytes) {
  Storage* s = new (at) Storage();
  s->block_ = block;
  s->view_.data = static_cast<char*>(data);
  s->view_.nbytes = int64_t(nbytes);
  s->block_bytes_ = block_bytes;
  s->inline_data_ = true;
  return s;
}

Storage* Storage::allocate_in_block(void* at, void* block, size_t block_bytes, size_t nbytes, Device dev) {
  void* data = allocator_for(dev).alloc(nbytes, dev.index);
  Storage* s = new (at) Storage();
  s->block_ = block;
  s->block_bytes_ = block_bytes;
  s->block_counted_ = false;
  s->device_ = dev;
  s->view_.data = static_cast<char*>(data);
  s->view_.nbytes = int64_t(nbytes);
  return s;
}

void Storage::destroy() {
  if (!block_) {
    delete this;
    return;
  }
  void* block = block_;
  size_t bytes = block_bytes_;
  bool counted = block_counted_;
  this->~Storage();
  cpu_free_block(block, bytes, counted);
}

void Storage::resize(size_t nbytes) {
  size_t old = this->nbytes();
  if (nbytes == old) return;
  TOCHA_CHECK(owns_memory(), "resize", "cannot resize a storage that wraps external memory (",
              old, " bytes) to ", nbytes, " bytes");
  const DeviceAllocator& a = allocator_for(device_);
  void* fresh = a.alloc(nbytes, device_.index);
  size_t keep = nbytes < old ? nbytes : old;
  if (keep) a.copy(fresh, device_, view_.data, device_, keep);
  if (inline_data_) inline_data_ = false;  // the old data is part of the compact block
  else a.free(view_.data, old, device_.index);
  view_.data = static_cast<char*>(fresh);
  view_.nbytes = int64_t(nbytes);
}

Storage::~Storage() {
  if (inline_data_) return;  // freed with the block
  if (deleter_) {
    deleter_(view_.data, deleter_ctx_);
  } else if (view_.data) {
    g_allocators[int(device_.type)].free(view_.data, nbytes(), device_.index);
  }
}

}  // namespace tocha
