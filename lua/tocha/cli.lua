-- Command-line handling of the `tocha` executable (Torch7's `th`): returns a function that takes
-- argv and returns the exit status.
local usage = [==[
Usage: tocha [options] [script.lua [arguments]]

Options:
  -e "statement"   execute a statement (several allowed, run in order)
  -l name          require a library (several allowed), e.g. -l nn
  -i               open the REPL after running the script
  -q               no banner in the REPL
  -h, --help       show this help
  --version        show the version

With no script, tocha opens the REPL (type ? there for help). In a script, `arg` holds the
arguments (arg[0] is the script) and `torch` is loaded, as in Torch7's th.

Environment:
  TOCHA_HISTORY       the REPL's history file (default ~/.tocha_history; "" keeps none)
  TOCHA_HISTORY_SIZE  how many lines it keeps (default 1000)
  NO_COLOR            set and not empty: no colours in the REPL]==]

local traceback = require('tocha.traceback').traceback
_G.__tocha_traceback = traceback

local function run_chunk(chunk, ...)
  local ok, err = xpcall(chunk, traceback, ...)
  if not ok then
    -- what the script printed comes first: piped stdout is block-buffered, stderr is not
    io.stdout:flush()
    io.stderr:write(tostring(err), '\n')
    -- Note [Errors end distributed jobs]: the other ranks would otherwise wait in their next
    -- collective until its timeout; MPI_Abort ends the whole job at once.
    local dist = package.loaded['torch.distributed']
    if dist and dist.isInitialized() and dist.size() > 1 then
      io.stderr:flush()
      dist.abort(1)
    end
    return false
  end
  return true
end

return function(argv)
  local actions, script_index, interactive, quiet = {}, nil, false, false
  local i = 1
  while argv[i] do
    local a = argv[i]
    if a == '-e' or a == '-l' then
      if not argv[i + 1] then io.stderr:write('tocha: ', a, ' needs an argument\n', usage, '\n') return 1 end
      actions[#actions + 1] = { a, argv[i + 1] }
      i = i + 2
    elseif a:match('^%-[el].') then  -- attached forms, as in th: -lnn, -e'print(1)'
      actions[#actions + 1] = { a:sub(1, 2), a:sub(3) }
      i = i + 1
    elseif a == '-i' then interactive, i = true, i + 1
    elseif a == '-q' then quiet, i = true, i + 1
    elseif a == '-h' or a == '--help' then print(usage) return 0
    elseif a == '--version' then
      require 'torch'
      print('Tocha ' .. torch.version() .. ' (' .. jit.version .. ')')
      return 0
    elseif a == '--' then script_index = argv[i + 1] and i + 1 or nil break
    elseif a:sub(1, 1) == '-' and a ~= '-' then
      io.stderr:write('tocha: unknown option ', a, '\n', usage, '\n')
      return 1
    else script_index = i break end
  end

  -- `arg` as in lua.c / th: options at negative indices, the script at 0.
  local arg = {}
  local base = script_index or (#argv + 1)
  for k = 0, #argv do arg[k - base] = argv[k] end
  _G.arg = arg

  local ok, err = xpcall(function() require 'torch' end, traceback)
  if not ok then io.stderr:write(tostring(err), '\n') return 1 end

  for _, act in ipairs(actions) do
    if act[1] == '-l' then
      if not run_chunk(function() local m = require(act[2]) if _G[act[2]] == nil then _G[act[2]] = m end end) then return 1 end
    else
      local chunk, cerr = loadstring(act[2], '=(command line)')
      if not chunk then io.stderr:write(cerr, '\n') return 1 end
      if not run_chunk(chunk) then return 1 end
    end
  end

  if script_index then
    local path = argv[script_index]
    local chunk, cerr
    if path == '-' then chunk, cerr = loadstring(io.read('*a'), '=stdin')
    else chunk, cerr = loadfile(path) end
    if not chunk then io.stderr:write('tocha: ', tostring(cerr), '\n') return 1 end
    local args = {}
    for k = 1, #arg do args[k] = arg[k] end
    if not run_chunk(chunk, unpack(args)) then return 1 end
    if not interactive then return 0 end
  elseif #actions > 0 and not interactive then
    return 0
  end
  return require('tocha.repl').run({ quiet = quiet, traceback = traceback })
end
