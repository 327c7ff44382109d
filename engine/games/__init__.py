"""The games built into the engine, one module each; ``BUILTIN`` is what ``engine`` registers."""

from . import buck_euchre, cutthroat_spades, euchre, hearts, spades, spades2

BUILTIN = (spades.GAME, spades2.GAME, buck_euchre.GAME, hearts.GAME, euchre.GAME, cutthroat_spades.GAME)
