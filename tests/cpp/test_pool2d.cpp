// 2-D max and average pooling (core/ops/pool2d.h) against naive f64 loops: kernel, stride,
// padding, ceil mode, count_include_pad, one sample or a batch, f32 and f64, non-contiguous
// inputs; the backward ops as exact adjoints; 1 vs 2 threads; results into given tensors; errors.
#include <limits>
#include "core/ops/pool2d.h"
#include "kernels/cpu/parallel.h"
#include "tests/cpp/test_conv_util.h"

using namespace tocha;
using namespace tocha::testconv;

namespace {

struct PoolCase {
  DimVec in;  // 3-D or 4-D
  Pool2dOptions o;
};

std::vector<PoolCase> pool_cases() {
  std::vector<PoolCase> v;
  PoolCase a;  // the CNN's 2x2 stride 2
  a.in = {2, 3, 6, 8};
  a.o.kernel[0] = a.o.kernel[1] = 2;
  a.o.stride[0] = a.o.stride[1] = 2;
  v.push_back(a);
  PoolCase b;  // uneven kernel, padding, ceil mode, one sample
  b.in = {3, 7, 6};
  b.o.kernel[0] = 3;
  b.o.kernel[1] = 2;
  b.o.stride[0] = b.o.stride[1] = 2;
  b.o.padding[0] = b.o.padding[1] = 1;
  b.o.ceil_mode = true;
  v.push_back(b);
  PoolCase c = b;  // average excluding the padding
  c.in = {2, 2, 5, 7};
  c.o.count_include_pad = false;
  v.push_back(c);
  PoolCase d;  // overlapping windows, stride 1
  d.in = {1, 2, 5, 5};
  d.o.kernel[0] = d.o.kernel[1] = 3;
  v.push_back(d);
  return v;
}

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode) {
  int64_t span = in + 2 * p - k;
  int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;
  return o;
}

// Naive pooling: values, 0-based flat argmax positions (max) or averages, in output order.
void ref_pool(const PoolCase& c, const Tensor& x, bool max, std::vector<double>* vals, std::vector<double>* idx,
              DimVec* shape) {
  const int hd = int(c.in.size()) - 2;
  const int64_t planes = hd == 2 ? c.in[0] * c.in[1] : c.in[0], H = c.in[hd], W = c.in[hd + 1];
  const Pool2dOptions& o = c.o;
  const int64_t oH = out_size(H, o.kernel[0], o.stride[0], o.padding[0], o.ceil_mode);
  const int64_t oW = out_size(W, o.kernel[1], o.stride[1], o.padding[1], o.ceil_mode);
  *shape = c.in;
  (*shape)[hd] = oH;
  (*shape)[hd + 1] = oW;
  std::vector<double> xv = values(x);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oH; ++i)
      for (int64_t j = 0; j < oW; ++j) {
        const int64_t h0 = i * o.stride[0] - o.padding[0], w0 = j * o.stride[1] - o.padding[1];
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t arg = -1, inside = 0;
        const int64_t hend = std::min(h0 + o.kernel[0], H + o.padding[0]), wend = std::min(w0 + o.kernel[1], W + o.padding[1]);
        const int64_t padded = (hend - h0) * (wend - w0);
        for (int64_t h = std::max<int64_t>(h0, 0); h < std::min(h0 + o.kernel[0], H); ++h)
          for (int64_t w = std::max<int64_t>(w0, 0); w < std::min(w0 + o.kernel[1], W); ++w) {
            double v = xv[size_t(p * H * W + h * W + w)];
            if (v > best) best = v, arg = h * W + w;
            sum += v;
            ++inside;
          }
        if (max) {
          vals->push_back(best);
          idx->push_back(double(arg));
        } else {
          vals->push_back(sum / double(o.count_include_pad ? padded : inside));
        }
      }
}

}  // namespace

TEST_CASE("pool2d matches the naive reference", "[pool2d]") {
  for (DType dt : {DType::f32, DType::f64})
    for (const PoolCase& c : pool_cases())
      for (bool nc : {false, true}) {
        Tensor x = reals(c.in, dt, 21);
        if (nc) x = strided(x);
        std::vector<double> mv, mi, av, none;
        DimVec shape;
        ref_pool(c, x, true, &mv, &mi, &shape);
        ref_pool(c, x, false, &av, &none, &shape);
        MaxPool2dResult m = max_pool2d(x, c.o, 0);
        CHECK(m.values.sizes() == shape);
        CHECK(m.indices.dtype() == DType::i64);
        CHECK(max_diff(m.values, mv) == 0);
        CHECK(max_diff(m.indices, mi) == 0);
        MaxPool2dResult m1 = max_pool2d(x, c.o, 1);  // Lua's 1-based positions
        for (double& v : mi) v += 1;
        CHECK(max_diff(m1.indices, mi) == 0);
        Tensor a = avg_pool2d(x, c.o);
        CHECK(a.sizes() == shape);
        CHECK(max_diff(a, av) < tolerance(dt));
      }
}

