-- nn.functional.affineGrid and gridSample (nn/functional_grid.lua): values and gradients (input and
-- grid) against PyTorch 1.13 for every mode x paddingMode x alignCorners, 4-D and 5-D, with grids
-- holding exact pixel centers, borders, ties and points far outside; gradchecks in f64; errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

-- The inputs the PyTorch constants were computed from: input[i] = ((7 i) mod 11 - 5) / 4 and
-- gradOutput[i] = ((5 i) mod 7 - 3) / 2 (i = 0, 1, ... row-major), the grid's points as listed.
local function pattern(n, a, m, off, div)
  local t = D(n)
  for i = 0, n - 1 do t[i + 1] = ((i * a) % m - off) / div end
  return t
end
local POINTS4 = { { -1, -1 }, { 0, 0.5 }, { 1, 1 }, { -1.3, 0.2 }, { 0.5, 0 }, { 2.7, 3.1 },
                  { -0.5, -0.5 }, { -0.1, 0.7 }, { -3.2, -2.4 }, { 1.05, 0.3 }, { 1, -0.5 }, { -0.75, 1.25 } }
local POINTS5 = { { -1, -1, -1 }, { 0.45, 0.1, 0.25 }, { -1.3, 0.2, 2.6 }, { 0.9, -0.7, -0.35 }, { 3.3, -2.2, 0.5 } }

