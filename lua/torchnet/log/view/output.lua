-- Where the json and status viewers of torchnet.log write their lines: a torch.File, a file name
-- (emptied first unless append) or the console. Shared so both keep torchnet's checks and errors.
local M = {}

-- Checks file/filename for viewer `name`, empties the file unless append, and returns write(line).
function M.writer(name, file, filename, append)
  if file and filename then error(string.format('[%s] file or filename expected (not both)', name), 3) end
  if filename then
    local f = io.open(filename, append and 'a' or 'w')
    if not f then error(string.format('[%s] could not open file <%s> for writing', name, filename), 3) end
    f:close()
  end
  return function(line)
    if file then
      file:seekEnd()
      file:writeString(line .. '\n')
    elseif filename then
      local f = assert(io.open(filename, 'a'))
      f:write(line, '\n')
      f:close()
    else
      print(line)
    end
  end
end

return M
