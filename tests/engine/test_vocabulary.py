"""Each game's own words: the notation of every legal action reads back as that action, a game's
words and phases are declared once, phases have names, states stored at schema version 2 migrate
(their calls re-encoded), and the shared core names no game's words."""

from __future__ import annotations

import ast
import dataclasses
import io
import random
import re
import tokenize
from pathlib import Path

import pytest
from engine_helpers import GAMES, examples, movers, rejects, short_options, start

import engine
from engine import Phase, Shape, Vocabulary, Word
from engine.core import table as core_table
from engine.core.actions import CODE_BITS, DEAL_WORD, PLAY_WORD
from engine.core.vocabulary import PhaseWord, phase_words
from engine.game import CORE_PHASES
from engine.games.buck_euchre_words import DROP_OUT, ORDER_UP, PASS, STAY_IN, BuckPhase, name_suit
from engine.games.spades_words import DOUBLE_NIL, DRAW_KEEP, REVEAL, SpadesPhase, bid
from tests.engine.facts import facts_of
from tests.games import whist

# ---- the notation of every legal action round-trips -------------------------------------------

NEVER_OFFERED: dict[str, set[str]] = {}
"""Words a game declares but never offers as a legal action, by game: none (two-player Spades
declares no "reveal": a drawer sees its cards as it draws them)."""
SAMPLE = 12
"""Legal actions tried of a seat that has more (the ways to choose cards of an exchange or a pass)."""


def _tried(legal, rng: random.Random) -> list[int]:
    if len(legal) <= SAMPLE:
        return list(legal)
    return [legal[i] for i in sorted({0, len(legal) - 1, *(rng.randrange(len(legal)) for _ in range(SAMPLE))})]


def _check_round_trip(state, rng: random.Random, seen_words: set[str]) -> None:
    variant = state.variant
    words = engine.game_of(variant).vocabulary
    for seat in range(state.n):
        for action in _tried(engine.legal_actions(state, seat), rng):
            word = words.word_of(action)
            assert word is not None, f"{variant}: legal action {action} has no word of the game"
            text = engine.notation(variant, action)
            assert text.split()[0] == word.word and not text.startswith("action #"), text
            assert engine.parse_notation(variant, text) == action, text
            assert engine.parse_notation(variant, f"  {text.upper()} ") == action, text
            assert words.parse(words.name(action)) == action
            seen_words.add(word.word)
        v = engine.view(state, seat)
        if v.exchange is not None:
            word = words.by_code[v.exchange.kind]
            assert word.shape is Shape.CARDS
            chosen = v.exchange.cards[:v.exchange.most]
            text = " ".join([word.word, *map(engine.card_name, chosen)])
            assert engine.notation(variant, engine.parse_notation(variant, text)) == text.rstrip()
        for info in v.seats:
            if info.last_call:   # a call a view shows reads back as the seat's call
                assert engine.parse_notation(variant, info.last_call) == state.calls[info.seat]


def _random_game(variant: str, seed: int, hands: int, visit) -> None:
    rng = random.Random(f"{variant}-{seed}")
    seats = engine.game_of(variant).seats
    facts = facts_of(variant)   # its short options, with the settings under which it offers every word
    options = dataclasses.replace(short_options(variant, 100), **facts.every_word)
    state = engine.new_game(variant, options, rng, first_dealer=seed % seats)
    for _ in range(3000):
        visit(state)
        if state.phase == Phase.GAME_OVER or state.hand_no > hands:
            return
        seat = rng.choice(movers(state))
        legal = engine.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        if facts.pass_action in legal and rng.random() < 0.75:   # reach the later rounds of making trump
            action = facts.pass_action
        engine.apply(state, seat, action, rng)
    raise AssertionError(f"{variant}: a game of {hands} hands did not end")


@pytest.mark.parametrize("variant", GAMES)
def test_the_notation_of_every_legal_action_reads_back_as_it(variant):
    words = engine.game_of(variant).vocabulary
    seen_words: set[str] = set()
    seen_phases: set[str] = set()
    check_rng = random.Random(0)

    def visit(state):
        seen_phases.add(engine.phase_of(state).name)
        _check_round_trip(state, check_rng, seen_words)

    for seed in range(examples(8)):
        _random_game(variant, seed, 3, visit)
    # the games' legal actions use no word the game lacks, and over a few games every word it declares
    declared = {w.word for w in words.words}
    assert seen_words <= declared
    unseen = declared - seen_words
    assert unseen == NEVER_OFFERED.get(variant, set()), f"{variant} never offered {unseen}"
    assert seen_phases <= {p.name for p in words.phases}


