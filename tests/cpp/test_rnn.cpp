// Recurrent-layer ops (core/ops/rnn.h) against a naive f64 reference of PyTorch's cell equations:
// forward of every mode in f32/f64, with and without initial states and biases, strided inputs,
// steps big enough to run over the thread pool; the fused backward and weight gradients against
// central differences of the forward; alpha/beta accumulation; and the argument checks.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include "core/ops/pointwise.h"
#include "core/ops/rnn.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

using namespace tocha;

namespace {

using Vec = std::vector<double>;
const RnnMode kModes[] = {RnnMode::tanh, RnnMode::relu, RnnMode::lstm, RnnMode::gru};

Tensor reals(const DimVec& sizes, DType dt, uint32_t seed, double scale = 1.0) {
  Tensor t = empty(sizes, dt);
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    set_item_at(t, i, scale * (double(seed >> 8) / double(1 << 23) - 1.0));
  }
  return t;
}
Vec values(const Tensor& t) {
  Vec v(size_t(t.defined() ? t.numel() : 0));
  for (size_t i = 0; i < v.size(); ++i) v[i] = item_at(t, int64_t(i));
  return v;
}
double sigm(double x) { return 1 / (1 + std::exp(-x)); }

struct RefResult {
  Vec y, hn, cn;
};

// PyTorch's equations, one (t, b) at a time. Empty h0/c0/biases mean zeros.
RefResult reference(RnnMode mode, int64_t T, int64_t B, int64_t I, int64_t H, const Vec& x, const Vec& h0, const Vec& c0,
              const Vec& wih, const Vec& whh, const Vec& bih, const Vec& bhh) {
  const int64_t GH = rnn_gates(mode) * H;
  Vec h = h0.empty() ? Vec(size_t(B * H), 0.0) : h0, c = c0.empty() ? Vec(size_t(B * H), 0.0) : c0;
  RefResult r;
  for (int64_t t = 0; t < T; ++t) {
    Vec hn(static_cast<size_t>(B * H)), cn(static_cast<size_t>(B * H));
    for (int64_t b = 0; b < B; ++b) {
      Vec xp(static_cast<size_t>(GH)), hp(static_cast<size_t>(GH));
      for (int64_t k = 0; k < GH; ++k) {
        double sx = bih.empty() ? 0 : bih[size_t(k)], sh = bhh.empty() ? 0 : bhh[size_t(k)];
        for (int64_t i = 0; i < I; ++i) sx += wih[size_t(k * I + i)] * x[size_t((t * B + b) * I + i)];
        for (int64_t j = 0; j < H; ++j) sh += whh[size_t(k * H + j)] * h[size_t(b * H + j)];
        xp[size_t(k)] = sx;
        hp[size_t(k)] = sh;
      }
      for (int64_t j = 0; j < H; ++j) {
        size_t o = size_t(b * H + j), J = size_t(j), Hs = size_t(H);
        if (mode == RnnMode::lstm) {
          double ig = sigm(xp[J] + hp[J]), fg = sigm(xp[Hs + J] + hp[Hs + J]);
          double gg = std::tanh(xp[2 * Hs + J] + hp[2 * Hs + J]), og = sigm(xp[3 * Hs + J] + hp[3 * Hs + J]);
          cn[o] = fg * c[o] + ig * gg;
          hn[o] = og * std::tanh(cn[o]);
        } else if (mode == RnnMode::gru) {
          double rg = sigm(xp[J] + hp[J]), zg = sigm(xp[Hs + J] + hp[Hs + J]);
          double ng = std::tanh(xp[2 * Hs + J] + rg * hp[2 * Hs + J]);
          hn[o] = (1 - zg) * ng + zg * h[o];
        } else {
          double pre = xp[J] + hp[J];
          hn[o] = mode == RnnMode::tanh ? std::tanh(pre) : (pre > 0 ? pre : 0);
        }
      }
    }
    h = hn;
    c = cn;
    r.y.insert(r.y.end(), h.begin(), h.end());
  }
  r.hn = h;
  if (mode == RnnMode::lstm) r.cn = c;
  return r;
}

