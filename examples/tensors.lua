-- A tour of Tocha's tensor API (Torch7's, with broadcasting and autograd on top).
-- Run it with:  tocha examples/tensors.lua
torch.manualSeed(7)

local function section(title) print('\n== ' .. title .. ' ' .. string.rep('=', 60 - #title)) end

section('Construction')
local a = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })     -- FloatTensor by default
print(a)
print('type', a:type(), 'size', table.concat(a:size():totable(), 'x'), 'elements', a:nElement())
print(torch.zeros(2, 2), torch.ones(2):long(), torch.eye(3))
print(torch.range(1, 5), torch.linspace(0, 1, 5))
local r = torch.rand(2, 3)                                -- uniform in [0, 1)
print('random values are in [0,1):', r:min() >= 0 and r:max() < 1)

section('Views share storage')
local row = a[2]                                          -- select: a view of row 2
row[1] = 40
print(a)
print(a:narrow(2, 2, 2), a:t(), a:view(3, 2))
print(a[{ {}, 2 }])                                       -- column 2
print(a:isContiguous(), a:t():isContiguous(), a:t():contiguous():isContiguous())

section('Math: Torch7 conventions')
local x = torch.Tensor({ 1, 4, 9 })
print(torch.sqrt(x))           -- torch.f(x) allocates a result
x:sqrt()                       -- x:f() works in place and returns x
print(x)
local res = torch.Tensor()
torch.add(res, x, 10)          -- an explicit result tensor avoids the allocation
print(res)
print(x + 1, 2 * x, x / 2, -x)
print(torch.cmul(x, x), torch.pow(x, 2), torch.clamp(x, 1.5, 2.5))
print(torch.gt(x, 1.5))        -- comparisons give ByteTensor masks
print(x[torch.gt(x, 1.5)])     -- mask indexing selects

section('Broadcasting (NumPy rules)')
local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
print(m + torch.Tensor({ 10, 20 }))
print(torch.cmul(m, torch.Tensor({ { 1 }, { -1 } })))

section('Reductions')
print('sum', m:sum(), 'mean', m:mean(), 'max', m:max(), 'std', m:std())
print(torch.sum(m, 1), torch.max(m, 2))       -- along a dim the dim is kept (size 1)
local values, indices = torch.sort(torch.Tensor({ 3, 1, 2 }))
print(values, indices)

section('Linear algebra')
local A = torch.Tensor({ { 2, 0 }, { 0, 4 } })
local v = torch.Tensor({ 1, 1 })
print(A * v, A * A, torch.dot(v, v))
print(torch.gesv(torch.Tensor({ { 2 }, { 8 } }), A))

section('Types')
print(m:double():type(), m:long():type(), m:byte():type())
print(torch.Tensor({ 1.5, 2.5 }):half())

section('Autograd')
local w = torch.Tensor({ 0.5, -1 }):requiresGrad()
local loss = (torch.cmul(w, w) * 3):sum()
loss:backward()
print('d loss / d w = 6 w:', w.grad)
print('loss was computed by', loss.gradFn)