def test_the_double_nil_exchange_notation_reads_back_too():
    """Random play seldom reaches four-player Spades' exchange: a Double Nil bid takes it there."""
    seen: set[str] = set()
    state = start("spades", None, dealer=0, seed=1)
    engine.apply(state, state.turn, DOUBLE_NIL)
    while state.phase == SpadesPhase.BID:
        engine.apply(state, state.turn, bid(3))
    assert state.phase == SpadesPhase.EXCHANGE
    _check_round_trip(state, random.Random(1), seen)
    assert "exchange" in seen


# ---- declaring words and phases ------------------------------------------------------------------

def test_a_word_or_a_code_declared_twice_is_refused():
    with pytest.raises(ValueError, match="twice"):
        Vocabulary("x", (DEAL_WORD, DEAL_WORD), ())
    with pytest.raises(ValueError, match="twice"):
        Vocabulary("x", (DEAL_WORD, Word(DEAL_WORD.code, "shuffle", Shape.NONE)), ())      # a code twice
    with pytest.raises(ValueError, match="twice"):
        Vocabulary("x", (DEAL_WORD, Word(3, "deal", Shape.NONE)), ())                      # a word twice
    with pytest.raises(ValueError, match="twice"):
        Vocabulary("x", (DEAL_WORD,), (PhaseWord(1, "deal"), PhaseWord(1, "shuffle")))     # a phase twice
    Vocabulary("x", (DEAL_WORD, PLAY_WORD, Word(3, "knock", Shape.NONE)), CORE_PHASES)   # distinct: fine


def test_a_game_declaring_a_word_twice_or_a_step_of_an_undeclared_phase_is_refused():
    game = whist.GAME
    with pytest.raises(ValueError, match="twice"):
        dataclasses.replace(game, name="whist_twice", words=(*game.words, Word(3, "play", Shape.CARD)))
    with pytest.raises(ValueError, match="twice"):
        dataclasses.replace(game, name="whist_twice", words=(*game.words, Word(PLAY_WORD.code, "lay", Shape.CARD)))
    with pytest.raises(ValueError, match="phases"):
        dataclasses.replace(game, name="whist_bidding", legal={**game.legal, SpadesPhase.BID: game.legal[Phase.PLAY]})
    assert "whist_twice" not in engine.GAMES and "whist_bidding" not in engine.GAMES


def test_bad_words_are_refused():
    for code in (0, 1 << CODE_BITS):
        with pytest.raises(ValueError):
            Word(code, "knock", Shape.NONE)
    for text in ("", "Knock", "knock on", " knock"):
        with pytest.raises(ValueError):
            Word(3, text, Shape.NONE)
    assert Word(3, "order-up", Shape.NONE).title == "Order up" and DEAL_WORD.title == "Deal"


@pytest.mark.parametrize("variant", GAMES)
def test_the_phase_names(variant):
    words = engine.game_of(variant).vocabulary
    pinned = facts_of(variant).phases
    assert not pinned or [p.name for p in words.phases] == list(pinned)
    assert all(p.title for p in words.phases)
    # the shared machinery's phases are every game's, at the same codes
    for phase in Phase:
        assert words.phase(phase).name == phase.name.lower()
    with pytest.raises(ValueError):
        words.phase(0)
    state = engine.new_game(variant, first_dealer=0)
    assert engine.phase_of(state).name == "deal"


def test_the_core_has_only_the_shared_phases():
    assert {p.name for p in Phase} == {"DEAL", "PLAY", "GAME_OVER"}
    assert [p.name for p in phase_words(Phase)] == ["deal", "play", "game_over"]
    assert [p.name for p in CORE_PHASES] == ["deal", "play", "game_over"]
    assert whist.GAME.vocabulary.phases == CORE_PHASES
    assert {w.word for w in whist.GAME.vocabulary.words} == {"deal", "play"}


def test_the_games_phase_titles():
    assert engine.game_of("spades").vocabulary.phase(SpadesPhase.BID).title == "Bidding"
    assert engine.game_of("buck_euchre").vocabulary.phase(BuckPhase.ORDER_UP).title == "Order up or pass"
    assert engine.game_of("spades").vocabulary.phase(SpadesPhase.BID).name == "bid"