-- PyTorch 1.13's grid_sample (float64): out, the gradients of sum(out * gradOutput) in input (gin)
-- and grid (ggrid; 0 in 'nearest', where the grid gets no gradient here).
-- input 2x2x2x3, grid 2x1x6x2 (POINTS4)
local PT4 = {
  { 'bilinear', 'zeros', false,
    out = {-0.3125, 0.25, -0.1875, 0.025, -0.375, 0, 0.25, -0.25, -0.3125, 0.04125, -0.875, 0, 0.25, -0.48, 0,
      0.44625, 0.625, 0.0546875, -0.25, -0.88, 0, 0.23375, 0.375, -0.0546875},
    gin = {-0.39, 0.1875, 0.5625, -0.035, 1.1875, 0.5625, -0.125, -0.125, -0.375, 0, -1.625, -0.125, 0.375, 0.125,
      0.085, -0.27875, -0.34, 0.34, 1.125, 0.375, 0.3725, 0.06, 0.34, -0.51},
    ggrid = {1.03125, 0.6875, 0.75, -0.625, 0.9375, 0.625, -0.75, -0.125, -0.75, -0.125, 0, 0, -3, -0.5, 0, 0.25, 0,
      0, -0.3375, 0.053125, -1.125, -0.125, -0.09375, 0.21875} },
  { 'bilinear', 'zeros', true,
    out = {-1.25, 0.3125, -0.75, 0.175, -0.125, 0, 1, -0.1875, -1.25, 0.595, -0.625, 0, -0.0625, -0.6125, 0,
      1.033125, 1.1875, 0, -0.5625, -1.1125, 0, 0.558125, 0.6875, -0.4375},
    gin = {-1.78, 0.625, 0.375, -0.42, 1.125, 0.375, -0.5, -0.625, -0.25, 0, -1.375, 0.75, 0.18, 0.12, 0.3325,
      -0.63625, -0.53875, 0.6175, 0.57, 0.63, 0.25125, 0.23, 0.57, -0.67625},
    ggrid = {-2.125, -1.8125, 0.5, 0.0625, 1.25, 0.625, -0.25, -0.875, -0.5, -0.0625, 0, 0, -2, -0.25, 0, 0, 0, 0,
      -0.20625, 0.059375, -0.6875, -0.125, 0.875, 0} },
  { 'bilinear', 'border', false,
    out = {-1.25, 0.25, -0.75, 0.5, -0.375, -0.75, 1, -0.25, -1.25, 0.825, -0.875, -1.25, 0.25, -0.6, 0.5, 1.05,
      1.25, 0.25, -0.25, -1.1, 0, 0.55, 0.75, -0.25},
    gin = {-1.8, 0.1875, 0.5625, -0.7, 1.1875, 1.0625, -0.5, -0.125, -0.375, 0, -1.625, 2.125, -1.125, 0.125, 0.2,
      -1.075, -0.425, 0.8, 0.625, 0.375, 0.7, 0.075, 0.425, -1.2},
    ggrid = {-0, -0, 0.75, -0, 0, 0, 0, -2.5, -0.75, -0.125, 0, 0, -3, -0, 0, 0, 0, 0, -0, 0.125, -0, -0, 0, 0} },
  { 'bilinear', 'border', true,
    out = {-1.25, 0.3125, -0.75, 0.25, -0.125, -0.75, 1, -0.1875, -1.25, 0.85, -0.625, -1.25, -0.0625, -0.6125,
      0.5, 1.0875, 1.1875, 0, -0.5625, -1.1125, 0, 0.5875, 0.6875, -0.5},
    gin = {-1.9, 0.625, 0.375, -0.6, 1.125, 0.875, -0.5, -0.625, -0.25, 0, -1.375, 2.25, -1.32, 0.12, 0.35, -0.73,
      -0.57, 0.65, 0.07, 0.63, 0.225, 0.23, 0.57, -0.725},
    ggrid = {-0, -0, 0.5, 0.0625, 0, 0, -0, -1.25, -0.5, -0.0625, 0, 0, -2, -0.25, 0, 0, 0, 0, -0, 0.0625, -0,
      -0.125, 1, 0} },
  { 'bilinear', 'reflection', false,
    out = {-1.25, 0.25, -0.75, 0.5, -0.375, -1.25, 1, -0.25, -1.25, 0.825, -0.875, 1, 0.25, -0.6, 1.025, 1.05,
      1.25, 0.25, -0.25, -1.1, 0.525, 0.55, 0.75, -0.25},
    gin = {-1.3, 0.1875, 0.5625, -0.7, 1.1875, 0.5625, 1, -0.125, -0.375, 0, -1.625, 0.625, 0.375, 0.125, 0.05,
      -1.075, -0.425, -0.55, 1.125, 0.375, 0.65, 0.075, 0.425, -1.65},
    ggrid = {-0, -0, 0.75, -0, 0, 0, 0, -2.5, -0.75, -0.125, -0, 0, -3, -0, 0, 0, 0, -0.5, -0, 0.125, -0, -0, 0, 0}
      },
  { 'bilinear', 'reflection', true,
    out = {-1.25, 0.3125, -0.75, 0.28, -0.125, -0.64125, 1, -0.1875, -1.25, 0.55, -0.625, 0.6875, -0.0625, -0.6125,
      0.725, 1, 1.1875, 0.03125, -0.5625, -1.1125, 0.225, 0.5, 0.6875, -0.46875},
    gin = {-1.4475, 0.6475, 0.375, -0.4025, 0.9525, 0.375, 0.4975, -0.1975, -0.25, 0.0525, -1.3525, 0.75, 0.08625,
      0.01625, -0.0275, -0.63625, -0.71625, -0.2225, 0.57, 0.57375, 0.13125, 0.23, 0.45125, -0.95625},
    ggrid = {-0, -0, 0.5, 0.0625, 0, 0, 0.1, -0.8375, -0.5, -0.0625, 0.69375, 0.23125, -2, -0.25, 0, 0, -3.5, -0.25,
      0.875, 0.0625, -0, -0.125, 1, -0.125} },
  { 'nearest', 'zeros', false,
    out = {-1.25, 0.25, 0, 0, -0.5, 0, 1, -0.25, 0, 0, -1, 0, 0.5, -0.75, 0, 0, 1.25, 0, 0, -1.25, 0, 0, 0.75, 0},
    gin = {-1.5, 0, 1.5, 0, 1, 0, -0.5, 0, -1, 0, -1.5, 0, 0.5, 0, 0, 0, -0.5, 0, 1.5, 0, 1, 0, 0.5, 0} },
  { 'nearest', 'zeros', true,
    out = {-1.25, 0.25, -0.75, 1.25, -0.5, 0, 1, -0.25, -1.25, 0.75, -1, 0, 0.5, -0.75, 0, 1, 1.25, 0.25, 0, -1.25,
      0, 0.5, 0.75, -0.25},
    gin = {-1.5, 0, 1.5, -1, 1, 0, -0.5, 0, -1, 0, -1.5, 1, 0.5, 0, 0, -1, -0.5, 1, 1.5, 0, 1, 0, 0.5, -1.5} },
  { 'nearest', 'border', false,
    out = {-1.25, 0.25, -0.75, 1.25, -0.5, -0.75, 1, -0.25, -1.25, 0.75, -1, -1.25, 0.5, -0.75, 0.5, 1, 1.25, 0.25,
      0, -1.25, 0, 0.5, 0.75, -0.25},
    gin = {-1.5, 0, 1.5, -1, 1, 0.5, -0.5, 0, -1, 0, -1.5, 2.5, -1, 0, 0, -1, -0.5, 1, 1, 0, 1, 0, 0.5, -1.5} },
  { 'nearest', 'border', true,
    out = {-1.25, 0.25, -0.75, 1.25, -0.5, -0.75, 1, -0.25, -1.25, 0.75, -1, -1.25, 0.5, -0.75, 0.5, 1, 1.25, 0.25,
      0, -1.25, 0, 0.5, 0.75, -0.25},
    gin = {-1.5, 0, 1.5, -1, 1, 0.5, -0.5, 0, -1, 0, -1.5, 2.5, -1, 0, 0, -1, -0.5, 1, 1, 0, 1, 0, 0.5, -1.5} },
  { 'nearest', 'reflection', false,
    out = {-1.25, 0.25, -0.75, 1.25, -0.5, -1.25, 1, -0.25, -1.25, 0.75, -1, 1, 0.5, -0.75, 1, 1, 1.25, 0.25, 0,
      -1.25, 0.5, 0.5, 0.75, -0.25},
    gin = {-1, 0, 1.5, -1, 1, 0, 1, 0, -1, 0, -1.5, 1, 0.5, 0, 0, -1, -0.5, -0.5, 1.5, 0, 1, 0, 0.5, -2} },
  { 'nearest', 'reflection', true,
    out = {-1.25, 0.25, -0.75, 1.25, -0.5, -1.25, 1, -0.25, -1.25, 0.75, -1, 1, 0.5, -0.75, 1, 1, 1.25, 0.25, 0,
      -1.25, 0.5, 0.5, 0.75, -0.25},
    gin = {-1, 0, 1.5, -1, 1, 0, 1, 0, -1, 0, -1.5, 1, 0.5, 0, 0, -1, -0.5, -0.5, 1.5, 0, 1, 0, 0.5, -2} },
}
-- input 1x2x2x2x3, grid 1x1x1x5x3 (POINTS5)
local PT5 = {
  { 'bilinear', 'zeros', false,
    out = {-0.15625, -0.7, 0, -0.299, 0, 0.0625, 0.15625, 0, 0.611, 0},
    gin = {-0.1875, 0.0325, -0.3745, 0, 0.04875, 0.10125, 0, 0.0975, 0.1245, 0, 0.14625, 0.30375, 0.0625, -0.01625,
      0.40825, 0, -0.024375, -0.050625, 0, -0.04875, -0.02325, 0, -0.073125, -0.151875},
    ggrid = {0.796875, 0.53125, 0.53125, -2.8125, -0.125, -0.25, 0, 0, 0, -2.1, 1.1375, 5.55111512313e-17, 0, 0, 0}
      },
  { 'bilinear', 'zeros', true,
    out = {-1.25, -0.4, 0.119, -0.6, 0, 0.5, -0.1625, -0.021, 0.875, 0},
    gin = {-1.5, 0.0354375, -0.4404375, 0, 0.1033125, 0.0016875, 0, 0.1270625, -0.1220625, 0, 0.1841875, 0.1108125,
      0.5, 0.01096875, 0.47840625, 0, -0.04659375, 0.04471875, -0.084, -0.04971875, 0.18534375, -0.126,
      -0.08965625, -0.03346875},
    ggrid = {-3.125, -1.9375, -1.8125, -1.875, -0.0625, -0.125, 0.045, 0.02625, -0.07875, 2.75, 2.77555756156e-17,
      1.38777878078e-17, 0, 0, 0} },
  { 'bilinear', 'border', false,
    out = {-1.25, -0.7, 0.825, -0.575, -1, 0.5, 0.15625, -0.175, 1.175, 0.75},
    gin = {-1.5, 0.0325, -0.7825, 0, 0.04875, 0.10125, 0, 0.0975, 1.5525, 0, 0.14625, 0.30375, 0.5, -0.01625,
      0.81625, 0, -0.024375, -0.050625, -0.45, -0.04875, 0.04875, -1.05, -0.073125, -0.151875},
    ggrid = {-0, -0, -0, -2.8125, -0.125, -0.25, 0, 0.375, -0, -0, -0, 0, 0, -0, 0} },
  { 'bilinear', 'border', true,
    out = {-1.25, -0.4, 0.85, -0.6, -0.875, 0.5, -0.1625, -0.15, 0.875, 0.875},
    gin = {-1.5, 0.0354375, -0.0654375, 0, 0.1033125, 0.0016875, 0, 0.1270625, 1.0029375, 0, 0.1841875, 0.1108125,
      0.5, 0.01096875, 0.47840625, 0, -0.04659375, 0.04471875, -0.6, -0.04971875, 0.18534375, -0.9,
      -0.08965625, -0.03346875},
    ggrid = {-0, -0, -0, -1.875, -0.0625, -0.125, 0, 0.1875, -0, 2.75, 2.77555756156e-17, 1.38777878078e-17, 0, -0,
      -0.375} },
  { 'bilinear', 'reflection', false,
    out = {-1.25, -0.7, 0.5, -0.575, 0.825, 0.5, 0.15625, 0.325, 1.175, -0.175},
    gin = {-1.5, 0.0325, -0.7825, 0, 0.04875, 0.10125, 0.45, 0.0975, 0.0525, 1.05, 0.14625, 0.30375, 0.05,
      -0.01625, 0.81625, -1.05, -0.024375, -0.050625, 0, -0.04875, 0.04875, 0, -0.073125, -0.151875},
    ggrid = {-0, -0, -0, -2.8125, -0.125, -0.25, -0, 0.375, -0, -0, -0, 0, -0, 0.375, -0} },
  { 'bilinear', 'reflection', true,
    out = {-1.25, -0.4, 0.334, -0.6, 0.4825, 0.5, -0.1625, -0.05, 0.875, -0.325},
    gin = {-1.395, 0.0804375, -0.4404375, 0.1575, 0.1708125, 0.0016875, 0.315, 0.2620625, -0.1220625, 0.4725,
      0.3866875, 0.1108125, 0.164, -0.13303125, 0.47840625, -0.504, -0.26259375, 0.04471875, -0.084,
      -0.08571875, 0.18534375, -0.126, -0.14365625, -0.03346875},
    ggrid = {-0, -0, -0, -1.875, -0.0625, -0.125, -1.5, 0.1875, -0.375, 2.75, 2.77555756156e-17, 1.38777878078e-17,
      -1.0875, -0.1734375, 0.2025} },
  { 'nearest', 'reflection', false,
    out = {-1.25, -1.25, 1.25, -0.5, 0.75, 0.5, 0.5, 0.25, 1.25, -0.25},
    gin = {-1.5, 0, -1, 0, 0, 0, 0, 0, 0, 1.5, 0, 1, 0.5, 0, 1, -1.5, 0, 0, 0, 0, 0, 0, 0, -0.5} },
  { 'nearest', 'zeros', true,
    out = {-1.25, -0.25, 0, -0.5, 0, 0.5, -1.25, 0, 1.25, 0},
    gin = {-1.5, 0, -1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0.5, 0, 1, 0, 0, 0, 0, 0, 0, 0, -0.5, 0} },
}
-- PyTorch 1.13's affine_grid (float64) for THETA2 at {2, 1, 3, 4} (alignCorners false, true) and
-- {2, 1, 1, 3}, and THETA3 at {1, 1, 2, 2, 3} (false, true).
local AFF = {
  a2f = {-0.3, -1.3875, 0.1, -1.2625, 0.5, -1.1375, 0.9, -1.0125, -0.5, -0.5875, -0.1, -0.4625, 0.3, -0.3375, 0.7,
    -0.2125, -0.7, 0.2125, -0.3, 0.3375, 0.1, 0.4625, 0.5, 0.5875, 0.716666666667, 0.691666666667,
    0.216666666667, 0.741666666667, -0.283333333333, 0.791666666667, -0.783333333333, 0.841666666667, 1.05,
    0.825, 0.55, 0.875, 0.05, 0.925, -0.45, 0.975, 1.38333333333, 0.958333333333, 0.883333333333,
    1.00833333333, 0.383333333333, 1.05833333333, -0.116666666667, 1.10833333333},
  a2t = {-0.4, -1.85, 0.133333333333, -1.68333333333, 0.666666666667, -1.51666666667, 1.2, -1.35, -0.7, -0.65,
    -0.166666666667, -0.483333333333, 0.366666666667, -0.316666666667, 0.9, -0.15, -1, 0.55, -0.466666666667,
    0.716666666667, 0.0666666666667, 0.883333333333, 0.6, 1.05, 0.8, 0.6, 0.133333333333, 0.666666666667,
    -0.533333333333, 0.733333333333, -1.2, 0.8, 1.3, 0.8, 0.633333333333, 0.866666666667, -0.0333333333333,
    0.933333333333, -0.7, 1, 1.8, 1, 1.13333333333, 1.06666666667, 0.466666666667, 1.13333333333, -0.2, 1.2},
  a2h1 = {-0.433333333333, -0.566666666667, 0.1, -0.4, 0.633333333333, -0.233333333333, 0.966666666667,
    0.833333333333, 0.3, 0.9, -0.366666666667, 0.966666666667},
  a3f = {-0.233333333333, -0.566666666667, -1.13333333333, 0.3, -0.4, -0.8, 0.833333333333, -0.233333333333,
    -0.466666666667, -0.533333333333, 0.633333333333, -1.03333333333, 0, 0.8, -0.7, 0.533333333333,
    0.966666666667, -0.366666666667, -0.133333333333, -0.966666666667, -0.233333333333, 0.4, -0.8, 0.1,
    0.933333333333, -0.633333333333, 0.433333333333, -0.433333333333, 0.233333333333, -0.133333333333, 0.1,
    0.4, 0.2, 0.633333333333, 0.566666666667, 0.533333333333},
  a3t = {-0.4, -1.05, -1.8, 0.4, -0.8, -1.3, 1.2, -0.55, -0.8, -1, 1.35, -1.6, -0.2, 1.6, -1.1, 0.6, 1.85, -0.6,
    -0.2, -1.85, 5.55111512313e-17, 0.6, -1.6, 0.5, 1.4, -1.35, 1, -0.8, 0.55, 0.2, 2.77555756156e-17, 0.8,
    0.7, 0.8, 1.05, 1.2},
}
local THETA2 = D{ { { 0.8, -0.3, 0.1 }, { 0.25, 1.2, -0.4 } }, { { -1, 0.5, 0.3 }, { 0.1, 0.2, 0.9 } } }
local THETA3 = D{ { { 0.8, -0.3, 0.1, 0.2 }, { 0.25, 1.2, -0.4, 0 }, { 0.5, 0.1, 0.9, -0.3 } } }

