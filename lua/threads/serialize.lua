-- threads.serialize: the default serialization of threads.Threads, which copies the tensors a
-- job sends and returns (Note [Copy or share], threads/codec.lua). Name it in
-- threads.serialization(); the pool does the work.
return { shared = false }