struct Case {
  RnnMode mode;
  int64_t T, B, I, H;
  DType dt;
  bool states, bias;
  Tensor x, h0, c0, wih, whh, bih, bhh;
  Case(RnnMode m, int64_t t, int64_t b, int64_t i, int64_t h, DType d, bool s, bool bi)
      : mode(m), T(t), B(b), I(i), H(h), dt(d), states(s), bias(bi) {
    const int64_t GH = rnn_gates(m) * h;
    x = reals({t, b, i}, d, 1);
    wih = reals({GH, i}, d, 2, 0.5);
    whh = reals({GH, h}, d, 3, 0.5);
    if (bi) {
      bih = reals({GH}, d, 4, 0.5);
      bhh = reals({GH}, d, 5, 0.5);
    }
    if (s) {
      h0 = reals({b, h}, d, 6);
      if (m == RnnMode::lstm) c0 = reals({b, h}, d, 7);
    }
  }
  RnnLayerResult run() const { return rnn_layer(mode, x, h0, c0, wih, whh, bih, bhh); }
  RefResult ref() const {
    return reference(mode, T, B, I, H, values(x), values(h0), values(c0), values(wih), values(whh), values(bih),
                     values(bhh));
  }
};

void require_close(const Vec& got, const Vec& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) REQUIRE(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])));
}

}  // namespace

TEST_CASE("rnnLayer forward matches the reference equations", "[rnn]") {
  for (RnnMode mode : kModes) {
    for (DType dt : {DType::f32, DType::f64}) {
      for (bool states : {true, false}) {
        for (bool bias : {true, false}) {
          INFO(rnn_mode_name(mode) << " " << dtype_name(dt) << " states " << states << " bias " << bias);
          Case c(mode, 4, 3, 5, 6, dt, states, bias);
          RnnLayerResult r = c.run();
          RefResult ref = c.ref();
          double tol = dt == DType::f32 ? 1e-5 : 1e-12;
          require_close(values(r.output), ref.y, tol);
          require_close(values(r.h_n), ref.hn, tol);
          if (mode == RnnMode::lstm) require_close(values(r.c_n), ref.cn, tol);
          else REQUIRE(!r.c_n.defined());
        }
      }
    }
  }
}

TEST_CASE("rnnLayer takes strided operands and large steps", "[rnn]") {
  for (RnnMode mode : kModes) {
    INFO(rnn_mode_name(mode));
    // Rows big enough for the pointwise cells to be split over the pool.
    Case c(mode, 3, 64, 16, 128, DType::f32, true, true);
    RefResult ref = c.ref();
    require_close(values(c.run().output), ref.y, 1e-4);
    // The same input as a transposed view of a batch-first tensor.
    Tensor xb = contiguous(transpose(c.x, 0, 1));
    Case s = c;
    s.x = transpose(xb, 0, 1);
    REQUIRE(!s.x.is_contiguous());
    require_close(values(s.run().output), ref.y, 1e-4);
  }
}

// Loss = sum(y * u) + sum(h_n * v) + sum(c_n * w) with fixed weights u, v, w.
double loss_of(const Case& c, const Tensor& u, const Tensor& v, const Tensor& w) {
  RnnLayerResult r = c.run();
  Vec y = values(r.output), hn = values(r.h_n), cn = values(r.c_n), U = values(u), V = values(v), W = values(w);
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i) s += y[i] * U[i];
  for (size_t i = 0; i < hn.size(); ++i) s += hn[i] * V[i];
  for (size_t i = 0; i < cn.size(); ++i) s += cn[i] * W[i];
  return s;
}

