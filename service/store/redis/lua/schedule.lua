-- KEYS: due, claims   ARGV: game id, at_ms, wake channel.  Makes the game due at at_ms unless it
-- is due earlier (ZADD LT); when at_ms is the shard's earliest time now, publishes it on the
-- shard's wake channel (an SPUBLISH on a Redis Cluster). A game under a sweeper's claim (its time
-- is the claim's token) keeps an at_ms after the claim's end as asked ('a:<game id>'), so the
-- claim's settle, which works from the game as it read it, cannot drop it (an earlier at_ms
-- takes the score, and the claim no longer holds). Returns the game's time before, nil if none.

local prior = redis.call('ZSCORE', KEYS[1], ARGV[1])
local claim = redis.call('HGET', KEYS[2], 'c:' .. ARGV[1])
if prior and claim and tonumber(claim) == tonumber(prior) and tonumber(ARGV[2]) >= tonumber(prior) then
  local asked = redis.call('HGET', KEYS[2], 'a:' .. ARGV[1])
  if not asked or tonumber(ARGV[2]) < tonumber(asked) then
    redis.call('HSET', KEYS[2], 'a:' .. ARGV[1], ARGV[2])
  end
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
redis.call('ZADD', KEYS[1], 'LT', ARGV[2], ARGV[1])
if first[2] == nil or tonumber(ARGV[2]) < tonumber(first[2]) then
  redis.call('PUBLISH', ARGV[3], ARGV[2])
end
return prior
