-- KEYS: members, leases   ARGV: sweeper.  Ends the sweeper's membership and frees its shards.

redis.call('ZREM', KEYS[1], ARGV[1])
local pairs_ = redis.call('HGETALL', KEYS[2])
for i = 1, #pairs_, 2 do
  if pairs_[i + 1] == ARGV[1] then
    redis.call('HDEL', KEYS[2], pairs_[i])
  end
end