local function near(a, expected, tol, what)
  tester:assertTensorEq(a:detach():contiguous():view(-1), D(expected), tol or 1e-10, what)
end
local function gradcheck(f, inputs, what)
  local ok, err = pcall(torch.autograd.gradcheck, f, inputs)
  tester:assert(ok and err == true, (what or '') .. ': ' .. tostring(err))
end
local function opts(c) return { mode = c[1], paddingMode = c[2], alignCorners = c[3] } end
local function label(c) return string.format('%s/%s/alignCorners=%s', c[1], c[2], tostring(c[3])) end

-- Each PyTorch case: the value, then the gradients of sum(out * gradOutput) in input and grid.
local function against_pytorch(cases, in_size, points, go_size)
  local n = 1
  for _, s in ipairs(in_size) do n = n * s end
  local k = #points[1]
  local grid_size = { in_size[1] }
  for _ = 1, k - 1 do grid_size[#grid_size + 1] = 1 end
  grid_size[#grid_size + 1] = #points / in_size[1]
  grid_size[#grid_size + 1] = k
  local x0, g0 = pattern(n, 7, 11, 5, 4):view(torch.LongStorage(in_size)), D(points):view(torch.LongStorage(grid_size))
  local go_n = 1
  for _, s in ipairs(go_size) do go_n = go_n * s end
  local go = pattern(go_n, 5, 7, 3, 2):view(torch.LongStorage(go_size))
  for _, c in ipairs(cases) do
    local x, g = x0:clone():requiresGrad(), g0:clone():requiresGrad()
    local y = F.gridSample(x, g, opts(c))
    tester:assertTableEq(y:size():totable(), go_size, label(c) .. ' size')
    near(y, c.out, 1e-10, label(c) .. ' value')
    local gr = torch.autograd.grad({ torch.cmul(y, go):sum() }, { x, g }, nil, { allowUnused = true })
    near(gr[1], c.gin, 1e-10, label(c) .. ' input gradient')
    if c.ggrid then near(gr[2], c.ggrid, 1e-10, label(c) .. ' grid gradient')
    else tester:assert(gr[2] == nil, label(c) .. ': nearest gives the grid no gradient') end
    -- float32 agrees to float precision
    near(F.gridSample(x0:float(), g0:float(), opts(c)):double(), c.out, 1e-5, label(c) .. ' in float32')
  end
end

function tests.gridSample4dAgainstPyTorch()
  tester:asserteq(#PT4, 12)
  against_pytorch(PT4, { 2, 2, 2, 3 }, POINTS4, { 2, 2, 1, 6 })
end

function tests.gridSample5dAgainstPyTorch()
  tester:asserteq(#PT5, 8)
  against_pytorch(PT5, { 1, 2, 2, 2, 3 }, POINTS5, { 1, 2, 1, 1, 5 })
end

function tests.gridSampleGradcheck()
  torch.manualSeed(7)
  for _, pad in ipairs({ 'zeros', 'border', 'reflection' }) do
    for _, align in ipairs({ false, true }) do
      local o = { paddingMode = pad, alignCorners = align }
      -- random points (off the kinks with probability 1), some outside [-1, 1]
      local x4 = torch.randn(2, 3, 4, 5):double():requiresGrad()
      local g4 = torch.rand(2, 3, 2, 2):double():mul(3.4):add(-1.7):requiresGrad()
      gradcheck(function(a, b) return F.gridSample(a, b, o) end, { x4, g4 }, '4-D ' .. pad .. ' ' .. tostring(align))
      local x5 = torch.randn(1, 2, 3, 2, 4):double():requiresGrad()
      local g5 = torch.rand(1, 2, 2, 1, 3):double():mul(3.4):add(-1.7):requiresGrad()
      gradcheck(function(a, b) return F.gridSample(a, b, o) end, { x5, g5 }, '5-D ' .. pad .. ' ' .. tostring(align))
    end
  end
  local x = torch.randn(1, 2, 3, 3):double():requiresGrad()
  local g = torch.rand(1, 2, 3, 2):double():mul(2.6):add(-1.3)
  gradcheck(function(a) return F.gridSample(a, g, { mode = 'nearest' }) end, { x }, 'nearest in the input')
end

function tests.affineGridAgainstPyTorch()
  near(F.affineGrid(THETA2, { 2, 1, 3, 4 }), AFF.a2f, 1e-11, '2-D')
  near(F.affineGrid(THETA2, { 2, 1, 3, 4 }, { alignCorners = true }), AFF.a2t, 1e-11, '2-D alignCorners')
  near(F.affineGrid(THETA2, torch.LongStorage{ 2, 1, 1, 3 }), AFF.a2h1, 1e-11, 'a single row')
  tester:assertTableEq(F.affineGrid(THETA2, { 2, 1, 3, 4 }):size():totable(), { 2, 3, 4, 2 })
  near(F.affineGrid(THETA3, { 1, 1, 2, 2, 3 }), AFF.a3f, 1e-11, '3-D')
  near(F.affineGrid(THETA3, { 1, 1, 2, 2, 3 }, { alignCorners = true }), AFF.a3t, 1e-11, '3-D alignCorners')
  tester:assertTableEq(F.affineGrid(THETA3, { 1, 1, 2, 2, 3 }):size():totable(), { 1, 2, 2, 3, 3 })
  gradcheck(function(t) return F.affineGrid(t, { 2, 3, 3, 2 }) end, { THETA2:clone():requiresGrad() }, 'affineGrid 2-D')
  gradcheck(function(t) return F.affineGrid(t, { 1, 1, 2, 3, 2 }, { alignCorners = true }) end,
    { THETA3:clone():requiresGrad() }, 'affineGrid 3-D')
end

-- A spatial transformer end to end: the identity theta resamples the input exactly (the grid
-- points are the pixel centers, for both alignCorners), and theta's gradient is finite-difference right.
function tests.spatialTransformer()
  local x = torch.randn(2, 3, 4, 5):double()
  local id = D{ { 1, 0, 0 }, { 0, 1, 0 } }:view(1, 2, 3):expand(2, 2, 3):contiguous()
  for _, align in ipairs({ false, true }) do
    for _, mode in ipairs({ 'bilinear', 'nearest' }) do
      local y = F.gridSample(x, F.affineGrid(id, { 2, 3, 4, 5 }, { alignCorners = align }), { mode = mode, alignCorners = align })
      tester:assertTensorEq(y, x, 1e-12, 'identity ' .. mode .. ' ' .. tostring(align))
    end
  end
  -- a horizontal flip (theta x -> -x) reverses the columns exactly
  local flip = D{ { -1, 0, 0 }, { 0, 1, 0 } }:view(1, 2, 3):expand(2, 2, 3):contiguous()
  tester:assertTensorEq(F.gridSample(x, F.affineGrid(flip, { 2, 3, 4, 5 })), x:flip(4), 1e-12, 'flip')
  local theta = D{ { { 0.9, 0.2, 0.05 }, { -0.1, 1.1, 0.1 } } }:requiresGrad()
  local img = torch.randn(1, 2, 5, 6):double():requiresGrad()
  gradcheck(function(t, a) return F.gridSample(a, F.affineGrid(t, { 1, 2, 3, 4 }), { paddingMode = 'border' }) end,
    { theta, img }, 'theta and input through the transformer')
end

function tests.emptyAndSingleSizes()
  local y = F.gridSample(torch.randn(2, 3, 4, 4), torch.zeros(2, 0, 5, 2))
  tester:assertTableEq(y:size():totable(), { 2, 3, 0, 5 })
  -- a 1-pixel input: every point inside reads it; alignCorners maps all of [-1, 1] to it
  local one = D{ 2.5 }:view(1, 1, 1, 1)
  local g = D{ { -1, 1 }, { 0.3, -0.2 }, { 1, 1 } }:view(1, 1, 3, 2)
  tester:assertTensorEq(F.gridSample(one, g, { alignCorners = true, paddingMode = 'reflection' }),
    D{ 2.5, 2.5, 2.5 }:view(1, 1, 1, 3), 1e-12, 'reflection of a 1-pixel input')
  tester:assertTensorEq(F.gridSample(one, g, { paddingMode = 'border' }), D{ 2.5, 2.5, 2.5 }:view(1, 1, 1, 3), 1e-12)
end

-- 'nearest' rounds halves to even in 4-D (PyTorch's nearbyint) and 5-D alike: with alignCorners,
-- x = -0.75, -0.25, 0.25, 0.75 over 5 columns fall at 0.5, 1.5, 2.5, 3.5.
function tests.nearestRoundsHalvesToEven()
  local row = torch.range(1, 5):double()
  local xs = D{ -0.75, -0.25, 0.25, 0.75 }
  local g4 = torch.cat(xs:view(4, 1), torch.zeros(4, 1):double(), 2):view(1, 1, 4, 2)
  local g5 = torch.cat(xs:view(4, 1), torch.zeros(4, 2):double(), 2):view(1, 1, 1, 4, 3)
  local o = { mode = 'nearest', alignCorners = true }
  tester:assertTensorEq(F.gridSample(row:view(1, 1, 1, 5), g4, o):view(-1), D{ 1, 3, 3, 5 }, 0, '4-D')
  tester:assertTensorEq(F.gridSample(row:view(1, 1, 1, 1, 5), g5, o):view(-1), D{ 1, 3, 3, 5 }, 0, '5-D')
end

-- Points at NaN, +-inf and 1e30 read as outside the input (PyTorch's safe_downgrade_to_int_range):
-- PyTorch 1.13's values for input 0..17 (1x2x3x3), alignCorners false. Its 2-D CPU bilinear
-- 'zeros' kernel gives NaN at the non-finite points where its other kernels give 0, as here.
function tests.nonFinitePoints()
  local x = torch.range(0, 17):double():view(1, 2, 3, 3)
  local g = D{ { 0 / 0, 0.2 }, { math.huge, 0 }, { -math.huge, 1e30 }, { 0.1, 0.2 } }:view(1, 1, 4, 2)
  local expected = {
    bilinear = { zeros = { 0, 0, 0, 5.05, 0, 0, 0, 14.05 }, border = { 3.9, 5, 6, 5.05, 12.9, 14, 15, 14.05 },
                 reflection = { 3.9, 3, 0, 5.05, 12.9, 12, 9, 14.05 } },
    nearest = { zeros = { 0, 0, 0, 4, 0, 0, 0, 13 }, border = { 3, 5, 6, 4, 12, 14, 15, 13 },
                reflection = { 3, 3, 0, 4, 12, 12, 9, 13 } } }
  for mode, per_pad in pairs(expected) do
    for pad, values in pairs(per_pad) do
      near(F.gridSample(x, g, { mode = mode, paddingMode = pad }), values, 1e-12, mode .. ' ' .. pad)
    end
  end
  local gg = g:clone():requiresGrad()
  local grad = torch.autograd.grad({ F.gridSample(x, gg, { paddingMode = 'border' }):sum() }, { gg })[1]
  tester:asserteq(torch.isfinite(grad):sum(), 8, 'finite grid gradients')
end

function tests.errors()
  local x, g = torch.randn(1, 2, 3, 3), torch.zeros(1, 2, 2, 2)
  tester:assertErrorPattern(function() F.gridSample(x:view(2, 3, 3), g) end, 'gridSample.*4%-D or 5%-D input')
  tester:assertErrorPattern(function() F.gridSample(x, torch.zeros(1, 2, 2, 3)) end, 'gridSample.*grid of size')
  tester:assertErrorPattern(function() F.gridSample(x, torch.zeros(2, 2, 2, 2)) end, 'gridSample.*grid of size')
  tester:assertErrorPattern(function() F.gridSample(x, g:double()) end, 'gridSample.*one type')
  tester:assertErrorPattern(function() F.gridSample(x, g, { mode = 'cubic' }) end,
    "gridSample.*mode must be 'bilinear', 'nearest' or 'bicubic'")
  tester:assertErrorPattern(function() F.gridSample(x, g, { paddingMode = 'reflect' }) end, 'gridSample.*paddingMode')
  tester:assertErrorPattern(function() F.gridSample(x, g, { align = true }) end, 'gridSample.*unknown option align')
  tester:assertErrorPattern(function() F.gridSample(x:long(), g) end, 'gridSample.*floating')
  tester:assertErrorPattern(function() F.affineGrid(THETA2, { 2, 1, 3 }) end, 'affineGrid.*size must be')
  tester:assertErrorPattern(function() F.affineGrid(THETA2, { 3, 1, 3, 4 }) end, 'affineGrid.*theta of size 3x2x3')
  tester:assertErrorPattern(function() F.affineGrid(THETA2, { 2, 1, 2, 3, 4 }) end, 'affineGrid.*theta of size 2x3x4')
  tester:assertErrorPattern(function() F.affineGrid(THETA2, { 2, 1, 0, 4 }) end, 'affineGrid.*size%[3%] must be >= 1')
end

-- CUDA matches the CPU, gradients included.
function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  torch.manualSeed(3)
  for _, c in ipairs(PT4) do
    local x, g = torch.randn(2, 3, 4, 5):requiresGrad(), torch.rand(2, 3, 2, 2):mul(3):add(-1.5):requiresGrad()
    local xc, gc = x:detach():cuda():requiresGrad(), g:detach():cuda():requiresGrad()
    local y, yc = F.gridSample(x, g, opts(c)), F.gridSample(xc, gc, opts(c))
    tester:assertTensorEq(yc:cpu(), y:detach(), 1e-5, label(c) .. ' on CUDA')
    local gr = torch.autograd.grad({ y:sum() }, { x, g }, nil, { allowUnused = true })
    local grc = torch.autograd.grad({ yc:sum() }, { xc, gc }, nil, { allowUnused = true })
    tester:assertTensorEq(grc[1]:cpu(), gr[1], 1e-4, label(c) .. ' input gradient on CUDA')
    if gr[2] then tester:assertTensorEq(grc[2]:cpu(), gr[2], 1e-3, label(c) .. ' grid gradient on CUDA') end
  end
  local t = THETA3:cuda()
  tester:assertTensorEq(F.affineGrid(t, { 1, 1, 2, 2, 3 }):cpu(), F.affineGrid(THETA3, { 1, 1, 2, 2, 3 }), 1e-12)
end

tester:add(tests):run()
