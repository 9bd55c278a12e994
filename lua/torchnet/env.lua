-- The torchnet package table (Torch7's torchnet.env): every torchnet file adds its classes here,
-- and `require 'torchnet'` returns it. Kept apart from init.lua so the files can require it
-- without requiring each other in a cycle.
local tnt = {}
return tnt
