-- torch.autograd.Function's ctx:markDirty (Note [Dirty inputs] in bindings/capi_autograd.cpp):
-- a forward that writes into an argument and returns it gives that tensor the function's
-- history, as PyTorch 1.13's ctx.mark_dirty; unmarked or impossible writes are refused.
-- Also ctx:setMaterializeGrads (zeros for outputs no gradient reached).
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

-- x:mul(2):add(1) in place; d/dx = 2.
local Affine_ = torch.autograd.Function('Affine_')
function Affine_.forward(ctx, x)
  x:mul(2):add(1)
  ctx:markDirty(x)
  return x
end
function Affine_.backward(ctx, g) return g * 2 end

-- buf:copy(w):mul(w) in place (buf = w^2), saving w; d/dw = 2w.
local SquareInto_ = torch.autograd.Function('SquareInto_')
function SquareInto_.forward(ctx, buf, w)
  buf:copy(w):cmul(w)
  ctx:saveForBackward(w)
  ctx:markDirty(buf)
  return buf
end
function SquareInto_.backward(ctx, g)
  local w = ctx:savedTensors()
  return nil, torch.cmul(g, w) * 2
end

local function raises(f, pattern)
  local ok, err = pcall(f)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if not ok then tester:assert(tostring(err):find(pattern, 1, true) ~= nil, tostring(err)) end
end

function tests.dirtyTensorTakesTheHistory()
  -- PyTorch 1.13: a = tensor([1., 2., 3.], requires_grad=True); y = a * 3; z = Affine_.apply(y)
  -- gives z is y, z.grad_fn Affine_Backward, (z * z).sum().backward() -> a.grad = [84, 156, 228].
  local a = D({ 1, 2, 3 }):requiresGrad()
  local y = a * 3
  local z = Affine_.apply(y)
  tester:assert(z == y, 'the dirty tensor itself is returned')
  tester:eq(z:totable(), { 7, 13, 19 })
  torch.sum(z * z):backward()
  tester:eq(a.grad:totable(), { 84, 156, 228 })
end

function tests.dirtyBufferGetsHistoryFromAnotherInput()
  -- PyTorch 1.13: buf = zeros(3); w = tensor([1., -2., 3.], requires_grad=True);
  -- out = SquareInto_.apply(buf, w); out is buf, out.requires_grad; out.sum().backward() -> w.grad = 2w.
  local buf, w = torch.zeros(3):double(), D({ 1, -2, 3 }):requiresGrad()
  local out = SquareInto_.apply(buf, w)
  tester:assert(out == buf, 'the buffer is returned')
  tester:assert(buf:requiresGrad(), 'the buffer takes the history')
  tester:eq(buf:totable(), { 1, 4, 9 })
  out:sum():backward()
  tester:eq(w.grad:totable(), { 2, -4, 6 })
end

function tests.gradcheckThroughAClone()
  tester:assert(torch.autograd.gradcheck(function(x) return Affine_.apply(x:clone()) end, { torch.randn(4):double():requiresGrad() }))
  tester:assert(torch.autograd.gradcheck(function(w) return SquareInto_.apply(torch.zeros(3):double(), w) end,
    { torch.randn(3):double():requiresGrad() }))
end

function tests.staleSavedValuesAreCaught()
  -- z = y * y saved y; the in-place function changes y, so z's backward must refuse (PyTorch:
  -- "one of the variables needed for gradient computation has been modified by an inplace operation").
  local a = D({ 1, 2 }):requiresGrad()
  local y = a * 1
  local z = y * y
  Affine_.apply(y)
  raises(function() z:sum():backward() end, 'modified by an in-place operation')
end

function tests.leafThatRequiresGradIsRefused()
  -- PyTorch 1.13: "a leaf Variable that requires grad is being used in an in-place operation."
  local a = D({ 1, 2 }):requiresGrad()
  raises(function() Affine_.apply(a) end, 'a leaf tensor that requires grad')
  -- without recording it is an ordinary in-place write
  local b = D({ 1, 2 }):requiresGrad()
  torch.noGrad(function() Affine_.apply(b) end)
  tester:eq(b:totable(), { 3, 5 })
