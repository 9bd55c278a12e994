-- A minimal line-reading REPL (the full one — readline, completion, help — is issue 8's):
-- evaluates expressions and statements, prints results, continues incomplete input.
local M = {}

local function show(...)
  local n = select('#', ...)
  for i = 1, n do
    local v = select(i, ...)
    io.write(tostring(v), i < n and '\t' or '\n')
  end
end

function M.run(opts)
  opts = opts or {}
  if not opts.quiet then
    print('Tocha ' .. torch.version() .. ' — Lua tensors on ' .. jit.version .. '. Ctrl-D exits.')
  end
  local buffer = nil
  while true do
    io.write(buffer and '..> ' or 'tocha> ')
    io.flush()
    local line = io.read('*l')
    if not line then io.write('\n') return 0 end
    local src = buffer and (buffer .. '\n' .. line) or line
    local quiet = src:match(';%s*$') ~= nil
    local chunk, err = loadstring('return ' .. src, '=stdin')
    if not chunk then chunk, err = loadstring(src, '=stdin') end
    if not chunk and err and err:find("<eof>") then
      buffer = src
    else
      buffer = nil
      if not chunk then
        io.stderr:write(err, '\n')
      else
        local res = { xpcall(chunk, opts.traceback or debug.traceback) }
        if not res[1] then
          io.stderr:write(tostring(res[2]), '\n')
        elseif #res > 1 and not quiet then
          show(unpack(res, 2, table.maxn(res)))
        end
      end
    end
  end
end

return M