def test_a_wrong_phase_is_named_in_the_games_words():
    state = start("spades", None, dealer=0, seed=1)
    error = rejects(state, state.turn, ORDER_UP, engine.Reason.WRONG_PHASE)
    assert "bid phase" in str(error), error
    state = start("buck_euchre", None, dealer=0, seed=3)
    if state.phase == BuckPhase.ORDER_UP:
        error = rejects(state, state.turn, bid(3), engine.Reason.WRONG_PHASE)
        assert "bid 3" not in str(error) and "order_up phase" in str(error), error
        error = rejects(state, state.turn, STAY_IN, engine.Reason.WRONG_PHASE)
        assert "stay is not possible in the order_up phase" in str(error), error


# ---- schema version 2 states migrate -----------------------------------------------------------------

def _as_v2(data: dict) -> dict:
    """A version 3 state's dict as version 2 stored it: an action's code in its low four bits."""
    old = dict(data)
    old["calls"] = [c & 255 | (c >> 8) << 4 for c in data["calls"]]
    old["schema_version"] = 2
    return old


def _states_with_calls():
    """States whose seats' calls carry payloads (bids, named suits) and none (order-up, double nil)."""
    spades = start("spades", None, dealer=0, seed=1)
    engine.apply(spades, spades.turn, DOUBLE_NIL)
    engine.apply(spades, spades.turn, bid(4))
    engine.apply(spades, spades.turn, bid(13))
    yield spades
    spades2 = start("spades2", None, dealer=0, seed=2)
    engine.apply(spades2, 0, DOUBLE_NIL)
    engine.apply(spades2, 0, DRAW_KEEP)
    yield spades2
    for seed in range(40):
        buck = start("buck_euchre", None, dealer=0, seed=seed)
        if buck.phase != BuckPhase.ORDER_UP or buck.clubs:
            continue
        for _ in range(4):
            engine.apply(buck, buck.turn, PASS)
        suit = [a for a in engine.legal_actions(buck, buck.turn) if a != PASS][-1]   # not clubs: a payload
        engine.apply(buck, buck.turn, suit)
        engine.apply(buck, buck.turn, DROP_OUT)
        assert any(engine.payload_of(c) for c in buck.calls)
        yield buck
        break
    else:
        raise AssertionError("no Buck Euchre deal without a club turn-up")
    for variant in GAMES:
        state = start(variant, None, dealer=0, seed=5)
        for _ in range(7):
            seat = movers(state)[0]
            engine.apply(state, seat, engine.legal_actions(state, seat)[-1], random.Random(5))
        yield state


def test_a_version_2_state_loads_with_its_calls_re_encoded():
    checked = 0
    for state in _states_with_calls():
        data = state.to_dict()
        assert data["schema_version"] == 3
        old = _as_v2(data)
        if any(c >> 8 for c in data["calls"]):
            assert old["calls"] != data["calls"]
        loaded = engine.state_from_dict(old)
        assert loaded == state and loaded.calls == state.calls
        assert loaded.to_dict() == data and loaded.to_bytes() == state.to_bytes()
        assert engine.view(loaded, None) == engine.view(state, None)
        again = engine.state_from_bytes(engine.state_from_dict(old).to_bytes())
        assert again == state
        checked += 1
    assert checked >= 3 + len(GAMES)


def test_the_migration_keeps_named_calls():
    state = next(s for s in _states_with_calls() if s.variant == "buck_euchre")
    loaded = engine.state_from_dict(_as_v2(state.to_dict()))
    named = next(c for c in state.calls if engine.notation("buck_euchre", c).startswith("name "))
    assert named == name_suit(engine.payload_of(named)) and engine.payload_of(named) in range(4)
    names = sorted(engine.notation("buck_euchre", c) for c in loaded.calls)
    assert names == sorted(["drop", "pass", "pass", engine.notation("buck_euchre", named)])


@pytest.mark.parametrize("version", [None, 1, 4, "3"])
def test_other_schema_versions_are_refused(version):
    data = start("spades", None, dealer=0, seed=1).to_dict()
    data["schema_version"] = version
    with pytest.raises(ValueError, match="schema version"):
        engine.state_from_dict(data)


# ---- the core names no game's words -----------------------------------------------------------------

