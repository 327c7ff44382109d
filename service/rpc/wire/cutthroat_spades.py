"""Cutthroat Spades on the wire: the Spades messages throughout. Its options are Spades' options
(the ``spades`` case of RuleOptions, and the settings it takes by name), its view is the GameView
``spades`` case (spades broken; no exchange ever fills its exchange fields), its seats' facts are
SpadesSeatView and a hand's breakdown is SpadesHand and SpadesSeatHand, each of its three sides a
player; its phases and action words are Spades' own, with their ``Phase`` and ``ActionKind`` values."""

from __future__ import annotations

from dataclasses import replace

from engine.games.cutthroat_spades import NAME

from . import spades

ADAPTER = replace(spades.ADAPTER, name=NAME)
