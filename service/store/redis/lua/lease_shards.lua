-- KEYS: members, leases   ARGV: sweeper, ttl_ms, shards, presence channel prefix, presence command
-- ('NUMSUB', 'SHARDNUMSUB', or '' to judge members by their renewals alone).
-- members: sorted set, sweeper -> end of membership (server clock, ms); leases: hash, shard -> sweeper.
-- Renews the caller's membership, drops members whose membership ended or (with a presence command)
-- that no longer subscribe to <prefix><sweeper>, frees their shards, and gives the caller its fair
-- share ceil(shards / members): free shards first, then shards of the member holding the most
-- above that share. Returns the shards the caller holds, ascending.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me, shards = ARGV[1], tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), me)
local holder, alive = {}, {[me] = true}
local pairs_ = redis.call('HGETALL', KEYS[2])
for i = 1, #pairs_, 2 do holder[tonumber(pairs_[i])] = pairs_[i + 1] end
local function live(who)
  if alive[who] == nil then
    local ok = redis.call('ZSCORE', KEYS[1], who) ~= false
    if ok and ARGV[5] ~= '' then
      ok = tonumber(redis.call('PUBSUB', ARGV[5], ARGV[4] .. who)[2]) > 0
      if not ok then redis.call('ZREM', KEYS[1], who) end
    end
    alive[who] = ok
  end
  return alive[who]
end
local count, free = {}, {}
for s = 0, shards - 1 do
  local who = holder[s]
  if who ~= nil and live(who) then
    count[who] = (count[who] or 0) + 1
  else
    if who ~= nil then redis.call('HDEL', KEYS[2], s) end
    holder[s] = nil
    table.insert(free, s)
  end
end
local share = math.ceil(shards / redis.call('ZCARD', KEYS[1]))
local mine = count[me] or 0
for _, s in ipairs(free) do
  if mine >= share then break end
  redis.call('HSET', KEYS[2], s, me)
  holder[s], mine = me, mine + 1
end
while mine < share do
  local most, most_n = nil, share
  for s = 0, shards - 1 do
    local who = holder[s]
    if who ~= nil and who ~= me and count[who] > most_n then most, most_n = who, count[who] end
  end
  if most == nil then break end
  for s = shards - 1, 0, -1 do
    if holder[s] == most then
      redis.call('HSET', KEYS[2], s, me)
      holder[s], count[most], mine = me, count[most] - 1, mine + 1
      break
    end
  end
end
local held = {}
for s = 0, shards - 1 do
  if holder[s] == me then table.insert(held, s) end
end
return held
