// A shared library opened on its first use instead of at start-up, and the forwarding functions
// that stand in for its entry points (Note [Lazy CUDA libraries]).
#pragma once
#include <atomic>
#include <mutex>

namespace tocha {

// Note [Lazy CUDA libraries]: linking cuBLAS makes the loader map libcublasLt and run its
// initializers in every process, GPU or not: 0.4-0.5 s and ~180 MB of resident memory on the
// development machine, which every `tocha` start, REPL and test paid for a library that only a
// CUDA matmul calls (cuSOLVER needs it too, and brings cuSPARSE and nvJitLink). So libtocha does
// not link cuBLAS and cuSOLVER: kernels/cuda/cublas_lazy.cpp and cusolver_lazy.cpp define, with
// hidden visibility, each entry point Tocha calls, with the header's own signature (a mismatch is
// a compile error: two C declarations of one name), and the first call of any of them opens the
// library with dlopen. Call sites are unchanged. The runtime (libcudart) and cuDNN's front
// library load in a few milliseconds and stay linked; cuDNN opens its own parts lazily already.
class LazyLibrary {
 public:
  // soname: what dlopen is given (found through LD_LIBRARY_PATH, libtocha's RUNPATH, ldconfig);
  // title: the library's name in errors, e.g. "cuBLAS".
  constexpr LazyLibrary(const char* soname, const char* title) : soname_(soname), title_(title) {}

  // The address of `name`, opening the library first if needed. Throws tocha::Error naming the
  // library and the loader's message when the library or the symbol is missing; a later call
  // tries again.
  void* symbol(const char* name);

  bool loaded() const { return handle_.load(std::memory_order_acquire) != nullptr; }

 private:
  void* open();

  const char* soname_;
  const char* title_;
  std::atomic<void*> handle_{nullptr};
  std::mutex mutex_;
};

}  // namespace tocha

// Defines the C function `name` (declared by the library's header) as a call through the
// library's symbol of the same name, resolved once. `params` is the parameter list with names,
// `args` the names alone: TOCHA_LAZY_FORWARD(lib, int, f, (int a, char* b), (a, b)). A signature
// that differs from the header's is a compile error (one C function, two declarations), also
// where the header adds C++ overloads of the name.
#define TOCHA_LAZY_FORWARD(library, ret, name, params, args)                              \
  extern "C" ret name params {                                                            \
    using fn_type = ret(*) params;                                                         \
    static const auto fn = reinterpret_cast<fn_type>((library).symbol(#name));            \
    return fn args;                                                                       \
  }
