-- The remaining common torch.* functions of PyTorch: msort, vander, asStrided, the PyTorch
-- spellings of the thread and print settings, inferenceMode; the factories (misc_factory.lua),
-- torch.gradient (misc_gradient.lua) and torch.testing (misc_testing.lua) are loaded from here.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail = lib.fail
local describe, check_tensor = types.describe, types.check_tensor
local methods = torch._tensor_methods

require 'torch.misc_factory'
require 'torch.misc_gradient'
require 'torch.misc_testing'

--- torch.asStrided(x, sizes, strides [, storageOffset]): x:asStrided(...), a view of x's storage
--- with those sizes and strides; storageOffset is 1-based like x:storageOffset() (PyTorch's is
--- 0-based) and defaults to x's own.
--- Example: torch.asStrided(torch.range(1, 6), {2, 2}, {1, 2})
function torch.asStrided(x, sizes, strides, offset)
  check_tensor('asStrided', x, 1)
  return (methods.asStrided(x, sizes, strides, offset))
end

--- torch.msort(x): x sorted along its first dim, ascending (PyTorch's msort: torch.sort(x, 1)'s
--- values). Differentiable.
--- Example: torch.msort(torch.Tensor({{3, 1}, {1, 2}}))
function torch.msort(x)
  check_tensor('msort', x, 1)
  if x.p.ndim == 0 then return x:clone() end
  local values = torch.sort(x, 1)
  return values
end
methods.msort = torch.msort

