// Convolution front-ends against the naive f64 reference: 1-D, 2-D and 3-D, stride, padding,
// dilation, groups, bias, one sample or a batch, f32 and f64, non-contiguous operands; the
// transposed convolution and the weight gradient as exact adjoints; nn's accumulating forms;
// 1 vs 2 threads; results written into given tensors; and the error messages.
#include "tests/cpp/test_conv_util.h"
#include "kernels/cpu/parallel.h"

using namespace tocha;
using namespace tocha::testconv;

namespace {

std::vector<Case> cases() {
  std::vector<Case> v;
  Case c;  // 2-D: uneven kernel, stride, padding, dilation and groups together
  c.in = {7, 6};
  c.k = {3, 2};
  c.o.stride[0] = 2;
  c.o.padding[0] = 1;
  c.o.dilation[1] = 2;
  c.o.groups = 2;
  v.push_back(c);
  Case p = c;  // one sample, no bias
  p.batched = false;
  p.bias = false;
  v.push_back(p);
  Case d;  // 1x1: the input is its own column matrix
  d.in = {5, 4};
  d.k = {1, 1};
  d.N = 3;
  v.push_back(d);
  Case s = d;  // 1x1 with stride: columns again
  s.o.stride[0] = s.o.stride[1] = 2;
  v.push_back(s);
  Case one;  // 1-D with stride and padding
  one.nd = 1;
  one.in = {9};
  one.k = {3};
  one.o.nd = 1;
  one.o.stride[0] = 2;
  one.o.padding[0] = 1;
  v.push_back(one);
  Case three;  // 3-D
  three.nd = 3;
  three.C = 2;
  three.O = 3;
  three.in = {3, 4, 5};
  three.k = {2, 3, 2};
  three.o.nd = 3;
  three.o.padding[1] = 1;
  three.o.stride[2] = 2;
  v.push_back(three);
  Case big;  // 3x3 same-padding, the CNN layer's shape in small
  big.C = 3;
  big.O = 5;
  big.N = 5;
  big.in = {6, 6};
  big.k = {3, 3};
  big.o.padding[0] = big.o.padding[1] = 1;
  v.push_back(big);
  return v;
}

std::string describe(const Case& c) {
  return str_cat(c.nd, "-D input ", shape_str(input_shape(c)), " weight ", shape_str(weight_shape(c)), " groups ",
                 c.o.groups, c.bias ? " bias" : "");
}

}  // namespace

TEST_CASE("conv matches the naive reference in every layout", "[conv]") {
  for (DType dt : {DType::f32, DType::f64})
    for (const Case& c : cases()) {
      INFO(dtype_name(dt) << " " << describe(c));
      Tensor x = reals(input_shape(c), dt, 1), w = reals(weight_shape(c), dt, 2), b = reals({c.O}, dt, 3);
      DimVec shape;
      std::vector<double> ref = ref_conv(c, x, w, c.bias ? &b : nullptr, &shape);
      Tensor y = conv(x, w, c.bias ? &b : nullptr, c.o);
      CHECK(y.sizes() == shape);
      CHECK(max_diff(y, ref) < tolerance(dt));
      Tensor bs = strided(b);
      Tensor y2 = conv(strided(x), transpose(clone(transpose(w, 0, 1)), 0, 1), c.bias ? &bs : nullptr, c.o);
      CHECK(max_diff(y2, ref) < tolerance(dt));
    }
}