TEST_CASE("rnnLayer backward matches central differences", "[rnn]") {
  for (RnnMode mode : kModes) {
    for (bool states : {true, false}) {
      INFO(rnn_mode_name(mode) << " states " << states);
      Case c(mode, 3, 2, 3, 4, DType::f64, states, true);
      Tensor u = reals({3, 2, 4}, DType::f64, 11), v = reals({2, 4}, DType::f64, 12), w = reals({2, 4}, DType::f64, 13);
      RnnLayerResult r = c.run();
      RnnLayerGrads g = rnn_layer_backward(mode, c.x, c.h0, c.c0, c.wih, c.whh, r.output, r.workspace, u, v,
                                           mode == RnnMode::lstm ? w : Tensor(), true);
      REQUIRE(g.dh0.defined() == states);
      REQUIRE(g.dc0.defined() == (states && mode == RnnMode::lstm));
      Tensor gw[4];
      Tensor* params[4] = {&c.wih, &c.whh, &c.bih, &c.bhh};
      for (int k = 0; k < 4; ++k) gw[k] = empty(params[k]->sizes(), DType::f64);
      rnn_layer_weight_grads(mode, c.x, c.h0, r.output, g.dgates, 1, 0, gw[0], gw[1], gw[2], gw[3]);
      std::vector<std::pair<Tensor, Tensor>> checks = {{c.x, g.dx}};
      if (states) checks.push_back({c.h0, g.dh0});
      if (states && mode == RnnMode::lstm) checks.push_back({c.c0, g.dc0});
      for (int k = 0; k < 4; ++k) checks.push_back({*params[k], gw[k]});
      const double eps = 1e-6;
      for (auto& [t, grad] : checks) {
        for (int64_t i = 0; i < t.numel(); ++i) {
          double orig = item_at(t, i);
          set_item_at(t, i, orig + eps);
          double plus = loss_of(c, u, v, w);
          set_item_at(t, i, orig - eps);
          double minus = loss_of(c, u, v, w);
          set_item_at(t, i, orig);
          REQUIRE(std::fabs(item_at(grad, i) - (plus - minus) / (2 * eps)) < 1e-7);
        }
      }
    }
  }
}

TEST_CASE("rnnLayer weight gradients accumulate with alpha and beta", "[rnn]") {
  Case c(RnnMode::gru, 4, 3, 5, 6, DType::f64, true, true);
  RnnLayerResult r = c.run();
  Tensor dy = reals({4, 3, 6}, DType::f64, 21);
  RnnLayerGrads g = rnn_layer_backward(c.mode, c.x, c.h0, c.c0, c.wih, c.whh, r.output, r.workspace, dy, Tensor(),
                                       Tensor(), false);
  REQUIRE(!g.dx.defined());
  Tensor once = empty(c.whh.sizes(), DType::f64), acc = full(c.whh.sizes(), 1.0, DType::f64);
  Tensor b_once = empty(c.bih.sizes(), DType::f64), b_acc = full(c.bih.sizes(), 1.0, DType::f64);
  rnn_layer_weight_grads(c.mode, c.x, c.h0, r.output, g.dgates, 1, 0, Tensor(), once, b_once, Tensor());
  rnn_layer_weight_grads(c.mode, c.x, c.h0, r.output, g.dgates, 0.5, 2, Tensor(), acc, b_acc, Tensor());
  Vec a = values(once), b = values(acc), ba = values(b_once), bb = values(b_acc);
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(b[i] == Approx(2 + 0.5 * a[i]).epsilon(1e-12));
  for (size_t i = 0; i < ba.size(); ++i) REQUIRE(bb[i] == Approx(2 + 0.5 * ba[i]).epsilon(1e-12));
  // A non-contiguous target is written through a copy.
  Tensor wide = zeros({c.whh.size(1), c.whh.size(0)}, DType::f64);
  Tensor view = transpose(wide, 0, 1);
  rnn_layer_weight_grads(c.mode, c.x, c.h0, r.output, g.dgates, 1, 0, Tensor(), view, Tensor(), Tensor());
  require_close(values(view), a, 1e-12);
}

