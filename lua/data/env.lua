-- The data module's table, shared by its files (lua/data/init.lua fills it).
return {}
