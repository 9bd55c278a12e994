-- require 'cjson.safe': lua-cjson's cjson.safe, whose encode and decode return nil and the error
-- message instead of raising (argument-count errors still raise, as in lua-cjson). Its new() makes
-- safe instances too.
return require('cjson.instance')(true)