end

-- PyTorch 1.13 rebases the viewed tensor's history (CopySlices); Tocha's engine cannot follow
-- writes through views (Note [In-place writes into buffers]), so it refuses rather than leave y stale.
function tests.viewIsRefused()
  local a = D({ 1, 2, 3, 4 }):requiresGrad()
  local y = a * 1
  raises(function() Affine_.apply(y:narrow(1, 2, 2)) end, 'a view')
end

function tests.unmarkedWriteIsRefused()
  local Sneaky = torch.autograd.Function('Sneaky')
  function Sneaky.forward(ctx, x) x:add(1) return x * 2 end
  function Sneaky.backward(ctx, g) return g * 2 end
  local a = D({ 1, 2 }):requiresGrad()
  raises(function() Sneaky.apply(a * 1) end, 'forward modified argument 1')
  -- a write into an argument that does not require grad (a scratch buffer) is allowed
  local Scratch = torch.autograd.Function('Scratch')
  function Scratch.forward(ctx, x, buf) buf:copy(x) return x * 2 end
  function Scratch.backward(ctx, g) return g * 2 end
  local buf = torch.zeros(2):double()
  local r = Scratch.apply(a, buf)
  tester:eq(buf:totable(), { 1, 2 })
  r:sum():backward()
  tester:eq(a.grad:totable(), { 2, 2 })
end

function tests.dirtyTensorMustBeReturned()
  local Lost = torch.autograd.Function('Lost')
  function Lost.forward(ctx, x) x:add(1) ctx:markDirty(x) return x * 2 end
  function Lost.backward(ctx, g) return g * 2 end
  raises(function() Lost.apply(D({ 1, 2 }):requiresGrad() * 1) end, 'was not returned')
  local BadArg = torch.autograd.Function('BadArg')
  function BadArg.forward(ctx, x) ctx:markDirty(3) return x end
  raises(function() BadArg.apply(D({ 1 }):requiresGrad()) end, '[markDirty] argument 1 is number')
end

function tests.graphIsFreedWithTheTensor()
  -- the node must not keep the dirty tensor alive through ctx (a cycle through Lua and C++)
  collectgarbage()
  collectgarbage()
  local live = torch._lib.C.tocha_autograd_callbacks_live
  local before = live()
  for _ = 1, 50 do
    local y = D({ 1, 2 }):requiresGrad() * 1
    Affine_.apply(y)
  end
  collectgarbage()
  collectgarbage()
  tester:asserteq(live(), before, 'the Lua nodes are released')
end

function tests.materializeGrads()
  -- PyTorch 1.13 materializes zeros by default: backward(ctx, g1, g2) gets g2 = zeros_like(b)
  -- when only a is used; Tocha passes nil unless ctx:setMaterializeGrads(true).
  local seen
  local function make(materialize)
    local F = torch.autograd.Function('Two')
    function F.forward(ctx, x)
      if materialize ~= nil then ctx:setMaterializeGrads(materialize) end
      return x * 2, torch.cat({ x, x }) * 3
    end
    function F.backward(ctx, g1, g2)
      seen = g2
      if g2 == nil then return g1 * 2 end
      return g1 * 2 + (g2:narrow(1, 1, 3) + g2:narrow(1, 4, 3)) * 3
    end
    return F
  end
  for _, m in ipairs({ true, false }) do
    local x = D({ 1, 2, 3 }):requiresGrad()
    local a = make(m).apply(x)
    a:sum():backward()
    tester:eq(x.grad:totable(), { 2, 2, 2 })
    if m then
      tester:eq(torch.type(seen), 'torch.DoubleTensor')
      tester:eq(seen:totable(), { 0, 0, 0, 0, 0, 0 }, 'zeros of the unused output\'s size')
    else
      tester:assert(seen == nil, 'nil without materializing')
    end
  end
  tester:assertErrorPattern(function() make('yes').apply(D({ 1 }):requiresGrad()) end, '%[setMaterializeGrads%] expected a boolean')
end

tester:add(tests)
tester:run()
