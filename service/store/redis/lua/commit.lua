-- include: retry outbox commit
-- KEYS: state, log, hands, req, outbox
-- ARGV: expected, state, ttl_ms, channel, req_ttl_ms, max_requests, request_id ('' for none), retry,
--       max_outbox, n_hands, n_events, hand..., event..., entry...
-- Returns {1, new_version} | {0, current_version} | {0, current_version, retry record}.

return commit_change(12)
