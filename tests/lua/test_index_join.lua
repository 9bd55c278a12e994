-- Joining and matrix-shape helpers: torch.cat, torch.stack, diag, tril, triu with Torch7's call
-- forms (1-based dims), dtype promotion and error cases; flip, fliplr and flipud against a
-- reference on Lua tables.
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.catTwoTensors()
  local a, b = torch.Tensor({ { 1, 2 }, { 3, 4 } }), torch.Tensor({ { 5, 6 } })
  tester:eq(torch.cat(a, b, 1):totable(), { { 1, 2 }, { 3, 4 }, { 5, 6 } })
  tester:eq(torch.cat(a, a):totable(), { { 1, 2, 1, 2 }, { 3, 4, 3, 4 } })  -- default: the last dim
  tester:eq(torch.cat(a, a, -2):size():totable(), { 4, 2 })
  tester:eq(torch.cat(torch.Tensor({ 1, 2 }), torch.Tensor({ 3 })):totable(), { 1, 2, 3 })
  -- Torch7: a dim past the last adds one; 1D inputs become columns
  tester:eq(torch.cat(torch.Tensor({ 1, 2 }), torch.Tensor({ 3, 4 }), 2):totable(), { { 1, 3 }, { 2, 4 } })
  -- [res,] form, and the method form
  local res = torch.Tensor()
  tester:assert(torch.cat(res, a, b, 1) == res)
  tester:eq(res:size():totable(), { 3, 2 })
  tester:eq(a:cat(b, 1):totable(), { { 1, 2 }, { 3, 4 }, { 5, 6 } })
  res:cat(b, b, 1)
  tester:eq(res:totable(), { { 5, 6 }, { 5, 6 } })
  -- Torch7's x = x:cat(...) idiom: the result tensor may be one of the inputs
  local acc = torch.Tensor({ 1 })
  for i = 2, 4 do acc:cat(acc, torch.Tensor({ i }), 1) end
  tester:eq(acc:totable(), { 1, 2, 3, 4 })
end

function tests.catTable()
  local a, b, c = torch.ones(2, 1), torch.zeros(2, 2), torch.Tensor({ { 7 }, { 8 } })
  tester:eq(torch.cat({ a, b, c }):totable(), { { 1, 0, 0, 7 }, { 1, 0, 0, 8 } })
  tester:eq(torch.cat({ a, c }, 1):totable(), { { 1 }, { 1 }, { 7 }, { 8 } })
  local res = torch.Tensor()
  torch.cat(res, { a, c }, 2)
  tester:eq(res:totable(), { { 1, 7 }, { 1, 8 } })
  res:cat({ c, a }, 2)
  tester:eq(res:totable(), { { 7, 1 }, { 8, 1 } })
  tester:eq(torch.cat({ a }, 1):totable(), a:totable())
  -- empty tensors are skipped (Torch7's torch.Tensor() accumulator idiom)
  local all = torch.Tensor()
  for i = 1, 3 do all = torch.cat(all, torch.Tensor({ { i, -i } }), 1) end
  tester:eq(all:totable(), { { 1, -1 }, { 2, -2 }, { 3, -3 } })
  tester:eq(torch.cat({ torch.Tensor(), torch.Tensor() }):nElement(), 0)
  -- strided inputs
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(torch.cat({ m:t(), m }, 1):totable(), { { 1, 3 }, { 2, 4 }, { 1, 2 }, { 3, 4 } })
end

function tests.catPromotes()
  local r = torch.cat(torch.IntTensor({ 1, 2 }), torch.DoubleTensor({ 0.5 }))
  tester:asserteq(r:type(), 'torch.DoubleTensor')
  tester:eq(r:totable(), { 1, 2, 0.5 })
  tester:asserteq(torch.cat({ torch.ByteTensor({ 1 }), torch.LongTensor({ 2 }) }):type(), 'torch.LongTensor')
  tester:asserteq(torch.cat(torch.BoolTensor({ true }), torch.BoolTensor({ false })):type(), 'torch.BoolTensor')
  local res = torch.FloatTensor()
  torch.cat(res, torch.LongTensor({ 1 }), torch.IntTensor({ 2 }))
  tester:asserteq(res:type(), 'torch.FloatTensor')
  tester:eq(res:totable(), { 1, 2 })
end

function tests.stack()
  local a, b = torch.Tensor({ 1, 2 }), torch.Tensor({ 3, 4 })
  tester:eq(torch.stack({ a, b }):totable(), { { 1, 2 }, { 3, 4 } })
  tester:eq(torch.stack({ a, b }, 2):totable(), { { 1, 3 }, { 2, 4 } })
  tester:eq(torch.stack({ a, b }, -1):totable(), { { 1, 3 }, { 2, 4 } })
  local res = torch.Tensor()
  tester:assert(torch.stack(res, { a, a, b }, 1) == res)
  tester:eq(res:size():totable(), { 3, 2 })
  tester:eq(torch.stack({ torch.ones(2, 3), torch.zeros(2, 3) }, 2):size():totable(), { 2, 2, 3 })
end

function tests.diag()
  tester:eq(torch.diag(torch.Tensor({ 1, 2 })):totable(), { { 1, 0 }, { 0, 2 } })
  tester:eq(torch.diag(torch.Tensor({ 1, 2 }), 1):totable(), { { 0, 1, 0 }, { 0, 0, 2 }, { 0, 0, 0 } })
  tester:eq(torch.diag(torch.Tensor({ 1, 2 }), -1):totable(), { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 2, 0 } })
  local m = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(torch.diag(m):totable(), { 1, 5 })
  tester:eq(m:diag(1):totable(), { 2, 6 })
  tester:eq(m:diag(-1):totable(), { 4 })
  tester:eq(m:diag(3):nElement(), 0)
  tester:eq(m:t():diag():totable(), { 1, 5 })
  local res = torch.Tensor()
  res:diag(torch.Tensor({ 3 }))
  tester:eq(res:totable(), { { 3 } })
  torch.diag(res, m, 2)
  tester:eq(res:totable(), { 3 })
  local d = torch.diag(m)
  d[1] = 100  -- a copy, not a view
  tester:eq(m[1][1], 1)
  tester:asserteq(torch.diag(torch.LongTensor({ 1 })):type(), 'torch.LongTensor')