CORE = Path(engine.__file__).parent / "core"
GAME_IDENTIFIERS = frozenset({"bid", "ORDER_UP", "NAME_TRUMP", "DROP_OUT", "REVEAL", "DOUBLE_NIL", "DRAW_KEEP",
                              "DRAW_DISCARD", "STAY_IN", "NAME_SUIT", "DEALER_DISCARD", "name_suit", "exchange_of",
                              "pass_cards", "pass_of"})
"""Names of one game's words or phases, which no identifier of the core may be."""
GAME_STRINGS = re.compile(r"\b(bid|order-up|double-nil|order_up|name_trump|drop_out|ORDER_UP|NAME_TRUMP|DROP_OUT"
                          r"|REVEAL|DOUBLE_NIL|reveal|keep|stay|drop)\b")
"""Game words no string of the core (but a docstring) may hold."""


def _docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    """The (line, column) where each docstring of a module, class or function starts."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                out.add((first.value.lineno, first.value.col_offset))
    # an attribute's docstring: a string statement right after an assignment (``X = 1`` then ``\"\"\"...\"\"\"``)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for before, after in zip(body, body[1:], strict=False):
                if (isinstance(before, ast.Assign | ast.AnnAssign) and isinstance(after, ast.Expr)
                        and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
                    out.add((after.value.lineno, after.value.col_offset))
    return out


ALLOWED = {"views.py": ["identifier bid"]}
"""The game words the core keeps, by file, each once: ``SeatInfo.bid``, the view's field for a
seat's trick bid (a fact of the shared view that the wire carries, not an action word)."""


def game_words_in(source: str) -> list[str]:
    """Where the source names a game's word: an identifier of :data:`GAME_IDENTIFIERS`, or a string
    (not a docstring, not a comment) holding a word of :data:`GAME_STRINGS`."""
    docstrings = _docstrings(ast.parse(source))
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string in GAME_IDENTIFIERS:
            found.append(f"line {token.start[0]}: identifier {token.string}")
        elif token.type == tokenize.STRING and token.start not in docstrings:
            match = GAME_STRINGS.search(token.string)
            if match:
                found.append(f"line {token.start[0]}: string {match.group(0)!r}")
        elif token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):   # Python 3.12: f-strings come in parts
            match = GAME_STRINGS.search(token.string)
            if match:
                found.append(f"line {token.start[0]}: string {match.group(0)!r}")
    return found


def test_the_check_finds_game_words_but_not_in_docstring_examples():
    source = '''"""A module.

>>> Word(5, "bid", Shape.NUMBER)  # an example
"""

EXAMPLE = 3
"""An attribute's docstring naming order-up."""


def f(x):
    """Say "double-nil"."""
    # a comment naming REVEAL
    REVEAL = 2
    return x + "order-up" + f"{x} bid"
'''
    found = game_words_in(source)
    assert len(found) == 3, found
    assert any("identifier REVEAL" in f for f in found)
    assert any("'order-up'" in f for f in found)
    assert any("'bid'" in f for f in found)
    assert game_words_in('def g(bids, NO_BID):\n    return "the bids"\n') == []
    assert game_words_in("def g(bid):\n    return bid\n") != []


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_the_core_names_no_games_word(path):
    found = game_words_in(path.read_text())
    for allowed in ALLOWED.get(path.name, []):
        found.remove(next(f for f in found if f.endswith(": " + allowed)))
    assert not found, f"{path.name} names a game's word: " + "; ".join(found)


def test_the_core_files_are_checked():
    names = {p.name for p in CORE.glob("*.py")}
    assert {"actions.py", "vocabulary.py", "table.py", "rules.py", "views.py"} <= names


def test_stray_game_words_are_not_in_the_core_package():
    import engine.core.actions as actions

    for name in GAME_IDENTIFIERS | {"Kind", "action_name", "parse_action", "exchange"}:
        assert not hasattr(actions, name), name
        assert not hasattr(core_table, name), name
    for name in ("REVEAL", "DOUBLE_NIL", "ORDER_UP", "PASS", "STAY_IN", "DROP_OUT", "Kind", "bid", "action_name",
                 "parse_action", "name_suit", "exchange", "pass_cards"):
        assert not hasattr(engine, name), name
    assert REVEAL and DOUBLE_NIL and ORDER_UP   # they live with their games
