-- require 'cjson' (lua/cjson): lua-cjson 2.1's documented behaviour. The expected strings and
-- error messages come from lua-cjson's manual and its tests/test.lua (mpx/lua-cjson); UTF-8 bytes
-- of the \u escapes are the Unicode standard's encodings.
local cjson = require 'cjson'
local tester = torch.Tester()
local tests = torch.TestSuite()

local Inf = math.huge

-- Each check runs on a fresh instance, so settings never leak between tests.
local function fresh() return cjson.new() end

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  return not ok and e or nil
end

function tests.decodeSimpleValues()
  local j = fresh()
  tester:asserteq(j.decode('"test string"'), 'test string')
  tester:asserteq(j.decode('-5e3'), -5000)
  tester:asserteq(j.decode('null'), j.null)
  tester:asserteq(j.decode('true'), true)
  tester:asserteq(j.decode('false'), false)
  tester:eq(j.decode('{ "1": "one", "3": "three" }'), { ['1'] = 'one', ['3'] = 'three' })
  local a = j.decode('[ "one", null, "three" ]')
  tester:asserteq(#a, 3, 'null keeps the array dense')
  tester:asserteq(a[2], j.null)
  tester:eq(j.decode('[ true, { "foo": "bar" } ]'), { true, { foo = 'bar' } })  -- the manual's example
  tester:eq(j.decode(' \t\r\n[] '), {})
  tester:asserteq(next(j.decode('[]')), nil)
  tester:asserteq(next(j.decode('{}')), nil)
  tester:asserteq(j.decode(123), 123, 'a number argument is read as its text, as luaL_checklstring does')
end

function tests.nullIsOneUserdataShared()
  tester:asserteq(type(cjson.null), 'userdata')
  tester:assert(cjson.null ~= nil and cjson.null, 'null is a true value, not nil')
  tester:asserteq(cjson.new().null, cjson.null)
  tester:asserteq(require('cjson.safe').null, cjson.null)
  tester:asserteq(tostring(cjson.null), 'userdata: NULL')
  tester:asserteq(cjson.encode(cjson.null), 'null')
  tester:asserteq(cjson.encode({ a = cjson.null }), '{"a":null}')
  tester:asserteq(cjson.encode(nil), 'null')
end

function tests.decodeNumbersAsStrtod()
  local j = fresh()
  tester:eq(j.decode('[ 0.0, -1, 0.3e-3, 1023.2 ]'), { 0.0, -1, 0.0003, 1023.2 })
  tester:asserteq(j.decode('00123'), 123)
  tester:asserteq(j.decode('05.2'), 5.2)
  tester:asserteq(j.decode('0e10'), 0)
  tester:asserteq(j.decode('0x6'), 6)
  tester:eq(j.decode('[ +Inf, Inf, -Inf ]'), { Inf, Inf, -Inf })
  tester:eq(j.decode('[ +Infinity, Infinity, -Infinity ]'), { Inf, Inf, -Inf })
  local nans = j.decode('[ +NaN, NaN, -NaN ]')
  for i = 1, 3 do tester:assert(nans[i] ~= nans[i], 'NaN ' .. i) end
  tester:asserteq(1 / j.decode('-0'), -Inf, '-0 keeps its sign')
  tester:asserteq(j.decode('1e300'), 1e300)
  tester:asserteq(j.decode('1e999'), Inf, 'strtod overflows to inf')
  tester:asserteq(err_of(j.decode, 'Infrared'), 'Expected the end but found invalid token at character 4')
  tester:asserteq(err_of(j.decode, 'Noodle'), 'Expected value but found invalid token at character 1')
  tester:asserteq(err_of(j.decode, '[ -+12 ]'), 'Expected value but found invalid number at character 3')
  tester:asserteq(err_of(j.decode, '-v'), 'Expected value but found invalid number at character 1')
  tester:asserteq(err_of(j.decode, '[ 0.4eg10 ]'), 'Expected comma or array end but found invalid token at character 6')
end

function tests.decodeInvalidNumbersOff()
  local j = fresh()
  tester:asserteq(j.decode_invalid_numbers(), true)
  tester:asserteq(j.decode_invalid_numbers(false), false)
  tester:asserteq(err_of(j.decode, '0x6'), 'Expected value but found invalid number at character 1')
  tester:asserteq(err_of(j.decode, '[1, 007]'), 'Expected value but found invalid number at character 5')
  tester:asserteq(err_of(j.decode, '-Inf'), 'Expected value but found invalid number at character 1')
  tester:asserteq(err_of(j.decode, 'Infinity'), 'Expected value but found invalid token at character 1')
  tester:asserteq(err_of(j.decode, '[+1]'), 'Expected value but found invalid token at character 2')
  tester:asserteq(err_of(j.decode, 'NaN'), 'Expected value but found invalid token at character 1')
  tester:eq(j.decode('[0, -0.5, 10e-1]'), { 0, -0.5, 1 })
  tester:asserteq(cjson.decode('0x10'), 16, 'another instance keeps the default')
end

function tests.decodeErrors()
  local j = fresh()
  tester:asserteq(err_of(j.decode, '\0"\0"'), 'JSON parser does not support UTF-16 or UTF-32')
  tester:asserteq(err_of(j.decode, '"\0"\0'), 'JSON parser does not support UTF-16 or UTF-32')
  tester:asserteq(err_of(j.decode, '{ "unexpected eof": '), 'Expected value but found T_END at character 21')
  tester:asserteq(err_of(j.decode, '{ "extra data": true }, false'), 'Expected the end but found T_COMMA at character 23')
  tester:asserteq(err_of(j.decode, ' { "bad escape \\q code" } '),
    'Expected object key string but found invalid escape code at character 16')
  tester:asserteq(err_of(j.decode, ' { "bad unicode \\u0f6 escape" } '),
    'Expected object key string but found invalid unicode escape code at character 17')
  tester:asserteq(err_of(j.decode, ' [ "bad barewood", test ] '), 'Expected value but found invalid token at character 20')
  tester:asserteq(err_of(j.decode, '{"a" 1}'), 'Expected colon but found T_NUMBER at character 6')
  tester:asserteq(err_of(j.decode, '{1: 2}'), 'Expected object key string but found T_NUMBER at character 2')
  tester:asserteq(err_of(j.decode, '{"a": 1 "b"}'), 'Expected comma or object end but found T_STRING at character 9')
  tester:asserteq(err_of(j.decode, '[1,]'), 'Expected value but found T_ARR_END at character 4')
  tester:asserteq(err_of(j.decode, '"abc'), 'Expected value but found unexpected end of string at character 5')
  tester:asserteq(err_of(j.decode, '"a\0b"'), 'Expected value but found unexpected end of string at character 3')
  tester:asserteq(err_of(j.decode, ''), 'Expected value but found T_END at character 1')
  tester:asserteq(err_of(j.decode, '[true false]'), 'Expected comma or array end but found T_BOOLEAN at character 7')
  tester:asserteq(err_of(j.decode, string.rep('[', 100000) .. string.rep(']', 100000)),
    'Found too many nested data structures (1001) at character 1001')
  tester:asserteq(j.decode_max_depth(3), 3)
  tester:eq(j.decode('[[[1]]]'), { { { 1 } } })
  tester:asserteq(err_of(j.decode, '[{"a":[1]}]') ~= nil, false, 'objects count as one level each')
  tester:asserteq(err_of(j.decode, '[[[[1]]]]'), 'Found too many nested data structures (4) at character 4')
  tester:assertErrorPattern(function() j.decode() end, "bad argument #1 to 'decode' %(expected 1 argument%)")
  tester:assertErrorPattern(function() j.decode('1', '2') end, 'expected 1 argument')
  tester:assertErrorPattern(function() j.decode({}) end, "bad argument #1 to 'decode' %(string expected, got table%)")
end

function tests.decodeLeniencies()
  local j = fresh()
  tester:asserteq(j.decode('{"a": 1, "a": 2}').a, 2, 'the last duplicate key wins')
  tester:asserteq(j.decode('"a\tb\1c"'), 'a\tb\1c', 'raw control characters pass')
  tester:eq(j.decode('[1]\0 trailing bytes after a NUL'), { 1 }, 'NUL ends the text, as a C string')
  tester:asserteq(j.decode('"caf\195\169"'), 'caf\195\169', 'UTF-8 bytes pass untouched')
  tester:asserteq(j.decode('"\255"'), '\255', 'not validated, as the manual says')
  tester:asserteq(j.decode('[1,2]')[2], 2)
  tester:asserteq(getmetatable(j.decode('[1,2]')), nil, 'arrays are plain tables')
end

function tests.unicodeEscapes()
  local j = fresh()
  tester:asserteq(j.decode('"\\u0041\\u00e9\\u00E9"'), 'A\195\169\195\169')
  tester:asserteq(j.decode('"\\u0000"'), '\0')
  tester:asserteq(j.decode('"\\u007F\\u0080\\u07FF\\u0800\\uFFFF"'), '\127\194\128\223\191\224\160\128\239\191\191')
  tester:asserteq(j.decode('"\\uD800\\uDC00"'), '\240\144\128\128', 'U+10000')
  tester:asserteq(j.decode('"\\uDBFF\\uDFFF"'), '\244\143\191\191', 'U+10FFFF')
  tester:asserteq(j.decode('"\\ud83d\\ude00"'), '\240\159\152\128', 'U+1F600')
  tester:asserteq(j.decode('"\\uF800"'), '\239\160\128', 'high bits are not taken for a surrogate')
  tester:asserteq(j.decode('"\\/\\b\\f\\n\\r\\t\\"\\\\"'), '/\b\f\n\r\t"\\')
  local bad = 'Expected value but found invalid unicode escape code at character 2'
  tester:asserteq(err_of(j.decode, '"\\uDB00\\uD800"'), bad, 'inverted pair')
  tester:asserteq(err_of(j.decode, '"\\uDB00\\uDB00"'), bad, 'two high surrogates')
  tester:asserteq(err_of(j.decode, '"\\uDB00\\"'), bad, 'high surrogate and another escape')
  tester:asserteq(err_of(j.decode, '"\\uDB00\\uD"'), bad, 'truncated second escape')
  tester:asserteq(err_of(j.decode, '"\\uDC00"'), bad, 'lone low surrogate')
  tester:asserteq(err_of(j.decode, '"\\uDB00x"'), bad, 'lone high surrogate')
end

function tests.encodeSimpleValues()
  local j = fresh()
  tester:asserteq(j.encode(true), 'true')
  tester:asserteq(j.encode(false), 'false')
  tester:asserteq(j.encode({}), '{}', 'an empty table is an object')
  tester:asserteq(j.encode(10), '10')
  tester:asserteq(j.encode('hello'), '"hello"')
  tester:asserteq(j.encode({ true, { foo = 'bar' } }), '[true,{"foo":"bar"}]')  -- the manual's example
  tester:asserteq(j.encode({ { {} } }), '[[{}]]')
  tester:asserteq(j.encode({ ['2'] = 'numeric string key test' }), '{"2":"numeric string key test"}')
  tester:asserteq(j.encode({ [1.5] = 'x' }), '{"1.5":"x"}', 'a non-integer key makes an object')
  tester:asserteq(j.encode({ [0] = 'x' }), '{"0":"x"}')
  tester:asserteq(j.encode({ [-1] = 'x' }), '{"-1":"x"}')
  tester:asserteq(j.encode(setmetatable({ 1 }, { __index = function() return 'meta' end, __len = function() return 9 end })),
    '[1]', 'metatables are ignored')
end

function tests.encodeNumbers()
  local j = fresh()
  tester:asserteq(j.encode(1e300), '1e+300')
  tester:asserteq(j.encode(-0), '-0')
  tester:asserteq(j.encode(0.1), '0.1')
  tester:asserteq(j.encode(1 / 3), '0.33333333333333', '14 significant digits')
  tester:asserteq(j.encode(2 ^ 53), '9.007199254741e+15')
  tester:asserteq(j.encode(123456789012), '123456789012')
  local nan_inf = 'Cannot serialise number: must not be NaN or Infinity'
  tester:asserteq(err_of(j.encode, 0 / 0), nan_inf)
  tester:asserteq(err_of(j.encode, Inf), nan_inf)
  tester:asserteq(err_of(j.encode, { -Inf }), nan_inf)
  tester:asserteq(j.encode_invalid_numbers(), false)
  tester:asserteq(j.encode_invalid_numbers(true), true)
  tester:asserteq(j.encode({ 0 / 0, Inf, -Inf }), '[NaN,Infinity,-Infinity]')
  tester:asserteq(j.encode_invalid_numbers('null'), 'null')
  tester:asserteq(j.encode({ 0 / 0, Inf, 1 }), '[null,null,1]')
  tester:asserteq(j.encode_invalid_numbers('off'), false)
  tester:asserteq(j.encode_invalid_numbers('on'), true)
  tester:asserteq(j.encode_number_precision(), 14)
  tester:asserteq(j.encode_number_precision(3), 3)
  tester:asserteq(j.encode(math.pi), '3.14')
  tester:asserteq(j.encode({ [math.pi] = 1 }), '{"3.14":1}', 'number keys use the same format')
  tester:asserteq(cjson.encode(math.pi), '3.1415926535898', 'other instances keep theirs')
end

function tests.encodeStringsEscapes()
  local j = fresh()
  tester:asserteq(j.encode('a/b'), '"a\\/b"', "'/' is escaped as lua-cjson does")
  tester:asserteq(j.encode('"\\\b\f\n\r\t'), '"\\"\\\\\\b\\f\\n\\r\\t"')
  tester:asserteq(j.encode('\0\1\31\127'), '"\\u0000\\u0001\\u001f\\u007f"')
  tester:asserteq(j.encode('caf\195\169 \240\159\152\128'), '"caf\195\169 \240\159\152\128"', 'UTF-8 passes')
  -- every byte survives a round trip (lua-cjson's "8bit clean" test)
  local bytes = {}
  for i = 0, 255 do bytes[i + 1] = string.char(i) end
  local all = table.concat(bytes)
  local text = j.encode(all)
  tester:asserteq(j.decode(text), all)
  tester:assert(not text:find('[%z\1-\31\127]'), 'no raw control byte in the output')
end

function tests.encodeSparseArrays()
  local j = fresh()
  tester:asserteq(j.encode({ [3] = 'data' }), '[null,null,"data"]')  -- the manual's example
  tester:asserteq(j.encode({ 1, nil, 3 }), '[1,null,3]')
  tester:asserteq(err_of(j.encode, { [1000] = 'excessively sparse' }), 'Cannot serialise table: excessively sparse array')
  tester:asserteq(j.encode({ [1] = 1, [10] = 10 }), '[1,null,null,null,null,null,null,null,null,10]',
    'at most `safe` (10) entries is never excessive')
  local c, r, s = j.encode_sparse_array()
  tester:eq({ c, r, s }, { false, 2, 10 })
  c, r, s = j.encode_sparse_array(true)
  tester:eq({ c, r, s }, { true, 2, 10 })
  tester:asserteq(j.encode({ [1000] = 'excessively sparse' }), '{"1000":"excessively sparse"}')
  c, r, s = j.encode_sparse_array(true, 2, 3)  -- lua-cjson's test settings
  tester:eq({ c, r, s }, { true, 2, 3 })
  tester:asserteq(j.encode({ [3] = 'sparse test' }), '[null,null,"sparse test"]')
  tester:asserteq(j.encode({ [1] = 'one', [4] = 'sparse test' }), '["one",null,null,"sparse test"]')
  tester:eq(j.decode(j.encode({ [1] = 'one', [5] = 'sparse test' })), { ['1'] = 'one', ['5'] = 'sparse test' },
    'excessively sparse: an object')
  j.encode_sparse_array(false, 0)
  tester:asserteq(#j.encode({ [30] = 1 }), 1 + 29 * 5 + 1 + 1, 'ratio 0: never excessive')
end

function tests.encodeDepthAndCycles()
  local j = fresh()
  tester:asserteq(j.encode_max_depth(5), 5)
  local nested5 = { { { { { 'nested' } } } } }
  tester:asserteq(j.encode(nested5), '[[[[["nested"]]]]]')
  tester:asserteq(err_of(j.encode, { nested5 }), 'Cannot serialise, excessive nesting (6)')
  local cycle = {}
  cycle[1] = { cycle }
  tester:asserteq(err_of(j.encode, cycle), 'Cannot serialise, excessive nesting (6)')
  tester:asserteq(err_of(cjson.encode, cycle), 'Cannot serialise, excessive nesting (1001)', 'default depth 1000')
end

function tests.encodeErrors()
  local j = fresh()
  tester:asserteq(err_of(j.encode, { [false] = 'wrong' }), 'Cannot serialise boolean: table key must be a number or string')
  tester:asserteq(err_of(j.encode, function() end), 'Cannot serialise function: type not supported')
  tester:asserteq(err_of(j.encode, { f = coroutine.create(function() end) }), 'Cannot serialise thread: type not supported')
  tester:asserteq(err_of(j.encode, { t = torch.ones(2) }), 'Cannot serialise cdata: type not supported',
    'a tensor is not JSON: convert it with :totable()')
  tester:asserteq(j.encode({ t = torch.Tensor({ 1, 2 }):totable() }), '{"t":[1,2]}')
  tester:asserteq(err_of(j.encode, { [Inf] = 1 }), 'Cannot serialise number: must not be NaN or Infinity')
  tester:assertErrorPattern(function() j.encode() end, "bad argument #1 to 'encode' %(expected 1 argument%)")
  tester:assertErrorPattern(function() j.encode(1, 2) end, 'expected 1 argument')
end

function tests.roundTrips()
  local j = fresh()
  local v = {
    name = 'caf\195\169 \226\130\172 \240\159\152\128 "quoted" back\\slash /path\n',
    list = { 1, -2.5, 1e-300, 1e300, 123456789, true, false, { a = { b = { c = {} } } } },
    nested = { { 1, { 2, { 3 } } }, { x = 'y' } },
    empty = {},
    ['key with spaces'] = 0.5,
  }
  tester:eq(j.decode(j.encode(v)), v)
  local text = '{"a":[1,2,{"b":null,"c":[true,false]}],"d":"\\u00e9\\ud83d\\ude00","e":-0.25}'
  local d = j.decode(text)
  tester:eq(j.decode(j.encode(d)), d)
  tester:asserteq(d.a[3].b, j.null)
  tester:asserteq(d.d, '\195\169\240\159\152\128')
end

function tests.configurationArguments()
  local j = fresh()
  tester:asserteq(j.encode_keep_buffer(), true)
  tester:asserteq(j.encode_keep_buffer(false), false)
  tester:asserteq(j.encode('x'), '"x"', 'no buffer is kept either way')
  tester:asserteq(j.decode_max_depth(), 1000)
  tester:asserteq(j.encode_max_depth('20'), 20, 'a numeric string is an integer, as luaL_checkinteger takes it')
  tester:assertErrorPattern(function() j.encode_number_precision(15) end,
    "bad argument #1 to 'encode_number_precision' %(expected integer between 1 and 14%)")
  tester:assertErrorPattern(function() j.encode_max_depth(0) end, 'expected integer between 1 and 2147483647')
  tester:assertErrorPattern(function() j.encode_max_depth('deep') end, 'number expected, got string')
  tester:assertErrorPattern(function() j.encode_invalid_numbers('maybe') end, "invalid option 'maybe'")
  tester:assertErrorPattern(function() j.decode_invalid_numbers({}) end, 'string expected, got table')
  tester:assertErrorPattern(function() j.encode_max_depth(1, 2) end,
    "bad argument #2 to 'encode_max_depth' %(found too many arguments%)")
  tester:assertErrorPattern(function() j.encode_sparse_array(true, -1) end,
    "bad argument #2 to 'encode_sparse_array' %(expected integer between 0 and")
  tester:asserteq(j.encode_max_depth(), 20, 'a failed call changes nothing')
  tester:asserteq(cjson._NAME, 'cjson')
  tester:asserteq(type(cjson._VERSION), 'string')
end

function tests.safeModule()
  local safe = require 'cjson.safe'
  local v, e = safe.decode('[1,')
  tester:asserteq(v, nil)
  tester:asserteq(e, 'Expected value but found T_END at character 4')
  v, e = safe.encode(function() end)
  tester:asserteq(v, nil)
  tester:asserteq(e, 'Cannot serialise function: type not supported')
  tester:eq(safe.decode('{"a":[1]}'), { a = { 1 } })
  tester:asserteq(safe.encode({ 1 }), '[1]')
  tester:assertErrorPattern(function() safe.decode() end, 'expected 1 argument', 'argument counts still raise')
  local s2 = safe.new()
  tester:asserteq(select(2, s2.decode('x')), 'Expected value but found invalid token at character 1', 'new() is safe too')
  tester:assertErrorPattern(function() cjson.decode('x') end, 'invalid token', 'while cjson raises')
end

function tests.instancesAreIndependent()
  local a, b = cjson.new(), cjson.new()
  a.encode_sparse_array(true)
  tester:asserteq(a.encode({ [1000] = 1 }), '{"1000":1}')
  tester:assertErrorPattern(function() b.encode({ [1000] = 1 }) end, 'excessively sparse')
  tester:asserteq(type(a.new), 'function')
end

-- require 'json': the Torch7 json package's API (clementfarabet/lua---json) on lua/cjson
function tests.jsonPackage()
  local json = require 'json'
  tester:asserteq(_G.json, json, 'sets its global, as the Torch7 package did')
  tester:asserteq(json.encode({ 1, 2, { a = 'b' } }), '[1,2,{"a":"b"}]')
  tester:asserteq(json.encode({ [1] = 1, [100] = 2 }):sub(1, 12), '[1,null,null', 'holes are nulls at any sparseness')
  tester:asserteq(json.decode('[1,null,3]')[2], json.null)
  tester:asserteq(json.null, cjson.null)
  local p = os.tmpname()
  json.save(p, { name = 'x', list = { 1.5, true } })
  tester:eq(json.load(p), { name = 'x', list = { 1.5, true } })
  local f = io.open(p, 'w')
  f:write('[1,')
  f:close()
  tester:assertErrorPattern(function() json.load(p) end, '%[json.load%] .* is not valid JSON: Expected value but found T_END')
  os.remove(p)
  tester:assertErrorPattern(function() json.load('/nonexistent/dir/x.json') end, '%[json.load%] cannot open /nonexistent/dir/x.json')
  tester:assertErrorPattern(function() json.load(3) end, '%[json.load%] expected a path %(string%), got number')
  tester:assertErrorPattern(function() json.decode({}) end, '%[json.decode%] expected a string of JSON text, got table')
  tester:asserteq(cjson.encode_sparse_array(), false, "json's settings are its own instance's")
end

tester:add(tests)
tester:run()
