// The fake GPU stack's cuFFT (Note [Fake GPU], fake_cuda.cpp): plans remember their sizes, batch,
// type and work size, and the exec calls compute the transforms at once with a naive DFT on the
// fake device memory (host memory), so torch.fft's CUDA path (kernels/cuda/fft.cpp: plan cache,
// work area from the caching allocator, stream, exec arguments) runs and gives values a test can
// check where no other kernel is involved (the fake runs no kernels: contiguous inputs transformed
// along their last dims, without a norm scale). Only the default contiguous layout of
// cufftMakePlanMany64, the one Tocha uses, is supported; anything else is CUFFT_NOT_SUPPORTED.
#include <cufft.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>
#include "tests/fakegpu/fake_counters.h"

namespace {

struct FakePlan {
  int rank = 0;
  long long n[3] = {1, 1, 1};
  long long batch = 0;
  cufftType type = CUFFT_C2C;
  bool made = false;
};

constexpr size_t kWork = size_t(1) << 16;  // a work area, so Tocha's allocation path runs

// Plans live in a list that is never freed (as a library's would until exit); a handle is the
// index + 1, so 0 and destroyed plans are invalid.
std::vector<FakePlan*>& plans() {
  static auto* v = new std::vector<FakePlan*>();
  return *v;
}
FakePlan* plan_of(cufftHandle h) { return h >= 1 && size_t(h) <= plans().size() ? plans()[size_t(h) - 1] : nullptr; }

// c2c over the plan's dims of one signal: out[k] = sum_j in[j] e^(sign 2 pi i j.k / n).
template <class T>
void dft(const FakePlan& p, const std::complex<T>* in, std::complex<T>* out, int sign) {
  long long total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.n[d];
  for (long long k = 0; k < total; ++k) {
    std::complex<double> acc = 0;
    for (long long j = 0; j < total; ++j) {
      double phase = 0;
      long long kr = k, jr = j;
      for (int d = p.rank - 1; d >= 0; --d) {
        phase += double(jr % p.n[d]) * double(kr % p.n[d]) / double(p.n[d]);
        jr /= p.n[d];
        kr /= p.n[d];
      }
      const double a = sign * 2 * M_PI * (phase - std::floor(phase));
      acc += std::complex<double>(in[j]) * std::complex<double>(std::cos(a), std::sin(a));
    }
    out[k] = std::complex<T>(acc);
  }
}

// The multi-index of flat index k over the plan's dims (row-major), and back with the last dim
// of size h (the onesided half).
long long half_index(const FakePlan& p, long long k, long long h, bool* mirrored) {
  long long idx[3] = {0, 0, 0}, rest = k;
  for (int d = p.rank - 1; d >= 0; --d) {
    idx[d] = rest % p.n[d];
    rest /= p.n[d];
  }
  const int last = p.rank - 1;
  *mirrored = idx[last] >= h;
  if (*mirrored)
    for (int d = 0; d < p.rank; ++d) idx[d] = (p.n[d] - idx[d]) % p.n[d];
  long long r = 0;
  for (int d = 0; d < p.rank; ++d) r = r * (d == last ? h : p.n[d]) + idx[d];
  return r;
}

template <class T> void r2c(const FakePlan& p, const T* in, std::complex<T>* out) {
  long long total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.n[d];
  const long long h = p.n[p.rank - 1] / 2 + 1, half_total = total / p.n[p.rank - 1] * h;
  std::vector<std::complex<T>> x(static_cast<size_t>(total)), y(static_cast<size_t>(total));
  for (long long b = 0; b < p.batch; ++b) {
    for (long long j = 0; j < total; ++j) x[size_t(j)] = in[b * total + j];
    dft<T>(p, x.data(), y.data(), -1);
    for (long long k = 0; k < total; ++k) {
      bool mirrored;
      long long hk = half_index(p, k, h, &mirrored);
      if (!mirrored) out[b * half_total + hk] = y[size_t(k)];
    }
  }
}

template <class T> void c2r(const FakePlan& p, const std::complex<T>* in, T* out) {
  long long total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.n[d];
  const long long h = p.n[p.rank - 1] / 2 + 1, half_total = total / p.n[p.rank - 1] * h;
  std::vector<std::complex<T>> x(static_cast<size_t>(total)), y(static_cast<size_t>(total));
  for (long long b = 0; b < p.batch; ++b) {
    for (long long k = 0; k < total; ++k) {  // the full spectrum by conjugate symmetry
      bool mirrored;
      std::complex<T> v = in[b * half_total + half_index(p, k, h, &mirrored)];
      x[size_t(k)] = mirrored ? std::conj(v) : v;
    }
    dft<T>(p, x.data(), y.data(), 1);
    for (long long j = 0; j < total; ++j) out[b * total + j] = y[size_t(j)].real();
  }
}

template <class T> void c2c(const FakePlan& p, const std::complex<T>* in, std::complex<T>* out, int dir) {
  long long total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.n[d];
  std::vector<std::complex<T>> y(static_cast<size_t>(total));
  for (long long b = 0; b < p.batch; ++b) {
    dft<T>(p, in + b * total, y.data(), dir);
    for (long long k = 0; k < total; ++k) out[b * total + k] = y[size_t(k)];
  }
}

// cuFFT loads its input as complex elements, real input included (PyTorch copies real input that
// is not aligned as complex): the fake refuses such addresses, where the real library would fault.
cufftResult queued(cufftHandle h, cufftType want, const void* in, size_t complex_bytes) {
  FakePlan* p = plan_of(h);
  if (!p || !p->made) return CUFFT_INVALID_PLAN;
  if (p->type != want) return CUFFT_INVALID_TYPE;
  if (reinterpret_cast<std::uintptr_t>(in) % complex_bytes != 0) return CUFFT_INVALID_VALUE;
  fakegpu_trace_call("cufft exec");
  fakegpu_device_work();
  return CUFFT_SUCCESS;
}

}  // namespace

