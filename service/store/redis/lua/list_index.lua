-- KEYS: the sets to intersect   ARGV: count, scan bound, has cursor ('1'/'0'), cursor ms, cursor id
-- Walks the smallest set from its newest member (ties: greater id first) strictly after the
-- cursor and keeps the members found in every other set by ZSCORE. Returns
-- {{ms, id, ms, id, ...}, {cursor ms, cursor id} or {} when the walk reached the end}.

local count, bound = tonumber(ARGV[1]), tonumber(ARGV[2])
local walk, card = 1, -1
for i = 1, #KEYS do
  local c = redis.call('ZCARD', KEYS[i])
  if card < 0 or c < card then walk, card = i, c end
end
if card == 0 then return {{}, {}} end
local key = KEYS[walk]
local pos = 0
if ARGV[3] == '1' then
  local ms, id = ARGV[4], ARGV[5]
  local own = redis.call('ZSCORE', key, id)
  if own and tonumber(own) == tonumber(ms) then
    pos = redis.call('ZREVRANK', key, id) + 1
  else
    -- the rank the cursor would have: put it in for a moment, then restore the set
    redis.call('ZADD', key, ms, id)
    pos = redis.call('ZREVRANK', key, id)
    if own then
      redis.call('ZADD', key, own, id)
      if tonumber(own) > tonumber(ms) then pos = pos + 1 end
    else
      redis.call('ZREM', key, id)
    end
  end
end
local found, n, scanned, last_ms, last_id = {}, 0, 0, nil, nil
while n < count and scanned < bound and pos < card do
  local items = redis.call('ZREVRANGE', key, pos, pos + math.min(bound - scanned, 256) - 1, 'WITHSCORES')
  if #items == 0 then break end
  for j = 1, #items, 2 do
    local member = items[j]
    scanned, pos, last_ms, last_id = scanned + 1, pos + 1, tonumber(items[j + 1]), member
    local everywhere = true
    for k = 1, #KEYS do
      if k ~= walk and not redis.call('ZSCORE', KEYS[k], member) then everywhere = false break end
    end
    if everywhere then
      found[#found + 1] = last_ms
      found[#found + 1] = member
      n = n + 1
      if n >= count then break end
    end
  end
end
if last_id and pos < card then return {found, {last_ms, last_id}} end
return {found, {}}