TEST_CASE("convTranspose and convWeight are the adjoints of conv", "[conv]") {
  for (DType dt : {DType::f32, DType::f64})
    for (const Case& c : cases()) {
      INFO(dtype_name(dt) << " " << describe(c));
      Tensor x = reals(input_shape(c), dt, 4), w = reals(weight_shape(c), dt, 5);
      Tensor y = conv(x, w, nullptr, c.o);
      Tensor g = reals(y.sizes(), dt, 6);
      // <conv(x, w), g> = <x, convTranspose(g, w)> = <w, convWeight(x, g)>
      ConvOptions t = c.o;
      for (int d = 0; d < c.nd; ++d) {
        int64_t full = (y.size(y.dim() - c.nd + d) - 1) * t.stride[d] - 2 * t.padding[d] + t.dilation[d] * (c.k[d] - 1) + 1;
        t.output_padding[d] = c.in[d] - full;
      }
      Tensor gx = conv_transpose(strided(g), w, nullptr, t);
      CHECK(gx.sizes() == x.sizes());
      Tensor gw = conv_weight(strided(x), g, c.k, c.o);
      CHECK(gw.sizes() == w.sizes());
      double ref = dot_all(y, g), scale = std::max(1.0, std::fabs(ref)) * tolerance(dt) * 10;
      CHECK(std::fabs(dot_all(x, gx) - ref) < scale);
      CHECK(std::fabs(dot_all(w, gw) - ref) < scale);
      // convTranspose's bias is added to every output position of its channel.
      Tensor bc = reals({c.C}, dt, 7);
      Tensor withb = conv_transpose(g, w, &bc, t);
      std::vector<double> expect = values(gx);
      const int64_t plane = gx.numel() / (c.batched ? c.N * c.C : c.C);
      for (size_t i = 0; i < expect.size(); ++i) expect[i] += item_at(bc, int64_t(i / size_t(plane)) % c.C);
      CHECK(max_diff(withb, expect) < tolerance(dt));
    }
}

TEST_CASE("nn's accumulating forms scale, accumulate and sum the bias gradient", "[conv]") {
  Case c = cases()[0];
  Tensor x = reals(input_shape(c), DType::f64, 8), w = reals(weight_shape(c), DType::f64, 9);
  Tensor g = reals(conv(x, w, nullptr, c.o).sizes(), DType::f64, 10);
  Tensor dw = conv_weight(x, g, c.k, c.o);
  Tensor acc = reals(w.sizes(), DType::f64, 11);
  std::vector<double> expect = values(acc);
  for (size_t i = 0; i < expect.size(); ++i) expect[i] = 0.5 * expect[i] + 2 * item_at(dw, int64_t(i));
  conv_weight_acc(acc, x, g, c.o, 2, 0.5);
  CHECK(max_diff(acc, expect) < 1e-12);
  Tensor nan = full(w.sizes(), NAN, DType::f64);  // beta = 0 ignores old values, NaN included
  conv_weight_acc(nan, x, g, c.o, 1, 0);
  CHECK(max_diff(nan, values(dw)) < 1e-12);
  Tensor tw = transpose(clone(transpose(w, 0, 1)), 0, 1);  // a non-contiguous accumulator
  fill_(tw, 0);
  conv_weight_acc(tw, x, g, c.o, 1, 1);
  CHECK(max_diff(tw, values(dw)) < 1e-12);
  Tensor gb = full({c.O}, 1.0, DType::f64);
  conv_bias_acc(gb, g, 2, 3);
  for (int64_t o = 0; o < c.O; ++o) {
    double s = 0;
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t i = 0; i < g.size(2) * g.size(3); ++i) s += item_at(g, (n * c.O + o) * g.size(2) * g.size(3) + i);
    CHECK(std::fabs(item_at(gb, o) - (1 + 3 * s)) < 1e-12);
  }
}

