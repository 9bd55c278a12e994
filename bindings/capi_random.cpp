// C ABI of generators, scalar draws, random fills, sampling and the computed factories.
#include "capi.h"
#include "core/type_name.h"
#include <cstring>
#include "core/ops/factory.h"
#include "core/ops/pointwise.h"
#include "core/ops/random.h"
#include "core/ops/random_scalar.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

// tocha_generator is the C name of a Generator; NULL is the default generator.
Generator& gen_arg(tocha_generator* g) {
  return g ? *reinterpret_cast<Generator*>(g) : default_generator();
}
tocha_generator* gen_handle(Generator* g) { return reinterpret_cast<tocha_generator*>(g); }
bool is_default(tocha_generator* g) { return !g || reinterpret_cast<Generator*>(g) == &default_generator(); }

template <class F> int draw(double* out, const char* op, F&& f) {
  return guard_int([&] {
    TOCHA_CHECK(out, op, "result pointer is NULL");
    *out = lua_number(f());
  });
}

}  // namespace

// ---- generators ---------------------------------------------------------------------------------

tocha_generator* tocha_generator_new(void) noexcept {
  tocha_generator* g = nullptr;
  guard_int([&] { g = gen_handle(new Generator()); });
  return g;
}
void tocha_generator_retain(tocha_generator* g) noexcept {
  if (!is_default(g)) gen_arg(g).retain();
}
void tocha_generator_release(tocha_generator* g) noexcept {
  if (!is_default(g) && gen_arg(g).release_ref()) delete &gen_arg(g);
}
tocha_generator* tocha_generator_default(void) noexcept { return gen_handle(&default_generator()); }
int tocha_generator_manual_seed(tocha_generator* g, uint64_t seed) noexcept {
  return guard_int([&] { gen_arg(g).manual_seed(seed); });
}
int tocha_generator_seed(tocha_generator* g, uint64_t* seed) noexcept {
  return guard_int([&] {
    uint64_t s = gen_arg(g).seed();
    if (seed) *seed = s;
  });
}
int tocha_generator_initial_seed(tocha_generator* g, uint64_t* seed) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(seed, "initialSeed", "result pointer is NULL");
    *seed = gen_arg(g).initial_seed();
  });
}
int64_t tocha_generator_state_size(void) noexcept { return int64_t(sizeof(GeneratorState)); }
tocha_tensor* tocha_generator_get_state(tocha_generator* g) noexcept {
  return guard_tensor([&] {
    GeneratorState s = gen_arg(g).get_state();
    Tensor t = empty(DimVec{int64_t(sizeof(s))}, DType::u8);
    std::memcpy(t.raw_data(), &s, sizeof(s));
    return t;
  });
}
int tocha_generator_set_state(tocha_generator* g, const tocha_tensor* state) noexcept {
  return guard_int([&] {
    Tensor t = arg(state, "setRNGState");
    TOCHA_CHECK(t.dtype() == DType::u8, "setRNGState", "expected a torch.ByteTensor (from getRNGState), got a ",
                tensor_type_name(t));
    Tensor c = t;
    if (!c.is_cpu() || !c.is_contiguous()) { c = empty(t.sizes(), DType::u8); copy_(c, t); }
    gen_arg(g).set_state(c.raw_data(), size_t(c.numel()), "setRNGState");
  });
}
int tocha_generator_copy(tocha_generator* dst, tocha_generator* src) noexcept {
  return guard_int([&] { gen_arg(dst).copy_from(gen_arg(src)); });
}

// ---- scalar draws -------------------------------------------------------------------------------

int tocha_draw_uniform(tocha_generator* g, double a, double b, double* out) noexcept {
  return draw(out, "uniform", [&] { return draw_uniform(gen_arg(g), a, b); });
}
int tocha_draw_normal(tocha_generator* g, double mean, double std, double* out) noexcept {
  return draw(out, "normal", [&] { return draw_normal(gen_arg(g), mean, std); });
}
int tocha_draw_log_normal(tocha_generator* g, double mean, double std, double* out) noexcept {
  return draw(out, "logNormal", [&] { return draw_log_normal(gen_arg(g), mean, std); });
}
int tocha_draw_exponential(tocha_generator* g, double lambda, double* out) noexcept {
  return draw(out, "exponential", [&] { return draw_exponential(gen_arg(g), lambda); });
}
int tocha_draw_cauchy(tocha_generator* g, double median, double sigma, double* out) noexcept {
  return draw(out, "cauchy", [&] { return draw_cauchy(gen_arg(g), median, sigma); });
}
int tocha_draw_geometric(tocha_generator* g, double p, double* out) noexcept {
  return draw(out, "geometric", [&] { return draw_geometric(gen_arg(g), p); });
}
int tocha_draw_bernoulli(tocha_generator* g, double p, double* out) noexcept {
  return draw(out, "bernoulli", [&] { return draw_bernoulli(gen_arg(g), p); });
}
int tocha_draw_integer(tocha_generator* g, int64_t lo, int64_t hi, int64_t* out) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(out, "random", "result pointer is NULL");
    *out = draw_integer(gen_arg(g), lo, hi);
  });
}

// ---- fills --------------------------------------------------------------------------------------

