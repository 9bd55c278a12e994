-- torch.doc: the documentation of functions, kept next to their definitions. A function's doc is
-- the `---` comment right above its definition in its Lua file; functions installed in loops
-- register theirs with torch.doc.register where they are defined (the op table's are in doc_ops.lua).
--
--   --- torch.mm([res,] a, b): matrix product of a (n x m) and b (m x p), an n x p tensor.
--   --- Example: torch.mm(torch.ones(2, 3), torch.ones(3, 4))
--
-- The first line may start with the signature ("name(args):"); lines from "Example:" on are the example.
local torch = require 'torch.env'

local doc = {}
torch.doc = doc

local by_name = {}                            -- qualified name -> entry
local by_fn = setmetatable({}, { __mode = 'k' })  -- function -> entry

-- The value at a dotted name ("torch.mm", "nn.Linear.forward"), read with rawget only.
function doc.resolve(name)
  local v = _G
  for part in name:gmatch('[^%.:]+') do
    if type(v) ~= 'table' then return nil end
    v = rawget(v, part)
  end
  return v
end

--- torch.doc.register(target, signature, text[, example]): documents a function, given as the
--- function itself or as its qualified name ("torch.exp"), for help() and `?` in the REPL.
--- Example: torch.doc.register('torch.exp', 'torch.exp([res,] x)', 'e to the power x, elementwise.', 'torch.exp(torch.zeros(2))')
function doc.register(target, signature, text, example)
  -- A non-string here broke help() for the function later, far from the mistake.
  for _, p in ipairs({ { 'signature', signature }, { 'text', text }, { 'example', example } }) do
    if p[2] ~= nil and type(p[2]) ~= 'string' then
      error('torch.doc.register: ' .. p[1] .. ' must be a string or nil, got ' .. type(p[2]), 2)
    end
  end
  local entry = { signature = signature, text = text, example = example }
  if type(target) == 'string' then by_name[target] = entry
  elseif type(target) == 'function' then by_fn[target] = entry
  else error('torch.doc.register: expected a function or a name, got ' .. type(target), 2) end
  return entry
end

-- Lines of source files, read once.
local file_lines = {}
local function lines_of(path)
  if file_lines[path] == nil then
    local f = io.open(path)
    local t = false
    if f then
      t = {}
      for line in f:lines() do t[#t + 1] = line end
      f:close()
    end
    file_lines[path] = t
  end
  return file_lines[path] or nil
end

-- Splits doc comment lines into signature, text and example.
function doc.parse(lines)
  local text, example = {}, nil
  for _, l in ipairs(lines) do
    local ex = l:match('^%s*Example:%s*(.*)$')
    if ex then example = { ex }
    elseif example then example[#example + 1] = l
    else text[#text + 1] = l end
  end
  local s = table.concat(text, ' '):gsub('%s+', ' '):gsub('^ ', '')
  local sig, rest = s:match('^([%w_%.:]+%b())%s*:%s*(.*)$')
  return { signature = sig, text = sig and rest or s, example = example and table.concat(example, '\n') or nil }
end

-- The `---` comment right above the definition of Lua function f, parsed, or nil.
function doc.from_source(f)
  local info = debug.getinfo(f, 'S')
  if not info or info.what ~= 'Lua' or info.source:sub(1, 1) ~= '@' then return nil end
  local lines = lines_of(info.source:sub(2))
  if not lines then return nil end
  local comment = {}
  for i = info.linedefined - 1, 1, -1 do
    local c = lines[i] and lines[i]:match('^%s*%-%-%-%s?(.*)$')
    if not c then break end
    table.insert(comment, 1, c)
  end
  if #comment == 0 then return nil end
  local entry = doc.parse(comment)
  entry.source = info.short_src .. ':' .. info.linedefined
  return entry
end

-- All `---` comment blocks of a file: { first = line number, lines = {...} }, read once.
local file_blocks = {}
local function blocks_of(path)
  if file_blocks[path] == nil then
    local blocks, cur = {}, nil
    for i, line in ipairs(lines_of(path) or {}) do
      local c = line:match('^%s*%-%-%-%s?(.*)$')
      if c then
        if not cur then cur = { first = i, lines = {} } blocks[#blocks + 1] = cur end
        cur.lines[#cur.lines + 1] = c
      else
        cur = nil
      end
    end
    file_blocks[path] = blocks
  end
  return file_blocks[path]
end

-- A `---` block in f's file that names it ("torch.zeros(", "x:indexCopy(", "torch.randn:"): the
-- doc of a function installed by a loop, written above the loop. Only the names a block starts
-- a sentence with are matched, so that passing mentions do not count.
function doc.from_named_block(f, name)
  local info = debug.getinfo(f, 'S')
  if not name or not info or info.what ~= 'Lua' or info.source:sub(1, 1) ~= '@' then return nil end
  local short = name:match('([%w_]+)$')
  -- a name typed as an expression (`?(f)`) names no block
  if not short then return nil end
  local patterns = { name, 'x:' .. short }
  for _, block in ipairs(blocks_of(info.source:sub(2))) do
    local text = table.concat(block.lines, ' ')
    for _, pat in ipairs(patterns) do
      local escaped = pat:gsub('%p', '%%%0')
      local at = text:find('^' .. escaped .. '[%(:]') or text:find('[,;.]%s+' .. escaped .. '[%(:]')
        or text:find('%s+and%s+' .. escaped .. '[%(:]')
      if at then
        local entry = doc.parse(block.lines)
        if not text:find('^' .. escaped .. '[%(:]') then  -- the block is about another function first
          entry.signature = nil
          entry.text = table.concat(block.lines, ' '):gsub('%s+', ' ')
        end
        entry.source = info.short_src .. ':' .. block.first
        return entry
      end
    end
  end
  return nil
end

-- Where f is defined ("lua/torch/linalg.lua:42"), or nil for C functions.
function doc.where(f)
  local info = type(f) == 'function' and debug.getinfo(f, 'S')
  if not info or info.what ~= 'Lua' then return nil end
  return info.short_src .. ':' .. info.linedefined
end

-- "name(a, b, ...)" from f's parameter names, when nothing better is known.
function doc.guess_signature(f, name)
  local params = {}
  local info = debug.getinfo(f, 'u')
  for i = 1, info and info.nparams or 0 do params[i] = debug.getlocal(f, i) or ('a' .. i) end
  if info and info.isvararg then params[#params + 1] = '...' end
  return (name or '?') .. '(' .. table.concat(params, ', ') .. ')'
end

local loaded_ops = false
-- The doc of `value` (known by `name` if given): registered, else from its source comment.
-- Returns an entry { signature, text, example, source } or nil.
function doc.get(value, name)
  if not loaded_ops then
    loaded_ops = true
    pcall(require, 'torch.doc_ops')
  end
  if type(value) == 'string' and name == nil then name, value = value, doc.resolve(value) end
  local entry = name and by_name[name] or (value ~= nil and by_fn[value])
  if not entry and value ~= nil then
    for n, e in pairs(by_name) do
      if rawequal(doc.resolve(n), value) then entry = e break end
    end
  end
  if not entry and type(value) == 'function' then
    entry = doc.from_source(value) or doc.from_named_block(value, name)
  end
  if entry and not entry.source and type(value) == 'function' then
    entry = { signature = entry.signature, text = entry.text, example = entry.example, source = doc.where(value) }
  end
  return entry or nil
end

return doc
