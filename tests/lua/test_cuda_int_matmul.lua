-- The integer matmul family on CUDA (issue 9: a CUDA kernel for every CPU (op, dtype)): dot, mv,
-- mm, bmm, ger, addmm, addmv, addr, addbmm and baddbmm in i64, i32 and u8 against the CPU, bit for
-- bit. Prints SKIPPED without a GPU (CI and the build machine have none); tests/lua/
-- test_fakegpu_ops.lua checks the host side of the same calls on the fake GPU stack.
local tester = torch.Tester()
local tests = torch.TestSuite()
local available = torch.cuda.isAvailable()
if not available then print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')') end

-- ---- the integer matmul family: CUDA equals the CPU exactly ---------------------------------
-- Note [Integer matmul on CUDA] (kernels/cuda/int_matmul.cu): i64, i32 and u8 products wrap
-- modulo 2^bits as the CPU's loops do, so every case must match bit for bit: transposed operands,
-- non-contiguous results (written directly or through a temporary), beta 0 and 1, alpha != 1,
-- empty and 1x1 shapes, batches, sizes off the kernel's 64 x 64 tile, split row reductions, and
-- values whose products wrap.
function tests.integerMatmulMatchesCpu()
  if not available then return end
  local lib = torch._lib
  local unpack = table.unpack or unpack  -- (an `a and f() or g()` would keep one value)
  local failures, checked = {}, 0
  for _, tname in ipairs({ 'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }) do
    local T = torch[tname:match('torch%.(.*)')]
    -- Values whose sums of products wrap: u8 and i32 over their whole range, i64 up to 2^62
    -- (a * (2^31 + 1) keeps the low bits varied).
    local function V(...)
      local t = torch.LongTensor(...)
      if tname == 'torch.ByteTensor' then return t:random(0, 255):type(tname) end
      t:random(-2 ^ 31, 2 ^ 31 - 1)
      if tname == 'torch.LongTensor' then t:mul(2 ^ 31 + 1) end
      return t:type(tname)
    end
    -- (cpu, gpu) pairs of the same values; t = true gives transposed views of them.
    local function pair(t, ...)
      local c = V(...)
      local g = c:cuda()
      if t then return c:t(), g:t() end
      return c, g
    end
    local function same(what, c, g)
      checked = checked + 1
      local ok = g:device() ~= 'cpu' and g:type() == 'torch.Cuda' .. tname:match('torch%.(.*)')
      ok = ok and torch.equal(c, g:type(tname))
      if not ok then failures[#failures + 1] = tname .. ' ' .. what end
    end
    local function run(what, f, ...)
      local args = { ... }
      local cargs, gargs = {}, {}
      for i, v in ipairs(args) do
        if type(v) == 'table' then cargs[i], gargs[i] = v[1], v[2] else cargs[i], gargs[i] = v, v end
      end
      local ok1, c = pcall(f, unpack(cargs))
      local ok2, g = pcall(f, unpack(gargs))
      if not (ok1 and ok2) then
        failures[#failures + 1] = string.format('%s %s: %s / %s', tname, what, tostring(c), tostring(g))
        return
      end
      same(what, c, g)
    end
    local mults = { { 0, 1 }, { 1, 1 }, { 1, 3 }, { 0, -2 }, { 2, -1 }, { -3, 7 } }

    -- mm / addmm: shapes {m, k, n}, every transposition of the operands and of M
    local shapes = { { 0, 3, 4 }, { 3, 0, 4 }, { 3, 4, 0 }, { 1, 1, 1 }, { 1, 5, 1 }, { 65, 17, 33 },
                     { 64, 64, 64 }, { 130, 70, 3 }, { 5, 200, 129 } }
    for _, s in ipairs(shapes) do
      local m, k, n = s[1], s[2], s[3]
      local tag = table.concat(s, 'x')
      for _, ta in ipairs({ false, true }) do
        for _, tb in ipairs({ false, true }) do
          local a = { pair(ta, ta and k or m, ta and m or k) }
          local b = { pair(tb, tb and n or k, tb and k or n) }
          local what = string.format('%s ta=%s tb=%s', tag, tostring(ta), tostring(tb))
          run('mm ' .. what, torch.mm, a, b)
          for _, ab in ipairs(mults) do
            local M = { pair(ta, ta and n or m, ta and m or n) }
            run(string.format('addmm %s beta=%d alpha=%d', what, ab[1], ab[2]), torch.addmm, ab[1], M, ab[2], a, b)
          end
        end
      end
      -- results written in place: a transposed one (column-major, written directly), one with a
      -- padded row (direct), and one with both strides > 1 (through a temporary); untouched
      -- elements of the base must stay as they were.
      local a, b = { pair(false, m, k) }, { pair(false, k, n) }
      local views = {
        { 'transposed', function(x) return x:t() end, { n, m } },
        { 'padded', function(x) return x:narrow(2, 1, n) end, { m, n + 3 } },
        { 'strided', function(x) return x:select(3, 2) end, { m, n, 2 } },
      }
      for _, v in ipairs(views) do
        local base = V(unpack(v[3]))
        local gbase = base:cuda()
        torch.mm(v[2](base), a[1], b[1])
        torch.mm(v[2](gbase), a[2], b[2])
        same('mm into a ' .. v[1] .. ' result ' .. tag, base, gbase)
        for _, ab in ipairs(mults) do
          base = V(unpack(v[3]))
          gbase = base:cuda()
          v[2](base):addmm(ab[1], ab[2], a[1], b[1])
          v[2](gbase):addmm(ab[1], ab[2], a[2], b[2])
          same(string.format('in-place addmm on a %s M %s beta=%d alpha=%d', v[1], tag, ab[1], ab[2]), base, gbase)
        end
      end
    end

    -- bmm / baddbmm / addbmm: batches of 0, 1, 3 and 5, transposed batch operands
    for _, s in ipairs({ { 1, 2, 3, 4 }, { 3, 17, 65, 9 }, { 5, 1, 1, 1 }, { 3, 70, 5, 66 }, { 0, 2, 3, 4 },
                         { 2, 0, 3, 4 }, { 2, 3, 0, 4 } }) do
      local bs, m, k, n = s[1], s[2], s[3], s[4]
      local tag = table.concat(s, 'x')
      for _, tr in ipairs({ false, true }) do
        local b1c = tr and V(bs, k, m):transpose(2, 3) or V(bs, m, k)
        local b2c = tr and V(bs, n, k):transpose(2, 3) or V(bs, k, n)
        local b1, b2 = { b1c, tr and b1c:transpose(2, 3):cuda():transpose(2, 3) or b1c:cuda() },
                       { b2c, tr and b2c:transpose(2, 3):cuda():transpose(2, 3) or b2c:cuda() }
        local what = tag .. ' transposed=' .. tostring(tr)
        run('bmm ' .. what, torch.bmm, b1, b2)
        for _, ab in ipairs(mults) do
          local M3 = V(bs, m, n)
          run(string.format('baddbmm %s beta=%d alpha=%d', what, ab[1], ab[2]), torch.baddbmm, ab[1],
              { M3, M3:cuda() }, ab[2], b1, b2)
          local Mc = V(n, m)
          run(string.format('addbmm %s beta=%d alpha=%d (transposed M)', what, ab[1], ab[2]), torch.addbmm, ab[1],
              { Mc:t(), Mc:cuda():t() }, ab[2], b1, b2)
        end
      end
    end

    -- mv / addmv: row-major and transposed matrices, long rows (one block per row), rows split
    -- over blocks (3 x 40000; 40 x 5000 transposed), strided vectors and results
    for _, s in ipairs({ { 0, 3 }, { 3, 0 }, { 1, 1 }, { 7, 33 }, { 70, 300 }, { 5, 3000 }, { 3, 40000 }, { 40, 5000 },
                         { 600, 3 } }) do
      local m, n = s[1], s[2]
      local tag = table.concat(s, 'x')
      for _, tr in ipairs({ false, true }) do
        local mat = { pair(tr, tr and n or m, tr and m or n) }
        local xc = V(n, 2):select(2, 2)
        local x = { xc, xc:cuda() }
        run('mv ' .. tag .. ' transposed=' .. tostring(tr), torch.mv, mat, x)
        for _, ab in ipairs(mults) do
          local y = V(m)
          run(string.format('addmv %s transposed=%s beta=%d alpha=%d', tag, tostring(tr), ab[1], ab[2]), torch.addmv,
              ab[1], { y, y:cuda() }, ab[2], mat, x)
        end
        local base = V(m, 3)
        local gbase = base:cuda()
        torch.mv(base:select(2, 2), mat[1], x[1])
        torch.mv(gbase:select(2, 2), mat[2], x[2])
        same('mv into a strided result ' .. tag, base, gbase)
      end
    end

    -- ger / addr: strided vectors, row- and column-major results
    for _, s in ipairs({ { 0, 3 }, { 3, 0 }, { 1, 1 }, { 65, 130 }, { 3, 200 }, { 200, 2 } }) do
      local m, n = s[1], s[2]
      local tag = table.concat(s, 'x')
      local xc, yc = V(m, 2):select(2, 1), V(n)
      local x, y = { xc, xc:cuda() }, { yc, yc:cuda() }
      run('ger ' .. tag, torch.ger, x, y)
      for _, ab in ipairs(mults) do
        local M = V(m, n)
        run(string.format('addr %s beta=%d alpha=%d', tag, ab[1], ab[2]), torch.addr, ab[1], { M, M:cuda() }, ab[2],
            x, y)
        local Mt = V(n, m)
        run(string.format('addr %s beta=%d alpha=%d (transposed M)', tag, ab[1], ab[2]), torch.addr, ab[1],
            { Mt:t(), Mt:cuda():t() }, ab[2], x, y)
      end
    end

    -- dot: as a 0-dim tensor (torch.dot's number would round i64 results to a double)
    local function dot_tensor(a, b) return lib.wrap(lib.C.tocha_dot(a.p, b.p)) end
    for _, n in ipairs({ 0, 1, 7, 300, 5000, 100000 }) do
      local ac, bc = V(n), V(n, 3):select(2, 3)
      run('dot ' .. n, dot_tensor, { ac, ac:cuda() }, { bc, bc:cuda() })
      run('dot of matrices ' .. n, dot_tensor, { ac:view(1, n), ac:cuda():view(1, n) }, { bc, bc:cuda() })
    end
  end

  -- wraparound, spelled out
  local a8, b8 = torch.ByteTensor({ { 200, 100 } }), torch.ByteTensor({ { 3 }, { 7 } })
  tester:asserteq(torch.mm(a8:cuda(), b8:cuda()):byte()[1][1], 20, 'u8: 600 + 700 wraps to 20')
  tester:asserteq(torch.mm(a8, b8)[1][1], 20)
  tester:asserteq(torch.dot(torch.CudaByteTensor({ 16, 16 }), torch.CudaByteTensor({ 16, 1 })), 16, 'u8 dot wraps')
  tester:asserteq(torch.addmm(2, torch.ByteTensor({ { 250 } }):cuda(), 1, a8:cuda(), b8:cuda()):byte()[1][1],
                  (500 + 1300) % 256, 'u8 beta * M wraps too')
  local i32 = torch.IntTensor({ { 65536, 2 ^ 31 - 1 } }):cuda()
  tester:asserteq(torch.mm(i32, torch.IntTensor({ { 65536 }, { 1 } }):cuda()):int()[1][1], 2 ^ 31 - 1,
                  'i32: 2^32 wraps to 0')
  tester:asserteq(torch.mv(i32, torch.IntTensor({ 0, 2 }):cuda()):int()[1], -2, 'i32: 2 * (2^31 - 1) wraps to -2')
  local i64 = torch.LongTensor({ { 2 ^ 32 } }):cuda()
  tester:asserteq(torch.mm(i64, i64):long()[1][1], 0, 'i64: 2^64 wraps to 0')
  tester:asserteq(torch.mm(torch.LongTensor({ { 2 ^ 62 } }):cuda(), torch.LongTensor({ { 3 } }):cuda()):long()[1][1],
                  -2 ^ 62, 'i64: 3 * 2^62 wraps to -2^62')
  print(string.format('checked %d integer matmul cases on CUDA', checked))
  tester:asserteq(#failures, 0, table.concat(failures, '\n'))
end

tester:add(tests)
tester:run()
