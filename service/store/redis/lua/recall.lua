-- include: retry
-- KEYS: req   ARGV: request_id, req_ttl_ms
-- Returns the retry record of the request id, nil when there is none or it is too old.

return recall(KEYS[1], ARGV[1], now, tonumber(ARGV[2]))
