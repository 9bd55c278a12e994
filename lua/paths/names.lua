-- Torch7's filename arithmetic (paths.c, POSIX branch) on plain Lua strings: concat, basename,
-- dirname, extname. No file system access except the current directory that concat starts from.
local names = {}

local SLASH = ('/'):byte()
local DOT = ('.'):byte()

-- Note [Backslashes]: Torch7 turns every '\' of the strings it builds into '/' (sbslash), on
-- POSIX too, while a string it returns unchanged keeps them (dirname('a') = '.', dirname('/') =
-- '/'). We do the same, so that paths.concat('a\\b') is 'CWD/a/b' as in Torch7.
local function slashed(s)
  return (s:gsub('\\', '/'))
end

-- One step of paths.concat: fname applied to the absolute-or-not path `from`. Components '.'
-- vanish, '..' drops the last component, and repeated or trailing slashes collapse.
local function concat_one(from, fname)
  local sb = fname:byte(1) == SLASH and '/' or from
  local i, n = 1, #fname
  while true do
    while i <= n and fname:byte(i) == SLASH do i = i + 1 end
    if i > n then
      sb = (sb .. '/'):match('^(.-)/*$')
      if sb == '' then sb = '/' end
      return slashed(sb)
    end
    local c1, c2, c3 = fname:byte(i, i + 2)
    if c1 == DOT and (c2 == SLASH or c2 == nil) then
      i = i + 1
    elseif c1 == DOT and c2 == DOT and (c3 == SLASH or c3 == nil) then
      i = i + 2
      sb = sb:gsub('/*$', ''):gsub('[^/]*$', '')
    else
      if sb == '' or sb:byte(-1) ~= SLASH then sb = sb .. '/' end
      local j = fname:find('/', i, true) or n + 1
      sb = sb .. fname:sub(i, j - 1)
      i = j
    end
  end
end

--- names.concat(cwd, parts): Torch7's paths.concat over the strings of parts, starting from cwd.
function names.concat(cwd, parts)
  local out = cwd
  for k = 1, #parts do out = concat_one(out, parts[k]) end
  return out
end

-- The 0-based index of the last slash followed by something other than a slash, or nil.
local function last_nontrivial_slash(s)
  local p
  for k = 1, #s - 1 do
    if s:byte(k) == SLASH and s:byte(k + 1) ~= SLASH then p = k end
  end
  return p
end

--- names.basename(path[, suffix]): the last component (trailing slashes ignored; '' for '/'),
--- without the extension suffix (with or without its dot) when it ends with it.
function names.basename(fname, suffix)
  local p = last_nontrivial_slash(fname)
  local start = p and p + 1 or 1
  local stop = fname:find('/', start, true)
  local base = fname:sub(start, stop and stop - 1 or #fname)
  if suffix and suffix ~= '' then
    if suffix:byte(1) == DOT then suffix = suffix:sub(2) end
    local sl = #suffix
    if sl > 0 and #base > sl and base:sub(-sl - 1) == '.' .. suffix then base = base:sub(1, #base - sl - 1) end
  end
  return slashed(base)
end

--- names.dirname(path): everything before the last component: '.' when there is no slash, the
--- path itself when it is only slashes, '/' for '/a'.
function names.dirname(fname)
  local p = last_nontrivial_slash(fname)
  if not p then
    if fname:byte(1) == SLASH then return fname end
    return '.'
  end
  -- Torch7 copies at least one character, so '/a' gives '/'; slashes before p are kept ('a//b'
  -- gives 'a/'), as in Torch7.
  return slashed(fname:sub(1, math.max(p - 1, 1)))
end

--- names.extname(path): what follows the last '.' of the whole string, or nothing (no value) when
--- there is no dot.
function names.extname(fname)
  -- Note [extname]: Torch7 looks for the last dot anywhere, directories included
  -- (extname('a.d/f') is 'd/f'); kept for compatibility.
  local k = fname:match('^.*()%.')
  if k then return fname:sub(k + 1) end
end

return names