extern "C" {

cufftResult cufftCreate(cufftHandle* handle) {
  plans().push_back(new FakePlan());
  *handle = cufftHandle(plans().size());
  return CUFFT_SUCCESS;
}
cufftResult cufftDestroy(cufftHandle plan) {
  FakePlan* p = plan_of(plan);
  if (!p) return CUFFT_INVALID_PLAN;
  delete p;
  plans()[size_t(plan) - 1] = nullptr;
  return CUFFT_SUCCESS;
}
cufftResult cufftSetAutoAllocation(cufftHandle, int) { return CUFFT_SUCCESS; }
cufftResult cufftSetWorkArea(cufftHandle, void*) { return CUFFT_SUCCESS; }
cufftResult cufftSetStream(cufftHandle, cudaStream_t) { return CUFFT_SUCCESS; }
cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int* n, long long int* inembed,
                                long long int, long long int, long long int* onembed, long long int, long long int,
                                cufftType type, long long int batch, size_t* work) {
  FakePlan* p = plan_of(plan);
  if (!p) return CUFFT_INVALID_PLAN;
  if (rank < 1 || rank > 3 || batch < 1) return CUFFT_INVALID_VALUE;
  if (inembed || onembed) return CUFFT_NOT_SUPPORTED;
  p->rank = rank;
  for (int d = 0; d < rank; ++d) p->n[d] = n[d];
  p->batch = batch;
  p->type = type;
  p->made = true;
  *work = kWork;
  return CUFFT_SUCCESS;
}
cufftResult cufftExecC2C(cufftHandle h, cufftComplex* in, cufftComplex* out, int dir) {
  cufftResult r = queued(h, CUFFT_C2C, in, 8);
  if (r == CUFFT_SUCCESS)
    c2c<float>(*plan_of(h), reinterpret_cast<std::complex<float>*>(in), reinterpret_cast<std::complex<float>*>(out), dir);
  return r;
}
cufftResult cufftExecZ2Z(cufftHandle h, cufftDoubleComplex* in, cufftDoubleComplex* out, int dir) {
  cufftResult r = queued(h, CUFFT_Z2Z, in, 16);
  if (r == CUFFT_SUCCESS)
    c2c<double>(*plan_of(h), reinterpret_cast<std::complex<double>*>(in), reinterpret_cast<std::complex<double>*>(out),
                dir);
  return r;
}
cufftResult cufftExecR2C(cufftHandle h, cufftReal* in, cufftComplex* out) {
  cufftResult r = queued(h, CUFFT_R2C, in, 8);
  if (r == CUFFT_SUCCESS) r2c<float>(*plan_of(h), in, reinterpret_cast<std::complex<float>*>(out));
  return r;
}
cufftResult cufftExecD2Z(cufftHandle h, cufftDoubleReal* in, cufftDoubleComplex* out) {
  cufftResult r = queued(h, CUFFT_D2Z, in, 16);
  if (r == CUFFT_SUCCESS) r2c<double>(*plan_of(h), in, reinterpret_cast<std::complex<double>*>(out));
  return r;
}
cufftResult cufftExecC2R(cufftHandle h, cufftComplex* in, cufftReal* out) {
  cufftResult r = queued(h, CUFFT_C2R, in, 8);
  if (r == CUFFT_SUCCESS) c2r<float>(*plan_of(h), reinterpret_cast<std::complex<float>*>(in), out);
  return r;
}
cufftResult cufftExecZ2D(cufftHandle h, cufftDoubleComplex* in, cufftDoubleReal* out) {
  cufftResult r = queued(h, CUFFT_Z2D, in, 16);
  if (r == CUFFT_SUCCESS) c2r<double>(*plan_of(h), reinterpret_cast<std::complex<double>*>(in), out);
  return r;
}

}  // extern "C"