TEST_CASE("pool2d backward ops are the adjoints of pooling", "[pool2d]") {
  for (DType dt : {DType::f32, DType::f64})
    for (const PoolCase& c : pool_cases()) {
      Tensor x = reals(c.in, dt, 22);
      MaxPool2dResult m = max_pool2d(x, c.o, 0);
      Tensor g = reals(m.values.sizes(), dt, 23);
      // <max_pool(x) selected, g> == <x, scatter(g)> and <avg(x), g> == <x, avg_backward(g)>
      Tensor gm = max_pool2d_backward(g, m.indices, c.in, 0);
      CHECK(gm.sizes() == c.in);
      CHECK(std::fabs(dot_all(m.values, g) - dot_all(x, gm)) < 1e3 * tolerance(dt));
      Tensor ga = avg_pool2d_backward(strided(g), c.in, c.o);
      CHECK(std::fabs(dot_all(avg_pool2d(x, c.o), g) - dot_all(x, ga)) < 1e3 * tolerance(dt));
    }
}

TEST_CASE("pool2d gives the same results on one and two threads", "[pool2d]") {
  PoolCase c = pool_cases()[1];
  c.in = {5, 4, 13, 11};
  Tensor x = reals(c.in, DType::f64, 24);
  int before = cpu::get_num_threads();
  Tensor r[2][3];
  for (int t = 0; t < 2; ++t) {
    cpu::set_num_threads(t + 1);
    MaxPool2dResult m = max_pool2d(x, c.o, 1);
    r[t][0] = m.values;
    r[t][1] = max_pool2d_backward(m.values, m.indices, c.in, 1);
    r[t][2] = avg_pool2d_backward(avg_pool2d(x, c.o), c.in, c.o);
  }
  cpu::set_num_threads(before);
  for (int k = 0; k < 3; ++k) CHECK(max_diff(r[1][k], values(r[0][k])) == 0);
}

TEST_CASE("pool2d writes into given tensors and reuses their buffers", "[pool2d]") {
  PoolCase c = pool_cases()[0];
  Tensor x = reals(c.in, DType::f32, 25);
  Tensor v = empty({1}, DType::f32), i = empty({1}, DType::i64), a = empty({7}, DType::f32);
  max_pool2d_out(v, i, x, c.o, 1);
  MaxPool2dResult m = max_pool2d(x, c.o, 1);
  CHECK(max_diff(v, values(m.values)) == 0);
  CHECK(max_diff(i, values(m.indices)) == 0);
  void* data = v.raw_data();
  max_pool2d_out(v, i, x, c.o, 1);
  CHECK(v.raw_data() == data);
  avg_pool2d_out(a, x, c.o);
  CHECK(max_diff(a, values(avg_pool2d(x, c.o))) == 0);
  Tensor gi = empty({2}, DType::f32);
  max_pool2d_backward_out(gi, m.values, m.indices, c.in, 1);
  CHECK(gi.sizes() == c.in);
  avg_pool2d_backward_out(gi, a, c.in, c.o);
  CHECK(max_diff(gi, values(avg_pool2d_backward(a, c.in, c.o))) == 0);
}

TEST_CASE("pool2d errors name the op, the sizes and the options", "[pool2d]") {
  Pool2dOptions o;
  o.kernel[0] = o.kernel[1] = 3;
  CHECK_THROWS_WITH(max_pool2d(zeros({5}, DType::f32), o, 0),
                    Catch::Contains("[maxPool2d] expected a 3D (C x H x W) or 4D (N x C x H x W) input, got size 5"));
  CHECK_THROWS_WITH(avg_pool2d(zeros({1, 2, 2}, DType::f32), o),
                    Catch::Contains("[avgPool2d] input of size 1x2x2 is smaller than the kernel (kernel 3x3"));
  Pool2dOptions p = o;
  p.padding[1] = 2;
  CHECK_THROWS_WITH(max_pool2d(zeros({1, 5, 5}, DType::f32), p, 0), Catch::Contains("at most half the kernel"));
  Pool2dOptions s = o;
  s.stride[0] = 0;
  CHECK_THROWS_WITH(avg_pool2d(zeros({1, 5, 5}, DType::f32), s), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(max_pool2d(zeros({1, 5, 5}, DType::i64), o, 0), Catch::Contains("floating-point"));
  MaxPool2dResult m = max_pool2d(zeros({1, 4, 4}, DType::f32), o, 0);
  Tensor bad = full(m.indices.sizes(), 16, DType::i64);
  CHECK_THROWS_WITH(max_pool2d_backward(m.values, bad, {1, 4, 4}, 0),
                    Catch::Contains("[maxPool2dBackward] indices must lie in [0, 15] (positions in a 4x4 plane), got 16"));
  // one bad position among good ones, in a later plane of a batch: found by the kernel as it goes
  MaxPool2dResult mb = max_pool2d(zeros({3, 2, 4, 4}, DType::f32), o, 1);
  Tensor one_bad = clone(mb.indices);
  set_item_at(one_bad, one_bad.numel() - 2, -5);
  CHECK_THROWS_WITH(max_pool2d_backward(mb.values, one_bad, {3, 2, 4, 4}, 1),
                    Catch::Contains("indices must lie in [1, 16] (positions in a 4x4 plane), got -5"));
  CHECK_THROWS_WITH(max_pool2d_backward(m.values, m.indices, {2, 4, 4}, 0), Catch::Contains("do not fit an input"));
  // empty input planes: no kernel runs, and any position is out of place
  CHECK_THROWS_WITH(max_pool2d_backward(zeros({1, 2, 2}, DType::f32), full({1, 2, 2}, 99, DType::i64), {1, 0, 4}, 0),
                    Catch::Contains("indices of size 1x2x2 hold positions but the input of size 1x0x4 has empty planes"));
}
