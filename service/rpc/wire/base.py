"""The wire adapter type every game's module of ``service.wire`` builds, and the helpers they share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import options_pb2, score_pb2, view_pb2
from engine.core.cards import CARD_NAMES

SUITS = (enums.SUIT_CLUBS, enums.SUIT_DIAMONDS, enums.SUIT_HEARTS, enums.SUIT_SPADES)
"""The proto Suit of each engine suit (0 clubs .. 3 spades)."""

SHARED_PHASES = {"deal": enums.PHASE_DEAL, "play": enums.PHASE_PLAY, "game_over": enums.PHASE_GAME_OVER}
"""The ``Phase`` values of the phases every game has (the shared machinery's)."""
SHARED_ACTION_KINDS = {"deal": enums.ACTION_KIND_DEAL, "play": enums.ACTION_KIND_PLAY}
"""The ``ActionKind`` values of the action words every game has."""

ViewRules = Callable[[view_pb2.GameView, Any], None]
SeatRules = Callable[[Any], Mapping[str, Message]]
HandRules = Callable[[score_pb2.HandScore, Any, "int | None"], None]

EVERY_SEAT = -2
"""The ``viewer`` of a hand score that may know every seat's private details: the game's owner,
whose backend the hand's event goes to."""


def names(cards: Iterable[int]) -> list[str]:
    """The names of engine cards ("AS", "10H"), in the order given."""
    return [CARD_NAMES[c] for c in cards]


def _no_view_rules(message: view_pb2.GameView, rules: Any) -> None:
    """A game without a view message of its own adds nothing to the common view."""


def _no_seat_rules(facts: Any) -> Mapping[str, Message]:
    """A game without a seat message of its own adds nothing to the common SeatView."""
    return {}


def _no_hand_rules(message: score_pb2.HandScore, record: Any, viewer: int | None) -> None:
    """A game without a hand message of its own adds nothing to the common HandScore."""


@dataclass(frozen=True)
class WireAdapter:
    """How one game's own facts cross the wire, beyond the common part of every message.

    - ``name``: the game's engine registry name;
    - ``options_case``: its case of RuleOptions' ``variant`` oneof, whose message has a field of
      the same name for every field of the engine options ("": the game has no options message;
      it is played with its default options);
    - ``view_rules(message, view.rules)`` fills its case of the GameView ``rules`` oneof;
    - ``seat_rules(seat.rules)`` gives the SeatView ``rules`` case of one seat's facts, as the
      keyword arguments of ``message.seats.add`` (messages may be shared: callers copy them);
    - ``phases`` and ``action_kinds``: the values of the wire's ``Phase`` and ``ActionKind``
      enums, kept for the games first built in, by the game's own phase name and action word
      (a phase or word without one is sent as UNSPECIFIED: clients read ``phase_name`` and the
      legal action's ``word`` and ``shape``, which every game has);
    - ``hand_rules(message, record, viewer)`` adds its breakdown to a HandScore that already
      holds the common part (each seat's tricks and own points, each side's tricks, points and
      total): its case of the HandScore and SeatScore ``rules`` oneofs, and the common fields it
      knows better (the side's contract, the seat's bid); what the rules keep private after the
      hand (a Hearts pass) only as ``viewer`` may know it (a seat, None for a spectator,
      :data:`EVERY_SEAT` for the game's owner).
    """

    name: str
    options_case: str = ""
    view_rules: ViewRules = _no_view_rules
    seat_rules: SeatRules = _no_seat_rules
    hand_rules: HandRules = _no_hand_rules
    phases: Mapping[str, int] = field(default_factory=lambda: SHARED_PHASES)
    action_kinds: Mapping[str, int] = field(default_factory=lambda: SHARED_ACTION_KINDS)

    def __post_init__(self) -> None:
        if self.options_case and self.options_case not in options_pb2.RuleOptions.DESCRIPTOR.fields_by_name:
            raise ValueError(f"RuleOptions has no case {self.options_case!r} for {self.name}")

    def options_message(self, options: Any) -> options_pb2.RuleOptions:
        """The effective engine options as a RuleOptions message, every field set (empty for a
        game without an options message)."""
        if not self.options_case:
            return options_pb2.RuleOptions()
        return options_pb2.RuleOptions(**{self.options_case: vars(options)})