end

function tests.trilTriu()
  local function ones() return torch.ones(3, 3) end
  tester:eq(torch.tril(ones()):totable(), { { 1, 0, 0 }, { 1, 1, 0 }, { 1, 1, 1 } })
  tester:eq(torch.triu(ones()):totable(), { { 1, 1, 1 }, { 0, 1, 1 }, { 0, 0, 1 } })
  tester:eq(torch.tril(ones(), -1):totable(), { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 } })
  tester:eq(torch.triu(ones(), 2):totable(), { { 0, 0, 1 }, { 0, 0, 0 }, { 0, 0, 0 } })
  -- x:tril() works in place; res:tril(x) fills res; torch.tril(res, x, k)
  local x = ones()
  tester:assert(x:triu(1) == x)
  tester:eq(x:totable(), { { 0, 1, 1 }, { 0, 0, 1 }, { 0, 0, 0 } })
  local res = torch.Tensor()
  res:tril(ones(), 0)
  tester:eq(res:totable(), { { 1, 0, 0 }, { 1, 1, 0 }, { 1, 1, 1 } })
  torch.triu(res, torch.Tensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } }), -1)
  tester:eq(res:totable(), { { 1, 2 }, { 3, 4 }, { 0, 6 } })
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(m:t():tril():totable(), { { 1, 0 }, { 2, 4 } })
  tester:eq(m:totable(), { { 1, 2 }, { 0, 4 } })  -- in place through the transposed view
  tester:eq(torch.tril(torch.ones(2, 2, 2)):sum(), 6)
end

-- ---- flip ------------------------------------------------------------------------------------

-- The reference: x:totable() with the nested tables at the depths in `dims` reversed.
local function flip_table(t, dims, depth)
  depth = depth or 1
  if type(t) ~= 'table' then return t end
  local r, n = {}, #t
  for i = 1, n do r[i] = flip_table(t[dims[depth] and n - i + 1 or i], dims, depth + 1) end
  return r
end
local function dim_set(list, ndim)
  local set = {}
  for _, d in ipairs(list) do set[d < 0 and ndim + d + 1 or d] = true end
  return set
end

