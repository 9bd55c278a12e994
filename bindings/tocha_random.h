/* tocha_random.h -- C ABI of the random op family (generators, scalar draws, in-place fills,
 * multinomial, randperm) and of the computed factories (range, arange, linspace, logspace, eye).
 * Included by tocha.h; see its conventions. A NULL generator means the default generator. */
#ifndef TOCHA_RANDOM_ABI_H
#define TOCHA_RANDOM_ABI_H

/* An MT19937 generator (Torch7's torch.Generator); thread-safe, reference counted. */
typedef struct tocha_generator tocha_generator;

/* ---- generators ---------------------------------------------------------------------------- */
/* A new generator seeded from /dev/urandom, with one reference for the caller. */
TOCHA_API tocha_generator *tocha_generator_new(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_generator_retain(tocha_generator *g) TOCHA_NOEXCEPT;
TOCHA_API void tocha_generator_release(tocha_generator *g) TOCHA_NOEXCEPT;
/* The process-wide default generator (never freed; retain/release are no-ops on it). */
TOCHA_API tocha_generator *tocha_generator_default(void) TOCHA_NOEXCEPT;
/* Seeds with `seed` (seeds below 2^32 give std::mt19937's stream) and clears the cached normal. */
TOCHA_API int tocha_generator_manual_seed(tocha_generator *g, uint64_t seed) TOCHA_NOEXCEPT;
/* Seeds from the OS entropy source; stores the seed (< 2^53) in *seed. */
TOCHA_API int tocha_generator_seed(tocha_generator *g, uint64_t *seed) TOCHA_NOEXCEPT;
TOCHA_API int tocha_generator_initial_seed(tocha_generator *g, uint64_t *seed) TOCHA_NOEXCEPT;
/* Bytes of a state snapshot. */
TOCHA_API int64_t tocha_generator_state_size(void) TOCHA_NOEXCEPT;
/* A new 1D ByteTensor holding the full state (MT words, position, seed, cached normal). */
TOCHA_API tocha_tensor *tocha_generator_get_state(tocha_generator *g) TOCHA_NOEXCEPT;
/* Restores a snapshot; a tensor of the wrong type or size, or with corrupt contents, fails. */
TOCHA_API int tocha_generator_set_state(tocha_generator *g, const tocha_tensor *state) TOCHA_NOEXCEPT;
/* dst continues exactly as src would. */
TOCHA_API int tocha_generator_copy(tocha_generator *dst, tocha_generator *src) TOCHA_NOEXCEPT;

/* ---- scalar draws (Torch7's torch.uniform() ...); the value goes to *out ------------------- */
TOCHA_API int tocha_draw_uniform(tocha_generator *g, double a, double b, double *out) TOCHA_NOEXCEPT;
TOCHA_API int tocha_draw_normal(tocha_generator *g, double mean, double std, double *out) TOCHA_NOEXCEPT;
TOCHA_API int tocha_draw_log_normal(tocha_generator *g, double mean, double std, double *out) TOCHA_NOEXCEPT;
TOCHA_API int tocha_draw_exponential(tocha_generator *g, double lambda, double *out) TOCHA_NOEXCEPT;
TOCHA_API int tocha_draw_cauchy(tocha_generator *g, double median, double sigma, double *out) TOCHA_NOEXCEPT;
TOCHA_API int tocha_draw_geometric(tocha_generator *g, double p, double *out) TOCHA_NOEXCEPT;
TOCHA_API int tocha_draw_bernoulli(tocha_generator *g, double p, double *out) TOCHA_NOEXCEPT;
/* An integer in [lo, hi], inclusive. */
TOCHA_API int tocha_draw_integer(tocha_generator *g, int64_t lo, int64_t hi, int64_t *out) TOCHA_NOEXCEPT;

/* ---- in-place fills (any device and strides; floating tensors unless noted) ---------------- */
TOCHA_API int tocha_uniform_(tocha_tensor *t, tocha_generator *g, double a, double b) TOCHA_NOEXCEPT;
TOCHA_API int tocha_normal_(tocha_tensor *t, tocha_generator *g, double mean, double std) TOCHA_NOEXCEPT;
/* Torch7's logNormal: mean and std of the log-normal values. */
TOCHA_API int tocha_log_normal_(tocha_tensor *t, tocha_generator *g, double mean, double std) TOCHA_NOEXCEPT;
TOCHA_API int tocha_exponential_(tocha_tensor *t, tocha_generator *g, double lambda) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cauchy_(tocha_tensor *t, tocha_generator *g, double median, double sigma) TOCHA_NOEXCEPT;
/* Any numeric tensor; Torch7's P(i) = (1-p) p^(i-1). */
TOCHA_API int tocha_geometric_(tocha_tensor *t, tocha_generator *g, double p) TOCHA_NOEXCEPT;
/* Any tensor: 1 with probability p (or probs[i], broadcast to t or with as many elements). */
TOCHA_API int tocha_bernoulli_(tocha_tensor *t, tocha_generator *g, double p) TOCHA_NOEXCEPT;
TOCHA_API int tocha_bernoulli_tensor_(tocha_tensor *t, tocha_generator *g, const tocha_tensor *probs) TOCHA_NOEXCEPT;
/* Integers in [lo, hi] (inclusive, fitting t's dtype). */
TOCHA_API int tocha_random_(tocha_tensor *t, tocha_generator *g, int64_t lo, int64_t hi) TOCHA_NOEXCEPT;
/* Torch7's x:random(): integers in [0, tocha_random_max(dtype)]. */
TOCHA_API int tocha_random_default_(tocha_tensor *t, tocha_generator *g) TOCHA_NOEXCEPT;
TOCHA_API int64_t tocha_random_max(int dtype) TOCHA_NOEXCEPT;

/* ---- sampling ------------------------------------------------------------------------------ */
/* n indices per row of 1D/2D non-negative weights, in [index_base, index_base + k). */
TOCHA_API tocha_tensor *tocha_multinomial(const tocha_tensor *probs, tocha_generator *g, int64_t n, int replacement,
                                          int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API int tocha_multinomial_out(tocha_tensor *out, const tocha_tensor *probs, tocha_generator *g, int64_t n,
                                    int replacement, int64_t index_base) TOCHA_NOEXCEPT;
/* A permutation of index_base .. index_base + n - 1. */
TOCHA_API tocha_tensor *tocha_randperm(int64_t n, tocha_generator *g, int dtype, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API int tocha_randperm_out(tocha_tensor *out, int64_t n, tocha_generator *g, int64_t index_base) TOCHA_NOEXCEPT;

/* ---- computed factories (CPU tensors of dtype; _out resizes out) --------------------------- */
/* Torch7's range: end inclusive. */
TOCHA_API tocha_tensor *tocha_range(double start, double end, double step, int dtype) TOCHA_NOEXCEPT;
TOCHA_API int tocha_range_out(tocha_tensor *out, double start, double end, double step) TOCHA_NOEXCEPT;
/* PyTorch's arange: end exclusive. */
TOCHA_API tocha_tensor *tocha_arange(double start, double end, double step, int dtype) TOCHA_NOEXCEPT;
TOCHA_API int tocha_arange_out(tocha_tensor *out, double start, double end, double step) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linspace(double a, double b, int64_t n, int dtype) TOCHA_NOEXCEPT;
TOCHA_API int tocha_linspace_out(tocha_tensor *out, double a, double b, int64_t n) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_logspace(double a, double b, int64_t n, double base, int dtype) TOCHA_NOEXCEPT;
TOCHA_API int tocha_logspace_out(tocha_tensor *out, double a, double b, int64_t n, double base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_eye(int64_t n, int64_t m, int dtype) TOCHA_NOEXCEPT;
TOCHA_API int tocha_eye_out(tocha_tensor *out, int64_t n, int64_t m) TOCHA_NOEXCEPT;

#endif
