-- The shared `torch` table that every file of the torch module fills in (init.lua loads them).
return {}