TEST_CASE("rnnLayer checks its arguments", "[rnn]") {
  const DType f = DType::f32;
  Tensor x = reals({2, 3, 4}, f, 1), wih = reals({8, 4}, f, 2), whh = reals({8, 2}, f, 3);
  auto lstm = [&](const Tensor& xx, const Tensor& h0, const Tensor& c0, const Tensor& a, const Tensor& b,
                  const Tensor& bi) { return rnn_layer(RnnMode::lstm, xx, h0, c0, a, b, bi, Tensor()); };
  REQUIRE_THROWS_WITH(lstm(reals({3, 4}, f, 1), {}, {}, wih, whh, {}),
                      "[rnnLayer] input must be 3D (seqLen x batch x features), got size 3x4");
  REQUIRE_THROWS_WITH(lstm(x, {}, {}, reals({8, 3}, f, 2), whh, {}),
                      "[rnnLayer] weight_ih is 8x3 but expected 8x4 ((gates*hidden) x input features)");
  REQUIRE_THROWS_WITH(lstm(x, {}, {}, wih, reals({6, 2}, f, 2), {}),
                      "[rnnLayer] weight_hh is 6x2 but a LSTM layer needs 4*hidden rows (8x2)");
  REQUIRE_THROWS_WITH(lstm(x, reals({2, 2}, f, 1), {}, wih, whh, {}),
                      "[rnnLayer] h0 is 2x2 but expected 3x2 (batch x hidden)");
  REQUIRE_THROWS_WITH(lstm(x, {}, {}, wih, whh, reals({7}, f, 1)), "[rnnLayer] bias_ih is 7 but expected 8");
  REQUIRE_THROWS_WITH(lstm(x, {}, {}, wih, reals({8, 2}, DType::f64, 3), {}),
                      "[rnnLayer] input is a torch.FloatTensor but weight_hh is a torch.DoubleTensor");
  REQUIRE_THROWS_WITH(lstm(reals({0, 3, 4}, f, 1), {}, {}, wih, whh, {}),
                      "[rnnLayer] input is 0x3x4: the sequence length and the batch size must be positive");
  REQUIRE_THROWS_WITH(rnn_layer(RnnMode::gru, x, {}, reals({3, 2}, f, 1), reals({6, 4}, f, 1), reals({6, 2}, f, 1),
                                {}, {}),
                      "[rnnLayer] c0 is only used by LSTM layers, not GRU");
  REQUIRE_THROWS_WITH(rnn_layer(RnnMode(9), x, {}, {}, wih, whh, {}, {}),
                      "[rnnLayer] mode must be 0 (tanh), 1 (relu), 2 (LSTM) or 3 (GRU), got 9");
  REQUIRE_THROWS_WITH(lstm(reals({2, 3, 4}, DType::f16, 1), {}, {}, reals({8, 4}, DType::f16, 2),
                           reals({8, 2}, DType::f16, 3), {}),
                      Catch::Contains("no kernel"));
  RnnLayerResult r = lstm(x, {}, {}, wih, whh, {});
  REQUIRE_THROWS_WITH(rnn_layer_backward(RnnMode::lstm, x, {}, {}, wih, whh, r.output, r.workspace,
                                         reals({2, 3, 3}, f, 1), {}, {}, true),
                      "[rnnLayerBackward] dy is 2x3x3 but expected 2x3x2");
  REQUIRE_THROWS_WITH(rnn_layer_backward(RnnMode::lstm, x, {}, {}, wih, whh, r.output, reals({2, 3, 4}, f, 1), {},
                                         {}, {}, true),
                      "[rnnLayerBackward] workspace is 2x3x4 but expected 2x3x10 (the workspace of the forward)");
  REQUIRE_THROWS_WITH(rnn_layer_weight_grads(RnnMode::lstm, x, {}, r.output, reals({2, 3, 7}, f, 1), 1, 1,
                                             reals({8, 4}, f, 1), {}, {}, {}),
                      "[rnnLayerWeightGrads] dgates is 2x3x7 but expected 2x3x8 (from rnnLayerBackward)");
}
