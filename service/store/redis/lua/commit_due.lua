-- include: retry outbox schedule commit
-- KEYS: state, log, hands, req, outbox, due, claims (one Redis only: the game's keys and its
--       shard's schedule are in different slots of a cluster)
-- ARGV: commit.lua's first eleven, then game id, due_ms, wake channel, then hand..., event..., entry...
-- Schedules the game at due_ms (include/schedule.lua), whether or not the change wins (the
-- schedule is a hint), then commits the change in the same atomic step, so no sweeper reads the
-- game between the two. Returns {ok, version, retry record or nil, the game's time before or nil}.

local prior = schedule_game(KEYS[6], KEYS[7], ARGV[12], ARGV[13], ARGV[14])
local reply = commit_change(15)
return {reply[1], reply[2], reply[3] or false, prior or false}
