-- Whole-file reads and writes for the suites that check files byte by byte: F.read(path) and
-- F.write(path, s), both binary, failing with the path when the file cannot be opened.
-- Load with dofile(<this test's directory> .. '/helpers/files.lua').
local F = {}
function F.read(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end
function F.write(path, s)
  local f = assert(io.open(path, 'wb'))
  f:write(s)
  f:close()
end
return F
