-- A Lua boolean beside a tensor in arithmetic (Note [A boolean beside a BoolTensor] in
-- lua/torch/ops.lua): PyTorch 1.13's promotion, where bool op bool stays bool.
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.booleanBesideABoolTensorStaysBool()
  -- PyTorch 1.13: b = tensor([True, False]); b + True, True + b -> tensor([True, True]);
  -- b * False -> tensor([False, False]); b + tensor(True) -> tensor([True, True]).
  local b = torch.BoolTensor({ 1, 0 })
  for _, case in ipairs({ { b + true, { true, true } }, { true + b, { true, true } },
                          { b * false, { false, false } }, { torch.add(b, false), { true, false } },
                          { torch.mul(b, true), { true, false } } }) do
    tester:asserteq(torch.type(case[1]), 'torch.BoolTensor')
    tester:eq(case[1]:totable(), case[2])
  end
  tester:eq(b:totable(), { true, false }, 'the operand is unchanged')
  local c = b:clone()
  c:add(true)
  tester:eq(c:totable(), { true, true }, 'in place')
end

function tests.booleanBesideOtherTensorsIsOne()
  -- PyTorch 1.13: tensor([1, 2]) + True -> tensor([2, 3]) (int64); int32 stays int32;
  -- tensor([1.5]) + True -> tensor([2.5]).
  local l = torch.LongTensor({ 1, 2 }) + true
  tester:asserteq(torch.type(l), 'torch.LongTensor')
  tester:eq(l:totable(), { 2, 3 })
  tester:asserteq(torch.type(torch.IntTensor({ 1, 2 }) + true), 'torch.IntTensor')
  tester:eq((torch.DoubleTensor({ 1.5 }) + true):totable(), { 2.5 })
  tester:eq((torch.DoubleTensor({ 1.5 }) * false):totable(), { 0 })
end

tester:add(tests):run()
