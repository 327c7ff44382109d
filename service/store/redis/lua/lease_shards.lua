-- KEYS: members, leases   ARGV: sweeper, now_ms, ttl_ms, shards, presence channel prefix,
-- presence command ('NUMSUB', 'SHARDNUMSUB', or '' to judge members by their renewals alone).
-- members: sorted set, sweeper -> end of its membership (ms); leases: hash, shard -> sweeper.
-- Renews the caller's membership, drops members whose membership ended or (with a presence
-- command) that no longer subscribe to <prefix><sweeper>, frees their shards, and gives the caller
-- every free shard, and up to its fair share ceil(shards / members) shards of the member holding
-- the most above that share, which is told on its presence channel (a PUBLISH, an SPUBLISH on a
-- Redis Cluster). Returns {the caller's shards, the other holders, the member count}.

local me, now, shards, prefix = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4]), ARGV[5]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), me)
local member, live, others = {}, 0, {}
for _, who in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  member[who], live = true, live + 1
  if who ~= me then table.insert(others, prefix .. who) end
end
if ARGV[6] ~= '' and #others > 0 then
  local counts = redis.call('PUBSUB', ARGV[6], unpack(others))
  for i = 1, #counts, 2 do
    if tonumber(counts[i + 1]) == 0 then
      local who = string.sub(counts[i], #prefix + 1)
      member[who], live = nil, live - 1
      redis.call('ZREM', KEYS[1], who)
    end
  end
end
local holder = {}
local flat = redis.call('HGETALL', KEYS[2])
for i = 1, #flat, 2 do holder[tonumber(flat[i])] = flat[i + 1] end
local count, free = {}, {}
for s = 0, shards - 1 do
  local who = holder[s]
  if who ~= nil and member[who] then
    count[who] = (count[who] or 0) + 1
  else
    if who ~= nil then redis.call('HDEL', KEYS[2], s) end
    holder[s] = nil
    table.insert(free, s)
  end
end
local share = math.ceil(shards / live)
local mine = count[me] or 0
for _, s in ipairs(free) do   -- every free shard: none waits for another member's next call
  redis.call('HSET', KEYS[2], s, me)
  holder[s], mine = me, mine + 1
end
local robbed = {}
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
      robbed[most] = true
      break
    end
  end
end
for who in pairs(robbed) do redis.call('PUBLISH', prefix .. who, '1') end
local held, holders, named = {}, {}, {}
for s = 0, shards - 1 do
  local who = holder[s]
  if who == me then
    table.insert(held, s)
  elseif who ~= nil and not named[who] then
    named[who] = true
    table.insert(holders, who)
  end
end
return {held, holders, live}
