"""The games this client knows, in one table: every spelling the client, the CLI and the renderer
take for a game resolves here, and nowhere else.

The table is read from the schema the client was generated with: every case of RuleOptions'
``variant`` oneof declares the games that take it as their options (the ``cardgame.v1.games``
field option of ``catalog.proto``), so a game the API gains is known here by regenerating the
stubs, with no code of its own. A test pins the declarations to what the games declare in the
server's engine (``engine.game.Game``).

A game answers to its registry name ("buck_euchre"), its title ("Buck Euchre"), the aliases it
declares, and its ``Variant`` enum name ("VARIANT_BUCK_EUCHRE") or value, written in any case
with "-", "_" or spaces between words ("buck-euchre"). A view carries its game's title
(``GameView.variant_title``), which :func:`title_of` prefers. A name the table does not know is
the server's to judge: the client sends it as ``variant_name``.

>>> find("buck-euchre").name, find("VARIANT_SPADES_TWO_PLAYER").name, find("Two-player Spades").name
('buck_euchre', 'spades2', 'spades2')
>>> find(enums.VARIANT_SPADES).title, find("whist")
('Spades', None)
>>> command_name(find("buck_euchre")), title_of("whist")
('buck-euchre', 'Whist')
"""

from __future__ import annotations

from dataclasses import dataclass

from cardgame.v1 import catalog_pb2, options_pb2
from cardgame.v1 import enums_pb2 as enums


def fold(text: str) -> str:
    """A game's name as written anywhere, folded for matching: trimmed, lowercase, words joined by "_"."""
    return "_".join(text.strip().lower().replace("-", " ").replace("_", " ").split())


@dataclass(frozen=True)
class GameInfo:
    """One game as the client knows it: its names, its seats, and what its options are called."""

    name: str                       # the registry name, GameView.variant_name
    title: str                      # the display name, as the game declares it
    variant: int                    # its Variant enum value (VARIANT_UNSPECIFIED: none)
    seats: int                      # how many players it seats
    options: str                    # its case of RuleOptions' `variant` oneof ("": no options message)
    target_option: str = ""         # the option that sets the game's length (the CLI's --target)
    aliases: tuple[str, ...] = ()   # other names it declares

    @property
    def spellings(self) -> frozenset[str]:
        """Every name the game answers to, folded (:func:`fold`)."""
        enum_names = (enums.Variant.Name(self.variant),) if self.variant else ()
        return frozenset(fold(text) for text in (self.name, self.title, *enum_names, *self.aliases))


def declared_games() -> tuple[GameInfo, ...]:
    """The games the schema declares, in the order of their options cases and declarations."""
    cases = options_pb2.RuleOptions.DESCRIPTOR.oneofs_by_name["variant"].fields
    return tuple(GameInfo(game.name, game.title, game.variant, game.seats, case.name, game.target_option,
                          tuple(game.aliases))
                 for case in cases for game in case.GetOptions().Extensions[catalog_pb2.games])


GAMES: tuple[GameInfo, ...] = declared_games()
"""The games the client knows, in the order it offers them."""

_BY_NAME = {game.name: game for game in GAMES}
_BY_VARIANT = {game.variant: game for game in GAMES if game.variant}
_BY_SPELLING = {spelling: game for game in GAMES for spelling in game.spellings}


def find(game: str | int) -> GameInfo | None:
    """The known game a name (any spelling) or a Variant value names; None for any other."""
    if isinstance(game, int):
        return _BY_VARIANT.get(game)
    return _BY_NAME.get(game) or _BY_SPELLING.get(fold(game))


def command_name(game: GameInfo) -> str:
    """How the command line spells a game: its registry name with "-" ("buck-euchre")."""
    return game.name.replace("_", "-")


def title_of(name: str, view_title: str = "") -> str:
    """The display name of a game: the one its view carries, else the table's, else its
    registry name in words ("whist" -> "Whist")."""
    if view_title:
        return view_title
    known = _BY_NAME.get(name)
    return known.title if known else name.replace("_", " ").capitalize() or "Game"
