-- include: publish
-- KEYS: outbox, stream, seq hash (one Redis only: a game's outbox and its owner's stream are in
--       different slots of a cluster)   ARGV: game id, max_len, seq ttl_ms
-- Publishes the game's outbox as publish.lua does and empties it, in one atomic step; returns
-- how many events were appended.

local pending = redis.call('LRANGE', KEYS[1], 0, -1)
if #pending == 0 then return 0 end
local added = publish_events(KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], pending, 1)
redis.call('DEL', KEYS[1])
return added
