-- KEYS: all, terms hash, term set...   ARGV: game id, created_ms, term prefix, term... (as KEYS[3..])
-- The game's recorded terms become exactly the given ones: it leaves the sets of the others.

local game, ms, tprefix = ARGV[1], ARGV[2], ARGV[3]
local wanted = {}
for i = 4, #ARGV do wanted[ARGV[i]] = true end
local recorded = redis.call('HGET', KEYS[2], game)
if recorded then
  for term in string.gmatch(recorded, '[^\n]+') do
    if not wanted[term] then redis.call('ZREM', tprefix .. term, game) end
  end
end
redis.call('ZADD', KEYS[1], ms, game)
for i = 3, #KEYS do redis.call('ZADD', KEYS[i], ms, game) end
if #ARGV > 3 then
  redis.call('HSET', KEYS[2], game, table.concat(ARGV, '\n', 4, #ARGV))
else
  redis.call('HDEL', KEYS[2], game)
end
return 1