int tocha_uniform_(tocha_tensor* t, tocha_generator* g, double a, double b) noexcept {
  return guard_int([&] { uniform_(arg(t, "uniform"), gen_arg(g), a, b); });
}
int tocha_normal_(tocha_tensor* t, tocha_generator* g, double mean, double std) noexcept {
  return guard_int([&] { normal_(arg(t, "normal"), gen_arg(g), mean, std); });
}
int tocha_log_normal_(tocha_tensor* t, tocha_generator* g, double mean, double std) noexcept {
  return guard_int([&] { log_normal_(arg(t, "logNormal"), gen_arg(g), mean, std); });
}
int tocha_exponential_(tocha_tensor* t, tocha_generator* g, double lambda) noexcept {
  return guard_int([&] { exponential_(arg(t, "exponential"), gen_arg(g), lambda); });
}
int tocha_cauchy_(tocha_tensor* t, tocha_generator* g, double median, double sigma) noexcept {
  return guard_int([&] { cauchy_(arg(t, "cauchy"), gen_arg(g), median, sigma); });
}
int tocha_geometric_(tocha_tensor* t, tocha_generator* g, double p) noexcept {
  return guard_int([&] { geometric_(arg(t, "geometric"), gen_arg(g), p); });
}
int tocha_bernoulli_(tocha_tensor* t, tocha_generator* g, double p) noexcept {
  return guard_int([&] { bernoulli_(arg(t, "bernoulli"), gen_arg(g), p); });
}
int tocha_bernoulli_tensor_(tocha_tensor* t, tocha_generator* g, const tocha_tensor* probs) noexcept {
  return guard_int([&] { bernoulli_(arg(t, "bernoulli"), gen_arg(g), arg(probs, "bernoulli")); });
}
int tocha_random_(tocha_tensor* t, tocha_generator* g, int64_t lo, int64_t hi) noexcept {
  return guard_int([&] { random_(arg(t, "random"), gen_arg(g), lo, hi); });
}
int tocha_random_default_(tocha_tensor* t, tocha_generator* g) noexcept {
  return guard_int([&] { random_(arg(t, "random"), gen_arg(g)); });
}
int64_t tocha_random_max(int dtype) noexcept {
  int64_t r = -1;
  guard_int([&] { r = random_max(arg_dtype(dtype, "random")); });
  return r;
}

// ---- sampling -----------------------------------------------------------------------------------

tocha_tensor* tocha_multinomial(const tocha_tensor* probs, tocha_generator* g, int64_t n, int replacement,
                                int64_t base) noexcept {
  return guard_tensor([&] { return multinomial(arg(probs, "multinomial"), gen_arg(g), n, replacement != 0, base); });
}
int tocha_multinomial_out(tocha_tensor* out, const tocha_tensor* probs, tocha_generator* g, int64_t n,
                          int replacement, int64_t base) noexcept {
  return guard_int([&] {
    multinomial_out(arg(out, "multinomial"), arg(probs, "multinomial"), gen_arg(g), n, replacement != 0, base);
  });
}
tocha_tensor* tocha_randperm(int64_t n, tocha_generator* g, int dtype, int64_t base) noexcept {
  return guard_tensor([&] { return randperm(n, gen_arg(g), arg_dtype(dtype, "randperm"), base); });
}
int tocha_randperm_out(tocha_tensor* out, int64_t n, tocha_generator* g, int64_t base) noexcept {
  return guard_int([&] { randperm_out(arg(out, "randperm"), n, gen_arg(g), base); });
}

// ---- computed factories -------------------------------------------------------------------------

tocha_tensor* tocha_range(double start, double end, double step, int dtype) noexcept {
  return guard_tensor([&] { return range(start, end, step, arg_dtype(dtype, "range")); });
}
int tocha_range_out(tocha_tensor* out, double start, double end, double step) noexcept {
  return guard_int([&] { range_out(arg(out, "range"), start, end, step); });
}
tocha_tensor* tocha_arange(double start, double end, double step, int dtype) noexcept {
  return guard_tensor([&] { return arange(start, end, step, arg_dtype(dtype, "arange")); });
}
int tocha_arange_out(tocha_tensor* out, double start, double end, double step) noexcept {
  return guard_int([&] { arange_out(arg(out, "arange"), start, end, step); });
}
tocha_tensor* tocha_linspace(double a, double b, int64_t n, int dtype) noexcept {
  return guard_tensor([&] { return linspace(a, b, n, arg_dtype(dtype, "linspace")); });
}
int tocha_linspace_out(tocha_tensor* out, double a, double b, int64_t n) noexcept {
  return guard_int([&] { linspace_out(arg(out, "linspace"), a, b, n); });
}
tocha_tensor* tocha_logspace(double a, double b, int64_t n, double base, int dtype) noexcept {
  return guard_tensor([&] { return logspace(a, b, n, base, arg_dtype(dtype, "logspace")); });
}
int tocha_logspace_out(tocha_tensor* out, double a, double b, int64_t n, double base) noexcept {
  return guard_int([&] { logspace_out(arg(out, "logspace"), a, b, n, base); });
}
tocha_tensor* tocha_eye(int64_t n, int64_t m, int dtype) noexcept {
  return guard_tensor([&] { return eye(n, m, arg_dtype(dtype, "eye")); });
}
int tocha_eye_out(tocha_tensor* out, int64_t n, int64_t m) noexcept {
  return guard_int([&] { eye_out(arg(out, "eye"), n, m); });
}