function tests.flipValues()
  local m = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(torch.flip(m, 2):totable(), { { 3, 2, 1 }, { 6, 5, 4 } })
  tester:eq(m:flip(1):totable(), { { 4, 5, 6 }, { 1, 2, 3 } })
  tester:eq(m:flip({ 1, 2 }):totable(), { { 6, 5, 4 }, { 3, 2, 1 } })
  tester:eq(m:flip(2, 1):totable(), { { 6, 5, 4 }, { 3, 2, 1 } })  -- several numbers, any order
  tester:eq(m:flip(-1):totable(), { { 3, 2, 1 }, { 6, 5, 4 } })
  tester:eq(m:flip(torch.LongStorage({ 1 })):totable(), { { 4, 5, 6 }, { 1, 2, 3 } })
  tester:eq(m:flip(torch.LongTensor({ 2 })):totable(), { { 3, 2, 1 }, { 6, 5, 4 } })
  tester:eq(torch.Tensor({ 1, 2, 3, 4 }):flip(1):totable(), { 4, 3, 2, 1 })
  tester:eq(torch.fliplr(m):totable(), { { 3, 2, 1 }, { 6, 5, 4 } })
  tester:eq(m:flipud():totable(), { { 4, 5, 6 }, { 1, 2, 3 } })
  tester:eq(torch.flipud(torch.Tensor({ 1, 2, 3 })):totable(), { 3, 2, 1 })
  tester:eq(m:totable(), { { 1, 2, 3 }, { 4, 5, 6 } })  -- x itself is unchanged
  -- a copy, as PyTorch's flip: writing into the result leaves x alone, even for no dims
  local r, c = m:flip(1), m:flip({})
  r:fill(0)
  c:fill(0)
  tester:eq(m:totable(), { { 1, 2, 3 }, { 4, 5, 6 } })
  -- edge sizes: empty dims, dims of size 1, 0-dim tensors
  tester:eq(torch.Tensor(0, 3):flip(1):size():totable(), { 0, 3 })
  tester:eq(torch.Tensor(2, 0):fliplr():size():totable(), { 2, 0 })
  tester:eq(torch.Tensor({ { 1, 2 } }):flip(1, 2):totable(), { { 2, 1 } })
  local z = torch.Tensor({ 7 }):view({}):flip(1)
  tester:asserteq(z:dim(), 0)
  tester:asserteq(z:item(), 7)
end

