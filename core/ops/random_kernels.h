// Signatures of the random kernels, registered per (op, device, dtype). Outputs are contiguous
// and every parameter was validated by the front-ends (core/ops/random.cpp); kernels follow
// Note [Random streams] in core/ops/random_dist.h.
#pragma once
#include <cstdint>
#include "core/rng.h"

namespace tocha {

// uniform {a, b}, normal {mean, std}, logNormal {mu, sigma of the underlying normal},
// exponential {lambda}, cauchy {median, sigma}, geometric {p}: fills n elements at out.
using RandomFillKernel = void (*)(void* out, int64_t n, Generator& gen, const double* params);
// The same fills on a device, from that device's Philox generator (Note [Device random fills],
// core/ops/random.cpp): fills n contiguous elements at out on device `device`.
using DeviceRandomFillKernel = void (*)(void* out, int64_t n, int device, const double* params);
// bernoulli: probability p for every element, or probs[i] (n contiguous doubles) when non-null.
using BernoulliKernel = void (*)(void* out, int64_t n, Generator& gen, double p, const double* probs);
// random: integers in [lo, lo + range); range 0 means 2^64.
using RandomIntKernel = void (*)(void* out, int64_t n, Generator& gen, int64_t lo, uint64_t range);
// The same on a device, from that device's Philox generator (Note [Device random fills]).
using DeviceRandomIntKernel = void (*)(void* out, int64_t n, int device, int64_t lo, uint64_t range);
// randperm: a permutation of base .. base + n - 1.
using RandpermKernel = void (*)(void* out, int64_t n, Generator& gen, int64_t base);
// The same on a device, from that device's Philox generator (Note [Device randperm]): false
// when the device cannot serve this n (the front-end then draws on the host).
using DeviceRandpermKernel = bool (*)(void* out, int64_t n, int device, int64_t base);
// multinomial: probs is rows x k contiguous (the kernel's dtype), out rows x n int64 indices
// (plus base). Rows have a positive sum and, without replacement, at least n non-zero weights.
using MultinomialKernel = void (*)(int64_t* out, const void* probs, int64_t rows, int64_t k, int64_t n,
                                   bool replacement, int64_t base, Generator& gen);
// The same on a device (Note [Device multinomial]): probs and out on device `device`; the kernel
// checks the weights itself and reports bad rows as deferred device errors. False when it cannot
// serve these sizes (the front-end then draws on the host).
using DeviceMultinomialKernel = bool (*)(int64_t* out, const void* probs, int64_t rows, int64_t k, int64_t n,
                                         bool replacement, int64_t base, int device);

}  // namespace tocha
