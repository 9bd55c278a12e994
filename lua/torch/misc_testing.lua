-- torch.testing.assertClose: PyTorch's assert_close for tensors, numbers and tables of them,
-- with its default tolerances per dtype and its mismatch report (1-based indices here).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail, dt = lib.fail, lib.dtype
local is_tensor, describe = types.is_tensor, types.describe

torch.testing = torch.testing or {}
local OP = 'testing.assertClose'

-- PyTorch 1.13's defaults (torch.testing._comparison): {rtol, atol}; integers and bool compare exactly.
local TOLERANCES = { [dt.f16] = { 1e-3, 1e-5 }, [dt.bf16] = { 1.6e-2, 1e-5 }, [dt.f32] = { 1.3e-6, 1e-5 },
  [dt.f64] = { 1e-7, 1e-7 } }
local function defaults(id)
  local t = TOLERANCES[id] or { 0, 0 }
  return t[1], t[2]
end

local function dtype_str(id) return torch._dtype_name and torch._dtype_name[id] or types.suffix[id] end
local function shape_str(p) return '{' .. types.shape_str(p):gsub('x', ', ') .. '}' end

-- The values as a contiguous double buffer on the host, with their count.
local function doubles(t) return torch._values_as_doubles(t.p) end

local function index_str(flat, sizes)
  local idx, rest = {}, flat
  for i = #sizes, 1, -1 do
    idx[i] = rest % sizes[i] + 1
    rest = math.floor(rest / sizes[i])
  end
  return '(' .. table.concat(idx, ', ') .. (#idx == 1 and ',' or '') .. ')'
end

-- The shortest of %.15g/%.17g that reads back as v (Python's repr of a float, near enough).
local function num_str(v)
  local s = ('%.15g'):format(v)
  if tonumber(s) ~= v and v == v then s = ('%.17g'):format(v) end
  return s
end

local function is_close(a, e, rtol, atol, equal_nan)
  if a == e then return true end
  if a ~= a or e ~= e then return equal_nan and a ~= a and e ~= e end
  if a == math.huge or a == -math.huge or e == math.huge or e == -math.huge then return false end
  return math.abs(a - e) <= atol + rtol * math.abs(e)
end

local function compare_tensors(a, e, o, path)
  if o.checkDevice ~= false and a.p.device_type ~= e.p.device_type then
    fail(OP, "%sthe values for attribute 'device' do not match: %s != %s", path, a:device(), e:device())
  end
  if o.checkDtype ~= false and a.p.dtype ~= e.p.dtype then
    fail(OP, "%sthe values for attribute 'dtype' do not match: %s != %s", path, dtype_str(a.p.dtype), dtype_str(e.p.dtype))
  end
  if not a:isSameSizeAs(e) then
    fail(OP, "%sthe values for attribute 'shape' do not match: %s != %s", path, shape_str(a.p), shape_str(e.p))
  end
  local rtol, atol = o.rtol, o.atol
  if rtol == nil then
    local r1, a1 = defaults(a.p.dtype)
    local r2, a2 = defaults(e.p.dtype)
    rtol, atol = math.max(r1, r2), math.max(a1, a2)
  end
  local ba, n = doubles(a)
  local be = doubles(e)
  local bad, max_abs, max_abs_i, max_rel, max_rel_i = 0, 0, 0, 0, 0
  for i = 0, n - 1 do
    local x, y = ba[i], be[i]
    if not is_close(x, y, rtol, atol, o.equalNan) then
      bad = bad + 1
      local d = math.abs(x - y)
      local r = d / math.abs(y)
      if d > max_abs or d ~= d and max_abs == max_abs then max_abs, max_abs_i = d, i end
      if r > max_rel or r ~= r and max_rel == max_rel then max_rel, max_rel_i = r, i end
    end
  end
  if bad == 0 then return end
  local msg = o.msg and (o.msg .. '\n') or ''
  if a.p.ndim == 0 then
    fail(OP, '%s%sScalars are not close!\n\nAbsolute difference: %s (up to %g allowed)\nRelative difference: %s (up to %g allowed)',
      msg, path, num_str(max_abs), atol, num_str(max_rel), rtol)
  end
  local sizes = types.size_table(a.p)
  fail(OP, '%s%sTensor-likes are not close!\n\nMismatched elements: %d / %d (%.1f%%)\n' ..
    'Greatest absolute difference: %s at index %s (up to %g allowed)\n' ..
    'Greatest relative difference: %s at index %s (up to %g allowed)',
    msg, path, bad, n, 100 * bad / n, num_str(max_abs), index_str(max_abs_i, sizes), atol,
    num_str(max_rel), index_str(max_rel_i, sizes), rtol)
end

local function compare(a, e, o, path)
  if is_tensor(a) and is_tensor(e) then return compare_tensors(a, e, o, path) end
  if type(a) == 'number' and type(e) == 'number' then
    -- Lua numbers compare as PyTorch compares Python floats: as float64 scalars.
    return compare_tensors(torch.DoubleTensor({ a }):view(torch.LongStorage()),
      torch.DoubleTensor({ e }):view(torch.LongStorage()), o, path)
  end
  if type(a) == 'boolean' and type(e) == 'boolean' then
    if a ~= e then fail(OP, '%s%sbooleans differ: %s != %s', o.msg and (o.msg .. '\n') or '', path, tostring(a), tostring(e)) end
    return
  end
  if type(a) == 'table' and type(e) == 'table' and getmetatable(a) == nil and getmetatable(e) == nil then
    if #a ~= #e then fail(OP, '%sthe sequences differ in length: %d != %d', path, #a, #e) end
    for i = 1, #a do compare(a[i], e[i], o, path .. 'item [' .. i .. ']: ') end
    return
  end
  fail(OP, '%sexpected two tensors, numbers, booleans or tables of them, got %s and %s', path, describe(a), describe(e))
end

--- torch.testing.assertClose(actual, expected [, {rtol=, atol=, equalNan = false, checkDtype =
--- true, checkDevice = true, msg=}]): raises unless |actual - expected| <= atol + rtol |expected|
--- elementwise (tensors, numbers or tables of them), as PyTorch's assert_close: the shapes,
--- dtypes and devices must match, rtol and atol default to PyTorch's per dtype (float32: 1.3e-6
--- and 1e-5; float64: 1e-7 and 1e-7; float16: 1e-3 and 1e-5; bfloat16: 1.6e-2 and 1e-5;
--- integers: exact) and come together. The error counts the mismatches and gives the greatest
--- absolute and relative differences with their 1-based indices.
--- Example: torch.testing.assertClose(torch.Tensor({1, 2}), torch.Tensor({1, 2 + 1e-7}))
function torch.testing.assertClose(actual, expected, opts)
  opts = opts or {}
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then fail(OP, 'expected options as a table, got %s', describe(opts)) end
  if (opts.rtol == nil) ~= (opts.atol == nil) then
    fail(OP, "both rtol and atol must be given or both left out, got %s", opts.rtol == nil and 'only atol' or 'only rtol')
  end
  for _, k in ipairs({ 'rtol', 'atol' }) do
    if opts[k] ~= nil and (type(opts[k]) ~= 'number' or opts[k] < 0) then
      fail(OP, '%s must be a non-negative number, got %s', k, tostring(opts[k]))
    end
  end
  compare(actual, expected, opts, '')
end

return torch
