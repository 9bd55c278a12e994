-- Checks shared by the suites of PyTorch-named modules (test_nn_pytorch_more_*.lua): the reference
-- script's inputs and a module's output and gradInput against PyTorch 1.13's y and g, through
-- Torch7's forward/backward and through loss:backward(), bound to a tester.
-- Use: local sins, coss, close, check = dofile(dir .. '/helpers/module_checks.lua')(tester)
return function(tester)
  local function sins(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():sin():view(...) end
  local function coss(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():cos():view(...) end
  local function close(got, want, tol, msg)
    tester:assertTensorEq(got:contiguous():view(-1):double(), torch.DoubleTensor(want), tol or 1e-8, msg)
  end

  -- Torch7's forward/backward and autograd's forward/backward against PyTorch's y and g.
  local function check(m, x, ref, msg, tol)
    m = m:double()
    tol = tol or 1e-8
    local y = m:forward(x)
    close(y, ref.y, tol, msg .. ' output')
    local go = coss(unpack(y:size():totable()))
    close(m:backward(x, go), ref.g, tol, msg .. ' Torch7 gradInput')
    local xr = x:clone():requiresGrad()
    torch.cmul(m(xr), go):sum():backward()
    close(xr.grad, ref.g, tol, msg .. ' autograd gradInput')
  end
  return sins, coss, close, check
end
