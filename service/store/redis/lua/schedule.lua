-- include: schedule
-- KEYS: due, claims   ARGV: game id, at_ms, wake channel.  Schedules the game (see
-- include/schedule.lua). Returns the game's time before, nil if none.

return schedule_game(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])