-- 1-D to 4-D, every non-empty set of dims, several dtypes, contiguous, transposed and narrowed.
function tests.flipAgainstReference()
  torch.manualSeed(5)
  local function subsets(n)
    local all = {}
    for mask = 1, 2 ^ n - 1 do
      local s = {}
      for d = 1, n do if bit.band(mask, 2 ^ (d - 1)) ~= 0 then s[#s + 1] = d end end
      all[#all + 1] = s
    end
    return all
  end
  -- (a last dim of 16 or more with several rows takes the reversed-row copy: Note [Gathers along a
  -- reversed or ascending range])
  for _, sz in ipairs({ { 5 }, { 3, 4 }, { 2, 3, 4 }, { 2, 3, 1, 4 }, { 3, 21 }, { 2, 2, 16 } }) do
    local base = torch.rand(unpack(sz)):mul(100):floor()
    for _, name in ipairs({ 'FloatTensor', 'DoubleTensor', 'LongTensor', 'IntTensor', 'ByteTensor', 'HalfTensor',
                            'BFloat16Tensor' }) do
      local x = base:type('torch.' .. name)
      local views = { contiguous = x }
      if #sz >= 2 then views.transposed = x:transpose(1, #sz):clone():transpose(1, #sz) end
      local big_size = {}
      for k = 1, #sz do big_size[k] = sz[k] + 2 end
      -- x inside a larger buffer (resize: torch.LongTensor(storage) would view the storage itself)
      local big = torch[name]():resize(torch.LongStorage(big_size)):fill(99)
      for d = 1, #sz do big = big:narrow(d, 2, sz[d]) end
      views.narrowed = big:copy(x)
      for vname, v in pairs(views) do
        local want = x:totable()
        for _, dims in ipairs(subsets(#sz)) do
          local what = string.format('%s %s %s flip {%s}', name, table.concat(sz, 'x'), vname, table.concat(dims, ','))
          local got = v:flip(dims)
          tester:asserteq(got:type(), 'torch.' .. name, what)
          tester:eq(got:totable(), flip_table(want, dim_set(dims, #sz)), what)
          local neg = {}
          for k, d in ipairs(dims) do neg[k] = d - #sz - 1 end
          tester:eq(torch.flip(v, neg):totable(), got:totable(), what .. ' with negative dims')
        end
      end
    end
  end
  local b = torch.BoolTensor({ { true, false, false }, { false, false, true } })
  tester:eq(b:flip(2):totable(), { { false, false, true }, { true, false, false } })
  local r = torch.randn(2, 3, 4, 5)
  tester:eq(r:flip(1, 3):flip({ 3, 1 }), r, 0)  -- flipping twice gives x back
  -- index_select with an ascending run of positions along the last dim: each row copied
  local m = torch.randn(4, 30)
  tester:eq(torch.index(m, 2, torch.range(5, 24):long()), m:narrow(2, 5, 20), 0)
  tester:eq(torch.index(m, 2, torch.range(24, 5, -1):long()), m:narrow(2, 5, 20):flip(2), 0)
end

function tests.flipGradient()
  local x = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } }):requiresGrad()
  local w = torch.Tensor({ { 1, 10, 100 }, { 2, 20, 200 } })
  local y = x:flip(2)
  tester:assert(y:needsGrad())
  torch.cmul(y, w):sum():backward()
  tester:eq(x.grad:totable(), { { 100, 10, 1 }, { 200, 20, 2 } })  -- the gradient flipped back
  local c = torch.Tensor({ 1, 2 }):requiresGrad()
  torch.cmul(c:flip({}), torch.Tensor({ 3, 4 })):sum():backward()  -- no dims: a recorded copy
  tester:eq(c.grad:totable(), { 3, 4 })
end

function tests.flipErrors()
  local a = torch.ones(2, 3)
  tester:assertErrorPattern(function() a:flip(1, 1) end,
    '%[flip%] dimension 1 appears more than once in dims {1, 1} %(tensor of size 2x3%)')
  tester:assertErrorPattern(function() a:flip({ 2, -1 }) end, '%[flip%] dimension 2 appears more than once in dims {2, %-1}')
  tester:assertErrorPattern(function() a:flip(3) end, '%[flip%] dimension 3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() a:flip(-3) end, '%[flip%] dimension %-3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() a:flip(0) end, '%[flip%] dimension 0 out of range')
  tester:assertErrorPattern(function() a:flip(1.5) end, '%[flip%] dimension 1.5 is not an integer')
  tester:assertErrorPattern(function() a:flip() end, '%[flip%] expected dims %(a number, a table or a LongStorage%), got nil')
  tester:assertErrorPattern(function() a:flip('x') end, '%[flip%] expected dims .*got string')
  tester:assertErrorPattern(function() a:flip(torch.ones(1)) end, '%[flip%] expected dims .*got torch.FloatTensor of size 1')
  tester:assertErrorPattern(function() a:flip({ 1, 'x' }) end, '%[flip%] dim 2 is a string, expected a number')
  tester:assertErrorPattern(function() a:flip({ 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1 }) end,
    '%[flip%] at most 16 dims, got 17')
  tester:assertErrorPattern(function() torch.flip(5, 1) end, '%[flip%] expected a tensor as argument 1, got number')
  tester:assertErrorPattern(function() torch.fliplr(torch.ones(3)) end,
    '%[fliplr%] expected a tensor with at least 2 dimensions, got torch.FloatTensor of size 3')
  tester:assertErrorPattern(function() torch.flipud(torch.ones(1):view({})) end,
    '%[flipud%] expected a tensor with at least 1 dimension, got torch.FloatTensor of size %[%]')
  tester:assertErrorPattern(function() torch.fliplr(nil) end, '%[fliplr%] expected a tensor as argument 1, got nil')
  tester:assertErrorPattern(function() torch.Tensor(2, 3):flip({ 1 }, 2) end,
    '%[flip%] dims given as a table take no further arguments, got 1 more')
end

function tests.errors()
  local a = torch.ones(2, 3)
  tester:assertErrorPattern(function() torch.cat(a, torch.ones(3, 3), 2) end,
    'cat%] tensor 2 has size 3x3 but tensor 1 has size 2x3; they must match except in dimension 2')
  tester:assertErrorPattern(function() torch.cat({}) end, 'cat%] expected at least one tensor')
  tester:assertErrorPattern(function() torch.cat({ a, 1 }) end, 'element 2 of the table is number')
  tester:assertErrorPattern(function() torch.cat(a) end, 'expected %(%[res,%] tensor, tensor')
  tester:assertErrorPattern(function() torch.cat(a, a, 0) end, 'dimension 0 is out of range')
  tester:assertErrorPattern(function() torch.cat(a, a, 4) end, 'dimension 4 out of range')
  tester:assertErrorPattern(function() torch.cat(torch.LongTensor(), a, a) end,
    'cat%] result of type torch.FloatTensor cannot be written into a torch.LongTensor')
  tester:assertErrorPattern(function() torch.stack({ a, torch.ones(3, 2) }) end, 'stacked tensors must have the same size')
  tester:assertErrorPattern(function() torch.stack(a) end, 'stack%] expected a table of tensors')
  tester:assertErrorPattern(function() torch.diag(torch.ones(2, 2, 2)) end, 'diag%] expected a vector or a matrix')
  tester:assertErrorPattern(function() torch.diag(a, 0.5) end, 'diagonal offset')
  tester:assertErrorPattern(function() torch.tril(torch.ones(3)) end, 'tril%] expected a matrix')
  tester:assertErrorPattern(function() torch.triu('x') end, 'triu%] expected a matrix %(a tensor%), got string')
end

tester:add(tests)
tester:run()
