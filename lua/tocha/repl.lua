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

local function pack(...) return { n = select('#', ...), ... } end
-- Incomplete input ends with "near '<eof>'" (lua.c's test); "'<eof>' expected near 'end'" is an error.
local function incomplete(err) return err ~= nil and err:sub(-7) == "'<eof>'" end

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
    -- An expression first (its values are printed), then a statement.
    local chunk, expr_err = loadstring('return ' .. src, '=stdin')
    local err, packed = nil, false
    if chunk then
      -- Run it wrapped so that `error("e")` is not a tail call (LuaJIT would drop the chunk's
      -- frame, and the error its position) and so that nil results are counted.
      local wrapped = loadstring('return (function(...) return { n = select("#", ...), ... } end)('
        .. src:gsub(';%s*$', '') .. '\n)', '=stdin')
      if wrapped then chunk, packed = wrapped, true end
    else
      chunk, err = loadstring(src, '=stdin')
    end
    if not chunk and (incomplete(err) or incomplete(expr_err)) then
      buffer = src
    else
      buffer = nil
      if not chunk then
        io.stderr:write(err, '\n')
      else
        local res = pack(xpcall(chunk, opts.traceback or debug.traceback))
        if not res[1] then
          io.stderr:write(tostring(res[2]), '\n')
        else
          -- The expression wrapper returns its values packed; a statement's `return` returns them.
          res = packed and res[2] or pack(unpack(res, 2, res.n))
          if res.n > 0 and not quiet then show(unpack(res, 1, res.n)) end
        end
      end
    end
  end
end

return M
