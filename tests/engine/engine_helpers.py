"""Helpers for the engine tests: the games under test, prearranged decks, scripted hands,
bidding and play shortcuts.

Deal order of a prearranged deck (RULES.md / DESIGN.md): cards go one at a time clockwise,
starting left of the dealer; Buck Euchre: the first 20 so, deck[20] is the turn-up, deck[21:]
the kitty; two-player Spades: the first drawer (the ``dealer`` field) is offered deck[0], then
deck[1] is kept or discarded, and so on.
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections.abc import Iterable, Sequence

import pytest

import engine
from engine import IllegalAction, Phase, Shape
from engine.core.cards import EUCHRE_DECK, card_list, card_name, parse_card, parse_deck
from engine.games import BUILTIN
from engine.games.spades_words import DOUBLE_NIL, DRAW_KEEP, SpadesPhase, bid, exchange
from tests.games import whist

FULL = (1 << 52) - 1


# ---- the games under test ------------------------------------------------------------------

FAST = os.environ.get("CARDGAME_TEST_FAST", "") not in ("", "0")
"""`make test-fast` (CARDGAME_TEST_FAST=1): the property tests try a tenth of their examples."""


def examples(count: int) -> int:
    """How many examples a property test tries: ``count``, or a tenth of it (at least 3) in
    `make test-fast`'s edit loop."""
    return max(3, count // 10) if FAST else count


GAMES: tuple[str, ...] = tuple(game.name for game in (*BUILTIN, whist.GAME))
"""The games that every test of all games covers, in a fixed order: the built-in ones and Whist,
registered by a module of its own as a server's ``--game-module`` is (``tests.games.whist``;
importing this module registers it). A fixed set, not whatever ``engine.GAMES`` holds when a
test module is collected, which depends on what other test modules imported before."""


def searchable(variant: str) -> bool:
    """Whether the game can build states from a view (the determinize hooks the strong bot needs)."""
    game = engine.game_of(variant)
    return game.hidden is not None and game.determinize is not None


def short_options(variant: str, target: int = 200):
    """The options of a short game: a target score of ``target`` in a game that plays to one
    (Spades), the defaults elsewhere."""
    options = engine.game_of(variant).options_type()
    if any(f.name == "target_score" for f in dataclasses.fields(options)):
        options = dataclasses.replace(options, target_score=target)
    return options


# ---- cards -----------------------------------------------------------------------------

def cl(text: str | Iterable[int]) -> list[int]:
    """A list of cards from ``"AS 10H"`` (order kept) or from an iterable of card ints."""
    if isinstance(text, str):
        return parse_deck(text)
    return list(text)


def cs(text: str | Iterable[int]) -> int:
    """A card set (bit mask) from names or ints."""
    mask = 0
    for c in cl(text):
        mask |= 1 << c
    return mask


def names(cards: int | Iterable[int]) -> str:
    """Card names, lowest first (for readable assertion messages)."""
    if isinstance(cards, int):
        cards = card_list(cards)
    return " ".join(card_name(c) for c in sorted(cards))


def C(text: str) -> int:
    return parse_card(text)


# ---- prearranged decks -----------------------------------------------------------------

def round_robin_deck(hands: Sequence[Sequence[int]], dealer: int) -> list[int]:
    """The deck (top first) that deals ``hands[s]`` to seat ``s``, one card at a time from left of the dealer."""
    n = len(hands)
    size = len(hands[0])
    assert all(len(h) == size for h in hands), [len(h) for h in hands]
    deck = []
    for i in range(size * n):
        seat = (dealer + 1 + i) % n
        deck.append(hands[seat][i // n])
    assert len(set(deck)) == len(deck), "a card is in two hands"
    return deck


def fill_hands(partial: dict[int, str | Iterable[int]], n: int, size: int, pool: Iterable[int],
               avoid: Iterable[int] = ()) -> list[list[int]]:
    """Complete hands: seat ``s`` gets ``partial[s]`` and then the lowest unused cards of ``pool``."""
    hands = [cl(partial.get(s, [])) for s in range(n)]
    used = {c for h in hands for c in h} | set(avoid)
    assert sum(len(h) for h in hands) == len(used) - len(set(avoid)), "a card is listed twice"
    rest = [c for c in pool if c not in used]
    for h in hands:
        while len(h) < size:
            h.append(rest.pop(0))
    return hands


def spades_deck(dealer: int, hands: dict[int, str | Iterable[int]] | list) -> list[int]:
    """A four-player Spades deck giving each listed seat its cards (the rest filled low first)."""
    if isinstance(hands, list):
        hands = dict(enumerate(hands))
    return round_robin_deck(fill_hands(hands, 4, 13, range(52)), dealer)


def euchre_deck(dealer: int, hands: dict[int, str | Iterable[int]] | list, turnup: str,
                kitty: str | None = None) -> list[int]:
    """A Buck Euchre deck: the hands (filled from unused cards), the turn-up, then the kitty."""
    if isinstance(hands, list):
        hands = dict(enumerate(hands))
    up = C(turnup)
    pool = card_list(EUCHRE_DECK)
    kit = cl(kitty) if kitty else []
    full = fill_hands(hands, 4, 5, pool, avoid=[up, *kit])
    deck = round_robin_deck(full, dealer) + [up]
    rest = [c for c in pool if c not in deck and c not in kit]
    deck += kit + rest
    engine.check_deck("buck_euchre", deck)
    return deck


def draw_deck(first: Sequence[int], second: Sequence[int], discards: Sequence[int] | None = None) -> list[int]:
    """A two-player deck where the drawer who always KEEPS the offered card ends with these hands.

    Turn k (first drawer on even k) is offered its next card and the following card is
    discarded; ``discards`` (default: every other card, low first) gives the discarded cards.
    """
    first, second = list(first), list(second)
    assert len(first) == len(second) == 13
    if discards is None:
        used = set(first) | set(second)
        discards = [c for c in range(52) if c not in used]
    discards = list(discards)
    deck = []
    for k in range(26):
        hand = first if k % 2 == 0 else second
        deck += [hand[k // 2], discards[k]]
    engine.check_deck("spades2", deck)
    return deck


# ---- scripted hands: exact trick counts --------------------------------------------------

def spades_script(dealer: int, counts: Sequence[int]) -> tuple[list[list[int]], list[dict[int, int]]]:
    """Four hands and a 13-trick script in which seat ``s`` wins exactly ``counts[s]`` tricks.

    Tricks 1-9 are single-suit club, diamond and heart tricks (ranks 3..A, four per trick, the
    winner holding the highest), tricks 10-12 spade tricks, trick 13 the four deuces. The
    winner W of trick 9 holds the 2S and nothing but spades after trick 9, so W leads a spade
    (breaking spades) in trick 10 and trumps the deuces in trick 13: W wins trick 9 and 13.
    Returns (hands, tricks) where tricks[t] maps each seat to the card it plays.
    """
    assert sum(counts) == 13 and len(counts) == 4
    w = max(range(4), key=lambda s: (counts[s], -s))
    assert counts[w] >= 2
    rest = []
    for s in range(4):
        rest += [s] * (counts[s] - (2 if s == w else 0))
    winners = rest[:8] + [w] + rest[8:] + [w]
    assert len(winners) == 13 and winners[8] == w and winners[12] == w
    tricks: list[dict[int, int]] = []
    for t in range(12):
        suit = t // 3
        group = t % 3
        ranks = [3 + 4 * group + i for i in range(4)]           # low .. high
        cards = [suit * 13 + r - 2 for r in ranks]
        winner = winners[t]
        others = [s for s in range(4) if s != winner]
        trick = {winner: cards[3]}
        for s, c in zip(others, cards[:3], strict=True):
            trick[s] = c
        tricks.append(trick)
    deuces = {w: C("2S")}
    for s, c in zip([s for s in range(4) if s != w], [C("2C"), C("2D"), C("2H")], strict=True):
        deuces[s] = c
    tricks.append(deuces)
    hands = [[t[s] for t in tricks] for s in range(4)]
    return hands, tricks


def spades2_script(counts: Sequence[int]) -> tuple[list[list[int]], list[dict[int, int]]]:
    """Two hands and a 13-trick script (clubs, diamonds, one heart trick; no spades) where seat
    ``s`` wins ``counts[s]`` tricks; whoever leads, the other can always follow."""
    assert sum(counts) == 13 and len(counts) == 2
    winners = [0] * counts[0] + [1] * counts[1]
    pairs = [(C(f"{r}C"), C(f"{r + 1}C")) for r in (2, 4, 6, 8)]
    pairs += [(C("10C"), C("JC")), (C("QC"), C("KC"))]
    pairs += [(C(f"{r}D"), C(f"{r + 1}D")) for r in (2, 4, 6, 8)]
    pairs += [(C("10D"), C("JD")), (C("QD"), C("KD")), (C("2H"), C("3H"))]
    tricks = []
    for (low, high), w in zip(pairs, winners, strict=True):
        tricks.append({w: high, 1 - w: low})
    hands = [[t[s] for t in tricks] for s in range(2)]
    return hands, tricks


def pre_exchange(hands: list[list[int]], a: int, b: int, a_gives: Sequence[int],
                 b_gives: Sequence[int]) -> list[list[int]]:
    """The hands before a Double Nil exchange that leads to ``hands`` after it.

    After the swap ``b`` holds ``a_gives`` and ``a`` holds ``b_gives``.
    """
    assert set(a_gives) <= set(hands[b]) and set(b_gives) <= set(hands[a])
    out = [list(h) for h in hands]
    out[a] = [c for c in hands[a] if c not in b_gives] + list(a_gives)
    out[b] = [c for c in hands[b] if c not in a_gives] + list(b_gives)
    return out


def play_script(state, tricks: Sequence[dict[int, int]]) -> None:
    """Play each trick of a script: whoever is in turn plays its scripted card."""
    for trick in tricks:
        for _ in range(len(trick)):
            seat = state.turn
            engine.apply(state, seat, engine.play(trick[seat]))


# ---- starting games and acting -----------------------------------------------------------

def new(variant: str, decks: list[list[int]] | None = None, dealer: int = 0, options=None, seed: int = 0):
    """A new game with a fixed first dealer (deterministic rng)."""
    return engine.new_game(variant, options=options, rng=random.Random(seed), first_dealer=dealer, decks=decks)


def start(variant: str, decks: list[list[int]] | None = None, dealer: int = 0, options=None, seed: int = 0):
    """A new game with its first hand dealt (first draw offered in two-player Spades)."""
    state = new(variant, decks, dealer, options, seed)
    engine.apply(state, dealer, engine.DEAL, random.Random(seed))
    return state


def act(state, seat: int, action, rng: random.Random | None = None):
    """Apply an action given as an int or in the game's notation (``"bid 4"``, ``"play AS"``)."""
    if isinstance(action, str):
        action = engine.parse_notation(state.variant, action)
    return engine.apply(state, seat, action, rng or random.Random(0))


def deal(state, seed: int = 0):
    """The dealer (first drawer) starts the next hand."""
    assert state.phase == Phase.DEAL
    return engine.apply(state, state.dealer, engine.DEAL, random.Random(seed))


def bid_round(state, bids: dict[int, int | str] | Sequence[int | str]) -> None:
    """Everyone bids in turn; a bid is an int (0 = Nil) or ``"DN"`` (Double Nil)."""
    if not isinstance(bids, dict):
        bids = dict(enumerate(bids))
    while state.phase == SpadesPhase.BID:
        seat = state.turn
        b = bids[seat]
        engine.apply(state, seat, DOUBLE_NIL if b == "DN" else bid(b))


def draw_all_keep(state) -> None:
    """Two-player Spades: every drawer keeps every offered card until the draw is over."""
    while state.phase == SpadesPhase.DRAW:
        engine.apply(state, state.turn, DRAW_KEEP)


def play_cards(state, text: str) -> None:
    """Play the named cards in order, each by the seat in turn."""
    for c in cl(text):
        engine.apply(state, state.turn, engine.play(c))


def rejects(state, seat: int, action, reason: engine.Reason) -> IllegalAction:
    """Assert the action is rejected with ``reason`` and the state stays byte-for-byte the same."""
    if isinstance(action, str):
        action = engine.parse_notation(state.variant, action)
    before = state.to_bytes()
    with pytest.raises(IllegalAction) as info:
        engine.apply(state, seat, action, random.Random(0))
    assert state.to_bytes() == before, "a rejected action changed the state"
    assert info.value.reason == reason, f"{engine.notation(state.variant, action)} by seat {seat}: {info.value}"
    return info.value


def last_record(state) -> object:
    return state.records[-1]


def side_result(state, side: int, hand: int = -1) -> object:
    """The score breakdown of a side (partnership or two-player seat) in a hand record."""
    return state.records[hand].sides[side]


def seat_result(state, seat: int, hand: int = -1) -> object:
    """The score breakdown of a Buck Euchre seat in a hand record."""
    return state.records[hand].seats[seat]


def auto_exchanges(bids: Sequence[int | str], hands: list[list[int]]) -> object:
    """For each Double Nil seat whose partner did not bid Double Nil: it gives the first three
    cards of its partner's scripted (post-exchange) hand and gets the first three of its own."""
    ex = {}
    for a in range(4):
        if bids[a] == "DN" and bids[a ^ 2] != "DN":
            ex[a] = (hands[a ^ 2][:3], hands[a][:3])
    return ex


def spades_game(hands_spec: Sequence[tuple[Sequence[int | str], Sequence[int]]], dealer: int = 0,
                options=None, exchanges: Sequence[dict] | None = None):
    """Play whole four-player Spades hands: each is (bids per seat, tricks won per seat).

    ``exchanges[h]`` maps a Double Nil seat to (cards it gives, cards its partner gives), taken
    from the post-exchange hands of the script; by default :func:`auto_exchanges`.
    Returns the state after the last hand.
    """
    decks, scripts, swaps = [], [], []
    for h, (bids, counts) in enumerate(hands_spec):
        d = (dealer + h) % 4
        hands, tricks = spades_script(d, counts)
        ex = exchanges[h] if exchanges else auto_exchanges(bids, hands)
        if options is not None and options.exchange_size == 0:
            ex = {}
        for a, (a_gives, b_gives) in ex.items():
            hands = pre_exchange(hands, a, a ^ 2, a_gives, b_gives)
        decks.append(round_robin_deck(hands, d))
        scripts.append(tricks)
        swaps.append(ex)
    state = new("spades", decks, dealer, options)
    for h, (bids, counts) in enumerate(hands_spec):
        deal(state)
        bid_round(state, bids)
        for a, (a_gives, b_gives) in swaps[h].items():
            engine.apply(state, a, exchange(cs(a_gives)))
            engine.apply(state, a ^ 2, exchange(cs(b_gives)))
        assert state.phase == SpadesPhase.PLAY, state.phase
        play_script(state, scripts[h])
        assert state.records[-1].tricks == list(counts)
    return state


def spades2_game(hands_spec: Sequence[tuple[Sequence[int | str], Sequence[int]]], dealer: int = 0, options=None):
    """Play whole two-player hands: each is (bids per seat, tricks per seat); the draw keeps everything.

    A bid ``"DN"`` declares Double Nil in the seat's first draw turn and puts nothing aside.
    """
    decks, scripts = [], []
    for h, (_bids, counts) in enumerate(hands_spec):
        first = (dealer + h) % 2
        hands, tricks = spades2_script(counts)
        decks.append(draw_deck(hands[first], hands[1 - first]))
        scripts.append(tricks)
    state = new("spades2", decks, dealer, options)
    for h, (bids, counts) in enumerate(hands_spec):
        deal(state)
        while state.phase == SpadesPhase.DRAW:
            seat = state.turn
            if bids[seat] == "DN" and state.draw_turns[seat] == 0 and state.bids[seat] != -2:
                engine.apply(state, seat, DOUBLE_NIL)
            engine.apply(state, seat, DRAW_KEEP)
        while state.phase == SpadesPhase.EXCHANGE:
            engine.apply(state, state.turn, exchange(0))
        while state.phase == SpadesPhase.BID:
            engine.apply(state, state.turn, bid(bids[state.turn]))
        assert state.phase == SpadesPhase.PLAY
        play_script(state, scripts[h])
        assert state.records[-1].tricks == list(counts)
    return state


# ---- what a view shows ---------------------------------------------------------------------

PRIVATE_CARD_FIELDS = ("seen_discards", "exchange_given", "exchange_received", "pass_given", "pass_received")
"""The fields of a game's view facts (``View.rules``) that list cards only the viewer may know: the
cards it saw in a draw, gave or got in an exchange, passed or received in a pass (Hearts)."""


def private_cards(v) -> set[int]:
    """Every card a view shows that is not on the table (trick, last trick) or the turn-up."""
    out: set[int] = set()
    if v.hand is not None:
        out |= set(v.hand)
    rules = v.rules
    if getattr(rules, "offered", None) is not None:
        out.add(rules.offered)
    for name in PRIVATE_CARD_FIELDS:
        out |= set(getattr(rules, name, []))
    if v.exchange is not None:
        out |= set(v.exchange.cards)
    words = engine.game_of(v.variant).vocabulary
    for a in v.legal_actions:
        word, payload = words.word_of(a), engine.payload_of(a)
        if word is None:
            continue
        if word.shape is Shape.CARD:
            out.add(payload)
        elif word.shape is Shape.CARDS:
            out |= set(card_list(payload))
    return out


def public_cards(v) -> set[int]:
    """The cards a view shows face up to everybody."""
    out = {c for _, c in v.trick} | {c for _, c in v.last_trick}
    if getattr(v.rules, "turn_up", None) is not None:
        out.add(v.rules.turn_up)
    return out


def allowed_private(state, seat: int) -> int:
    """The cards ``seat`` may know privately: its own hand once looked at, and in a game that has
    them, the cards it saw in a draw and the cards it gave or got in an exchange (Spades) or a
    pass (Hearts)."""
    mask = state.hands[seat] if state.looked >> seat & 1 else 0
    if hasattr(state, "seen"):
        mask |= state.seen[seat]
    if hasattr(state, "xgiven") and state.xgiven[seat] != -1:
        mask |= state.xgiven[seat] | state.xgot[seat]
    return mask


def check_views(state) -> None:
    """Every seat's view shows no card it may not know; the spectator's shows nothing private."""
    spectator = engine.view(state, None)
    assert spectator.viewer is None and spectator.hand is None and getattr(spectator.rules, "offered", None) is None
    assert all(getattr(spectator.rules, name, []) == [] for name in PRIVATE_CARD_FIELDS)
    assert spectator.legal_actions == [] and spectator.exchange is None
    assert private_cards(spectator) == set()
    for seat in range(state.n):
        v = engine.view(state, seat)
        assert v.viewer == seat
        mine = private_cards(v)
        extra = cs(mine) & ~allowed_private(state, seat)
        assert not extra, f"seat {seat} sees {names(extra)}"
        if v.hand is not None:
            assert v.hand == card_list(state.hands[seat])
        if not state.looked >> seat & 1:
            assert v.hand is None and not mine
        for other in range(state.n):
            if other != seat:
                # another seat's cards show only if this seat gave them or saw them legitimately
                leaked = cs(mine) & state.hands[other] & ~allowed_private(state, seat)
                assert not leaked
        if state.variant == "buck_euchre":
            assert not cs(mine | public_cards(v)) & state.kitty
            if state.dealer_discard != -1 and state.dealer_discard != state.turnup:
                assert state.dealer_discard not in mine | public_cards(v)


def movers(state) -> list[int]:
    """The seats that have a legal action now."""
    return [s for s in range(state.n) if len(engine.legal_actions(state, s))]


def first_action(state, seat: int) -> int:
    """The first legal action of ``seat``; one that chooses cards (an exchange, a pass) takes its
    lowest cards, two or as many as it must."""
    rule = engine.view(state, seat).exchange
    if rule is not None:
        cards = rule.cards[:max(rule.fewest, min(2, rule.most))]
        word = engine.game_of(state.variant).vocabulary.by_code[rule.kind].word
        return engine.parse_notation(state.variant, " ".join([word, *map(card_name, cards)]))
    return engine.legal_actions(state, seat)[0]


def finish_hand(state) -> None:
    """Play the hand in progress to its end, each seat taking its first action (``first_action``)."""
    hand = state.hand_no
    while state.hand_no == hand and state.phase not in (Phase.DEAL, Phase.GAME_OVER):
        seat = state.turn if state.turn >= 0 else next(s for s in range(state.n) if engine.legal_actions(state, s))
        engine.apply(state, seat, first_action(state, seat), random.Random(0))