--- torch.vander(x [, N = #x [, increasing = false]]): the Vandermonde matrix of the 1-D tensor
--- x: column j is x^(N-j) (x^(j-1) when increasing), as NumPy and PyTorch; built from products,
--- so it is differentiable and keeps x's dtype (integers stay integers).
--- Example: torch.vander(torch.Tensor({1, 2, 3}), 3, true)
function torch.vander(x, N, increasing)
  check_tensor('vander', x, 1)
  if x.p.ndim ~= 1 then fail('vander', 'expected a 1-D tensor, got %s', describe(x)) end
  local n = x:size(1)
  if N == nil then N = n end
  if type(N) ~= 'number' or N ~= math.floor(N) or N < 0 then
    fail('vander', 'N must be a non-negative integer, got %s', type(N) == 'number' and tostring(N) or describe(N))
  end
  if increasing ~= nil and type(increasing) ~= 'boolean' then
    fail('vander', 'increasing must be a boolean, got %s', describe(increasing))
  end
  -- PyTorch's result type is promote_types(x, int64): bool, uint8 and int32 give int64 (products
  -- of powers overflow a ByteTensor at once: vander({16}, 3) wrapped to 0)
  -- (converted in place on x's device: x:long() is Torch7's, which brings a CUDA tensor to the host)
  if not torch._pytorch_is_floating(x.p.dtype) then x = lib.wrap(lib.C.tocha_tensor_to_dtype(x.p, lib.dtype.i64)) end
  -- the result's size is checked (allocated) first: an N past memory fails here, and an empty x
  -- returns, where the loop below would otherwise run N - 1 steps (N = 2^62 ran for ever)
  local ok, out = pcall(function() return torch.emptyLike(x):resize(n, N) end)
  if not ok then fail('vander', 'cannot make the %d x %s result: %s', n, tostring(N), tostring(out):gsub('^.-%] ', '')) end
  if N == 0 or n == 0 then return out end
  local cols = { torch.onesLike(x) }
  for j = 2, N do cols[j] = torch.cmul(cols[j - 1], x) end
  if not increasing then
    for j = 1, math.floor(N / 2) do cols[j], cols[N + 1 - j] = cols[N + 1 - j], cols[j] end
  end
  return (torch.stack(cols, 2))
end

--- torch.setNumThreads(n): torch.setnumthreads(n), PyTorch's spelling (the same function).
--- Example: torch.setNumThreads(torch.getNumThreads())
torch.setNumThreads = torch.setnumthreads
--- torch.getNumThreads(): torch.getnumthreads(), PyTorch's spelling (the same function).
--- Example: torch.getNumThreads()
torch.getNumThreads = torch.getnumthreads

-- Note [Inference mode]: Tocha has no inference tensors; inferenceMode is noGrad (no graph is
-- recorded, full reductions give numbers) plus a flag isInferenceModeEnabled reads. Tensors
-- made inside can be used with autograd afterwards, where PyTorch would refuse them.
local inference_depth = 0

--- torch.inferenceMode([mode = true,] fn, ...): runs fn(...) with grad recording off (PyTorch's
--- inference_mode, Note [Inference mode]) and returns its results; mode = false runs fn as is.
--- Example: torch.inferenceMode(function() return torch.ones(2):sum() end)
function torch.inferenceMode(mode, fn, ...)
  if type(mode) == 'function' or mode == nil then return torch.inferenceMode(true, mode, fn, ...) end
  if type(mode) ~= 'boolean' then fail('inferenceMode', 'expected a boolean mode or a function, got %s', describe(mode)) end
  if type(fn) ~= 'function' then fail('inferenceMode', 'expected a function, got %s', describe(fn)) end
  if not mode then return fn(...) end
  inference_depth = inference_depth + 1
  local res = { pcall(torch.noGrad, fn, ...) }
  inference_depth = inference_depth - 1
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

--- torch.isInferenceModeEnabled(): true inside torch.inferenceMode.
--- Example: torch.isInferenceModeEnabled()
function torch.isInferenceModeEnabled() return inference_depth > 0 end

local PRINT_KEYS = { precision = 'number', threshold = 'number', edgeitems = 'number', linewidth = 'number',
  sciMode = 'boolean', profile = 'string' }
local PROFILES = {
  default = { precision = 4, threshold = math.huge, edgeitems = 3, linewidth = 80 },
  short = { precision = 2, threshold = 1000, edgeitems = 2, linewidth = 80 },
  full = { precision = 4, threshold = math.huge, edgeitems = 3, linewidth = 80 },
}

--- torch.setPrintoptions{precision = 4, threshold = inf, edgeitems = 3, linewidth = 80, sciMode
--- = nil, profile = nil}: how tensors print: digits after the point, the element count above
--- which only edgeitems rows/columns at each end of each dim print (around '...'), the line
--- width, and sciMode true/false to force or forbid the %e format (nil: Torch7's choice).
--- Keys left out keep their values; profile 'default', 'short' or 'full' sets all first.
--- Defaults are Torch7's output (no summarizing), where PyTorch's threshold is 1000.
--- Example: torch.setPrintoptions({precision = 4})
function torch.setPrintoptions(opts)
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    fail('setPrintoptions', 'expected a table of options, got %s', describe(opts))
  end
  for k, v in pairs(opts) do
    if PRINT_KEYS[k] == nil then fail('setPrintoptions', 'unknown option %s', tostring(k)) end
    if type(v) ~= PRINT_KEYS[k] then fail('setPrintoptions', '%s must be a %s, got %s', k, PRINT_KEYS[k], describe(v)) end
  end
  local o = torch._print_options
  if opts.profile then
    local p = PROFILES[opts.profile]
    if not p then fail('setPrintoptions', "profile must be 'default', 'short' or 'full', got '%s'", opts.profile) end
    for k, v in pairs(p) do o[k] = v end
    o.sciMode = nil
  end
  local p = opts.precision
  if p and (p ~= math.floor(p) or p < 0 or p > 20) then fail('setPrintoptions', 'precision must be an integer in [0, 20], got %s', p) end
  if opts.linewidth and opts.linewidth < 1 then fail('setPrintoptions', 'linewidth must be positive, got %s', opts.linewidth) end
  if opts.edgeitems and (opts.edgeitems < 1 or opts.edgeitems ~= math.floor(opts.edgeitems)) then
    fail('setPrintoptions', 'edgeitems must be a positive integer, got %s', opts.edgeitems)
  end
  for k, v in pairs(opts) do if k ~= 'profile' then o[k] = v end end
end

--- torch.getPrintoptions(): a copy of the print options torch.setPrintoptions sets.
--- Example: torch.getPrintoptions().precision
function torch.getPrintoptions()
  local c = {}
  for k, v in pairs(torch._print_options) do c[k] = v end
  return c
end

return torch