// Note [Fused bias gradient]: convWeight's kernels that can (thin filters, oneDNN) write the bias
// gradient in the same pass, the others leave it to the front-end; every path must give
// grad_bias = beta * grad_bias + alpha * (grad_output's channel sums), never read it when beta = 0,
// and take a strided grad_bias through the front-end.
TEST_CASE("the weight gradient's call also accumulates the bias gradient", "[conv]") {
  Case thin;  // 1 input channel, 3x3: the thin CPU kernels
  thin.C = 1;
  thin.O = 6;
  thin.N = 3;
  thin.in = {9, 9};
  thin.k = {3, 3};
  thin.o.padding[0] = thin.o.padding[1] = 1;
  Case wide = thin;  // 8 input channels: oneDNN in f32, im2col in f64
  wide.C = 8;
  wide.O = 12;
  Case single = wide;  // one sample
  single.batched = false;
  std::vector<Case> all = {thin, wide, single, cases()[0]};  // cases()[0]: groups, strides, dilation
  const int before = cpu::get_num_threads();
  // the thin kernels take batches of at least one image per thread: 1 and 2 threads for batch 3
  for (int threads : {1, 2})
  for (DType dt : {DType::f32, DType::f64})
    for (size_t ci = 0; ci < all.size(); ++ci) {
      cpu::set_num_threads(threads);
      const Case& c = all[ci];
      INFO("case " << ci << " " << dtype_name(dt) << " threads " << threads);
      Tensor x = reals(input_shape(c), dt, 40), w = reals(weight_shape(c), dt, 41);
      Tensor g = reals(conv(x, w, nullptr, c.o).sizes(), dt, 42);
      const std::vector<double> sums = values(conv_bias_grad(to_dtype(g, DType::f64), c.nd));
      const std::vector<double> dw = values(conv_weight(to_dtype(x, DType::f64), to_dtype(g, DType::f64), c.k, c.o));
      const double tol = tolerance(dt) * 20;
      Tensor gw = reals(w.sizes(), dt, 43), gb = reals({c.O}, dt, 44);
      std::vector<double> expect_w = values(gw), expect_b = values(gb);
      for (size_t i = 0; i < expect_w.size(); ++i) expect_w[i] = 0.5 * expect_w[i] + 2 * dw[i];
      for (size_t i = 0; i < expect_b.size(); ++i) expect_b[i] = 0.5 * expect_b[i] + 2 * sums[i];
      conv_weight_acc(gw, x, g, c.o, 2, 0.5, &gb);
      CHECK(max_diff(gw, expect_w) < tol);
      CHECK(max_diff(gb, expect_b) < tol);
      Tensor nw = full(w.sizes(), NAN, dt), nb = full({c.O}, NAN, dt);  // beta = 0 over NaN
      conv_weight_acc(nw, x, g, c.o, 1, 0, &nb);
      CHECK(max_diff(nw, dw) < tol);
      CHECK(max_diff(nb, sums) < tol);
      Tensor pair = zeros({c.O, 2}, dt);  // a strided grad_bias: the front-end's sums
      Tensor sb = select(pair, 1, 0);
      conv_weight_acc(nw, x, g, c.o, 1, 1, &sb);
      CHECK(max_diff(sb, sums) < tol);
      CHECK(max_diff(select(pair, 1, 1), std::vector<double>(size_t(c.O), 0.0)) == 0);
    }
  cpu::set_num_threads(before);
  Tensor x = reals(input_shape(thin), DType::f32, 45);
  Tensor g = reals(conv(x, reals(weight_shape(thin), DType::f32, 46), nullptr, thin.o).sizes(), DType::f32, 47);
  Tensor gw = zeros(weight_shape(thin), DType::f32);
  CHECK_THROWS_WITH(conv_weight_acc(gw, x, g, thin.o, 1, 1, &gw),
                    Catch::Contains("[convWeight] grad_bias has size 6x1x3x3 but grad_output of size 3x6x9x9 has 6 channels"));
  Tensor longs = zeros({thin.O}, DType::i64);
  CHECK_THROWS_WITH(conv_weight_acc(gw, x, g, thin.o, 1, 1, &longs), Catch::Contains("grad_bias"));
}

TEST_CASE("one and two threads give the same results", "[conv]") {
  Case c = cases().back();
  c.N = 7;
  Tensor x = reals(input_shape(c), DType::f64, 12), w = reals(weight_shape(c), DType::f64, 13);
  Tensor g = reals(conv(x, w, nullptr, c.o).sizes(), DType::f64, 14);
  int before = cpu::get_num_threads();
  Tensor r[2][3];
  for (int t = 0; t < 2; ++t) {
    cpu::set_num_threads(t + 1);
    r[t][0] = conv(x, w, nullptr, c.o);
    ConvOptions o = c.o;
    r[t][1] = conv_transpose(g, w, nullptr, o);
    r[t][2] = conv_weight(x, g, c.k, c.o);
  }
  cpu::set_num_threads(before);
  for (int k = 0; k < 3; ++k) CHECK(max_diff(r[1][k], values(r[0][k])) < 1e-12);
}

