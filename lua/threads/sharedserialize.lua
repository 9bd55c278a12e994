-- threads.sharedserialize: the serialization of threads.Threads that shares tensors between the
-- threads instead of copying them (Note [Copy or share], threads/codec.lua). Name it in
-- threads.serialization('threads.sharedserialize'); the pool does the work.
return { shared = true }
