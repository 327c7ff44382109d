"""Tests of the computer players (bots/): legality, strength and the heuristics of each game's bots."""
