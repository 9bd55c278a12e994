-- torch.matmul, einsum, tensordot and outer (lua/torch/products.lua) on CUDA against the CPU, and
-- gradients through products of tensors moved between devices. Prints SKIPPED without a GPU.
local tester = torch.Tester()
local tests = torch.TestSuite()

local function rnd(...) return torch.randn(...):double() end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. '): CUDA products against the CPU')
    return
  end
  torch.manualSeed(7)
  local function same(cpu, gpu, tol, what) tester:assertTensorEq(gpu:double(), cpu:double(), tol, what) end
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    local tol = tname == 'torch.FloatTensor' and 1e-4 or 1e-10
    local pairs_ = { { rnd(4, 3, 5), rnd(5, 2) }, { rnd(3, 5), rnd(2, 5, 4) }, { rnd(6, 1, 3, 4), rnd(5, 4, 2) },
                     { rnd(4, 5, 3):transpose(2, 3), rnd(5, 2) }, { rnd(5), rnd(2, 5, 3) }, { rnd(4, 5), rnd(5) } }
    for i, p in ipairs(pairs_) do
      local a, b = p[1]:type(tname), p[2]:type(tname)
      same(torch.matmul(a, b), torch.matmul(a:cuda(), b:cuda()), tol, 'matmul case ' .. i .. ' ' .. tname)
    end
    local q, k = rnd(2, 3, 4, 5):type(tname), rnd(2, 3, 6, 5):type(tname)
    same(torch.einsum('bhqd,bhkd->bhqk', q, k), torch.einsum('bhqd,bhkd->bhqk', q:cuda(), k:cuda()), tol, 'einsum ' .. tname)
    local s = rnd(4, 4):type(tname)
    same(torch.einsum('ii->i', s), torch.einsum('ii->i', s:cuda()), tol, 'einsum ii->i ' .. tname)
    local P, Q = rnd(3, 4, 2):type(tname), rnd(4, 3, 5):type(tname)
    same(torch.einsum('ijk,jil->kl', P, Q), torch.einsum('ijk,jil->kl', P:cuda(), Q:cuda()), tol, 'einsum ijk,jil ' .. tname)
    same(torch.einsum('ij,jk,kl->il', s, s, s), torch.einsum('ij,jk,kl->il', s:cuda(), s:cuda(), s:cuda()), tol,
      'einsum three operands ' .. tname)
    local a, b = rnd(2, 3, 4):type(tname), rnd(3, 4, 5):type(tname)
    same(torch.tensordot(a, b), torch.tensordot(a:cuda(), b:cuda()), tol, 'tensordot ' .. tname)
    local u, v = rnd(3):type(tname), rnd(4):type(tname)
    same(torch.outer(u, v), torch.outer(u:cuda(), v:cuda()), tol, 'outer ' .. tname)
  end
  -- gradients flow on the GPU (the expand of a broadcast batch is summed back)
  local a = rnd(3, 4):cuda():requiresGrad()
  local b = rnd(2, 4, 5):cuda()
  torch.matmul(a, b):sum():backward()
  -- a CPU leaf with a's values: detached, or its backward would also reach a through the move
  local a2 = a:detach():double():clone():requiresGrad()
  torch.matmul(a2, b:double()):sum():backward()
  same(a2.grad, a.grad, 1e-4, 'matmul gradient on CUDA')
  -- products of tensors moved between devices (x:double() of a CUDA tensor is on the CPU, x:cuda()
  -- of a CPU one on the GPU): the gradient goes back to each leaf's device, and a second backward
  -- adds into the .grad there
  local c, d = a:detach():clone():requiresGrad(), a2:detach():clone():requiresGrad()
  for pass = 1, 2 do
    local ok, err = pcall(function()
      torch.matmul(c:double(), b:double()):sum():backward()
      torch.matmul(d:cuda(), b):sum():backward()
    end)
    tester:assert(ok, 'backward through device moves, pass ' .. pass .. ': ' .. tostring(err))
  end
  tester:asserteq(torch.type(c.grad), torch.type(c), 'the gradient of a CUDA leaf used on the CPU is on CUDA')
  tester:asserteq(torch.type(d.grad), torch.type(d), 'the gradient of a CPU leaf used on CUDA is on the CPU')
  if c.grad and d.grad then
    same(a2.grad * 2, c.grad, 1e-10, 'gradient through a move to the CPU, twice')
    same(a2.grad * 2, d.grad, 1e-4, 'gradient through a move to CUDA, twice')
  end
end

tester:add(tests)
tester:run()
