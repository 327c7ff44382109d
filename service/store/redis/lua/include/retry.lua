-- Retry records: remember(req key, request id, record, now, cap, ttl_ms) and recall(req key,
-- request id, now, max age) -> record | nil, shared by create, commit and recall; times in Redis'
-- own clock, milliseconds: ``now`` is that clock when the script starts.

local function remember(key, rid, record, now, cap, ttl)
  redis.call('RPUSH', key, 'r' .. rid, 'd' .. string.format('%d', now) .. ' ' .. record)
  redis.call('LTRIM', key, -2 * cap, -1)
  redis.call('PEXPIRE', key, ttl)
end
local function recall(key, rid, now, max_age)
  local pos = redis.call('LPOS', key, 'r' .. rid)
  if not pos then return nil end
  local data = redis.call('LINDEX', key, pos + 1)
  local space = string.find(data, ' ', 2, true)
  if now - tonumber(string.sub(data, 2, space - 1)) >= max_age then return nil end
  return string.sub(data, space + 1)
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
