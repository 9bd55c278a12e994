-- require 'cjson': lua-cjson 2.1's API (mpx/lua-cjson) for Torch7 programs (neuraltalk2, densecap,
-- torch-rnn read and write their JSON with it): cjson.encode, cjson.decode, cjson.null, the
-- configuration functions (encode_sparse_array, encode_number_precision, ...) and cjson.new().
-- The module table is built by lua/cjson/instance.lua; the encoder is lua/cjson/encode.lua and the
-- decoder (lua/cjson/decode.lua) runs the JSON parser shared with the safetensors reader.
return require('cjson.instance')(false)
