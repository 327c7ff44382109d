-- KEYS: due, claims   ARGV: now_ms, lease end (the claim token), count.  Leases the shard's games
-- due at now_ms: each is due again at the token, which the claims hash keeps ('c:<game id>').
-- Returns the leased game ids.

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, game in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], game)
  redis.call('HSET', KEYS[2], 'c:' .. game, ARGV[2])
end
return due
