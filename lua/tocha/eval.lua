-- Compiling and running what is typed at the REPL: an expression first (its values are the
-- results), else a statement; input that is only incomplete asks for another line.
local M = {}

-- Incomplete input ends with "near '<eof>'" (lua.c's test); "'<eof>' expected near 'end'" is an error.
local function incomplete(err) return err ~= nil and err:sub(-7) == "'<eof>'" end

-- Compiles `src`. Returns the chunk and its kind ('expression': it returns its results packed
-- as { n = ..., ... }; 'statement'), or nil, 'incomplete', or nil and the syntax error.
function M.compile(src, chunkname)
  chunkname = chunkname or '=stdin'
  local body = src:gsub(';%s*$', '')
  -- Wrapped in a call so that `error("e")` is not a tail call (LuaJIT would drop the chunk's
  -- frame, and the error its position) and so that trailing nils are counted.
  local expr = loadstring('return (function(...) return { n = select("#", ...), ... } end)('
    .. body .. '\n)', chunkname)
  if expr then return expr, 'expression' end
  local stat, err = loadstring(src, chunkname)
  if stat then return stat, 'statement' end
  local _, expr_err = loadstring('return ' .. src, chunkname)  -- `1 +` only ends early as an expression
  if incomplete(err) or incomplete(expr_err) then return nil, 'incomplete' end
  return nil, err
end

-- Whether `src` ends with `;`: its results are not shown.
function M.silent(src) return src:match(';%s*$') ~= nil end

local function pack(...) return { n = select('#', ...), ... } end

-- Runs a compiled chunk under the message handler. Returns true and the packed results, or
-- false and the error report. The chunk is called by xpcall itself, so that tracebacks show it
-- as the main chunk (a Lua caller would name it after its variable).
function M.run(chunk, kind, handler)
  local res = pack(xpcall(chunk, handler))
  if not res[1] then return false, res[2] end
  if kind == 'expression' then return true, res[2] end
  return true, pack(unpack(res, 2, res.n))
end

return M