TEST_CASE("conv writes into given tensors of any size and survives aliasing", "[conv]") {
  Case c = cases().back();
  Tensor x = reals(input_shape(c), DType::f32, 15), w = reals(weight_shape(c), DType::f32, 16), b = reals({c.O}, DType::f32, 17);
  DimVec shape;
  std::vector<double> ref = ref_conv(c, x, w, &b, &shape);
  Tensor out = empty({3}, DType::f32);
  conv_out(out, x, w, &b, c.o);
  CHECK(out.sizes() == shape);
  CHECK(max_diff(out, ref) < 2e-5);
  void* data = out.raw_data();
  conv_out(out, x, w, &b, c.o);  // the buffer is reused, not reallocated
  CHECK(out.raw_data() == data);
  Tensor nc = transpose(empty({shape[1], shape[0], shape[2], shape[3]}, DType::f32), 0, 1);
  conv_out(nc, x, w, &b, c.o);  // a non-contiguous result of the right size is filled in place
  CHECK(max_diff(nc, ref) < 2e-5);
  Tensor xs = clone(x);
  conv_out(xs, xs, w, &b, c.o);  // the result overwrites its own input
  CHECK(max_diff(xs, ref) < 2e-5);
  Tensor e = conv(empty({0, c.C, 6, 6}, DType::f32), w, &b, c.o);  // an empty batch
  CHECK(e.sizes() == DimVec({0, c.O, 6, 6}));
}

TEST_CASE("conv errors name the op, the sizes and the options", "[conv]") {
  ConvOptions o;
  Tensor x = zeros({2, 3, 8, 8}, DType::f32), w = zeros({16, 1, 5, 5}, DType::f32);
  CHECK_THROWS_WITH(conv(x, w, nullptr, o), "[conv] input of size 2x3x8x8 has 3 channels but weight of size "
                                            "16x1x5x5 with groups 1 expects 1");
  Tensor w3 = zeros({16, 3, 5, 5}, DType::f32);
  CHECK_THROWS_WITH(conv(zeros({2, 3, 4, 4}, DType::f32), w3, nullptr, o),
                    Catch::Contains("input of size 2x3x4x4 is smaller than the kernel") && Catch::Contains("spans 5"));
  CHECK_THROWS_WITH(conv(zeros({3, 8}, DType::f32), w3, nullptr, o),
                    Catch::Contains("[conv] expected a 3D (C x H x W) or 4D (N x C x H x W) input"));
  CHECK_THROWS_WITH(conv(x, zeros({16, 3, 5}, DType::f32), nullptr, o), Catch::Contains("weight must be 4D"));
  Tensor b = zeros({15}, DType::f32);
  CHECK_THROWS_WITH(conv(x, w3, &b, o), Catch::Contains("bias must be a vector of 16 elements"));
  Tensor bd = zeros({16}, DType::f64);
  CHECK_THROWS_WITH(conv(x, w3, &bd, o), Catch::Contains("input is a torch.FloatTensor but bias is a torch.DoubleTensor"));
  CHECK_THROWS_WITH(conv(zeros({2, 3, 8, 8}, DType::i64), zeros({16, 3, 5, 5}, DType::i64), nullptr, o),
                    Catch::Contains("expected floating-point tensors, got a torch.LongTensor"));
  ConvOptions g = o;
  g.groups = 2;
  CHECK_THROWS_WITH(conv(zeros({2, 4, 8, 8}, DType::f32), zeros({3, 2, 3, 3}, DType::f32), nullptr, g),
                    Catch::Contains("not divisible by groups 2"));
  ConvOptions s = o;
  s.stride[1] = 0;
  CHECK_THROWS_WITH(conv(x, w3, nullptr, s), Catch::Contains("stride must be positive, got 0"));
  ConvOptions t = o;
  t.output_padding[0] = 2;
  t.stride[0] = 2;
  CHECK_THROWS_WITH(conv_transpose(zeros({1, 16, 3, 3}, DType::f32), w3, nullptr, t),
                    Catch::Contains("output padding 2 of spatial dim 1 must be smaller than the stride (2)"));
  CHECK_THROWS_WITH(conv_weight(x, zeros({2, 16, 5, 5}, DType::f32), {5, 5}, o),
                    Catch::Contains("grad_output of size 2x16x5x5 does not match the output"));
  Tensor gw = zeros({16, 3, 4, 4}, DType::f32);
  CHECK_THROWS_WITH(conv_weight_acc(gw, x, zeros({2, 16, 4, 4}, DType::f32), o, 1, 1),
                    Catch::Contains("does not match the output a kernel of size 4x4"));
}
