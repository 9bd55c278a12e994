-- Development-time hook (see check_onnx.py): wraps torch.onnx.export to keep each file with its
-- sample input and the model's evaluation output as text, in $OUTDIR (default /tmp/onnxrev/out).
require 'nn'
local dir = os.getenv('OUTDIR') or '/tmp/onnxrev/out'
os.execute(string.format("mkdir -p '%s'", dir))
local n = 0
local real = torch.onnx.export
local function wt(f, t)
  t = t:detach():double():contiguous()
  local dims = t:size():totable()
  f:write(#dims, ' ', table.concat(dims, ' '), '\n')
  local fl = t:view(-1)
  local parts = {}
  for i = 1, t:nElement() do parts[i] = string.format('%.17g', fl[i]) end
  f:write(table.concat(parts, ' '), '\n')
end
local function wlist(path, x)
  local f = io.open(path, 'w')
  local xs = torch.isTensor(x) and { x } or x
  f:write(#xs, '\n')
  for _, t in ipairs(xs) do wt(f, t) end
  f:close()
end
torch.onnx.export = function(model, x, path, opts)
  real(model, x, path, opts)
  n = n + 1
  local base = string.format('%s/%s_%03d', dir, os.getenv('TAG') or 'c', n)
  os.execute(string.format("cp '%s' '%s.onnx'", path, base))
  local mods = model:listModules()
  local modes = {}
  for i, m in ipairs(mods) do modes[i] = m.train end
  model:evaluate()
  local xs = torch.isTensor(x) and x or x
  local y = model:forward(xs)
  wlist(base .. '.in', x)
  wlist(base .. '.out', y)
  for i, m in ipairs(mods) do m.train = modes[i] end
  local info = debug.getinfo(2, 'Sl')
  local f = io.open(base .. '.where', 'w'); f:write(info.short_src .. ':' .. info.currentline .. '\n'); f:close()
end
