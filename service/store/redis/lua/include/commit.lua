-- commit_change(first): the change of commit.lua, whose KEYS are state, log, hands, req, outbox and
-- whose ARGV are expected, state, ttl_ms, channel, req_ttl_ms, max_requests, request_id ('' for
-- none), retry, max_outbox, n_hands, n_events, then from ARGV[first] hand..., event..., entry...
-- Returns {1, new_version} | {0, current_version} | {0, current_version, retry record}. The
-- notification is a PUBLISH on the channel (an SPUBLISH on a Redis Cluster).

local function commit_change(first)
  local cur = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
  if ARGV[7] ~= '' then
    local prev = recall(KEYS[4], ARGV[7], now, tonumber(ARGV[5]))
    if prev then return {0, cur, prev} end
  end
  if cur == 0 or cur ~= tonumber(ARGV[1]) then return {0, cur} end
  local first_event = first + tonumber(ARGV[10])
  local first_entry = first_event + tonumber(ARGV[11])
  for i = first, first_event - 1 do redis.call('RPUSH', KEYS[3], ARGV[i]) end
  for i = first_entry, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
  local v = string.format('%d', cur + #ARGV - first_entry + 1)
  redis.call('HSET', KEYS[1], 'v', v, 's', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])   -- nothing to do while no hand has ended
  append_outbox(KEYS[5], first_event, first_entry - 1, tonumber(ARGV[9]), ARGV[3])
  if ARGV[7] ~= '' then
    remember(KEYS[4], ARGV[7], ARGV[8], now, tonumber(ARGV[6]), ARGV[3])
  else
    redis.call('PEXPIRE', KEYS[4], ARGV[3])   -- nothing to do while no request id was given
  end
  redis.call('PUBLISH', ARGV[4], v)
  return {1, tonumber(v)}
end
