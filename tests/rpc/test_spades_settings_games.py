"""Whole four-player Spades games at random table settings (RULES.md §1.1), played through Act on
a running server with Redis: every move the seats make is one of their view's legal actions, the
game ends with a winner, and the score records add up to the totals the view shows."""

from __future__ import annotations

import random
import uuid

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from tests.support.players import acting_seat, auth, tokens_of

GAMES = 6
MAX_MOVES = 8000


def random_settings(rng: random.Random) -> dict[str, str]:
    """Settings a table may combine (Suicide, Mirror and Whiz never with a minimum), short games."""
    bidding = rng.choice(["standard", "suicide", "mirror", "whiz"])
    settings = {
        "target_score": "150", "losing_score": rng.choice(["100", "200"]),   # random play may never reach 150
        "trumps": rng.choice(["standard", "jokers", "jokers_deuces"]), "bidding": bidding,
        "nil_exchange": str(rng.randrange(4)), "failed_nil_tricks_count": rng.choice(["true", "false"]),
        "blind_nil_when_behind": rng.choice(["0", "50"]),
    }
    if bidding == "standard":
        settings["min_team_bid"] = rng.choice(["0", "4"])
    return settings


def pick(view, rng: random.Random):
    """A legal action of the view: a low bid when the rules leave a choice (so games end), any
    other legal action otherwise."""
    bids = [a for a in view.legal_actions if a.word == "bid"]
    low = [a for a in bids if 1 <= a.number <= 3]
    if bids:
        return rng.choice(low or bids)
    actions = [a for a in view.legal_actions if a.word not in ("double-nil", "reveal")] or list(view.legal_actions)
    return rng.choice(actions)


def notation(action, rng: random.Random) -> str:
    """What Act takes for a legal action: a card choice takes the fewest cards it allows."""
    if not action.max_cards:
        return action.notation
    return " ".join([action.notation, *rng.sample(list(action.cards), action.min_cards)])


def test_whole_games_at_random_settings_through_act(stub):
    rng = random.Random(32)
    for game in range(GAMES):
        settings = random_settings(rng)
        created = stub.CreateGame(pb.CreateGameRequest(
            variant_name="spades", options=options_pb2.RuleOptions(settings=settings),
            seats=[pb.SeatConfig(name=f"P{i}", kind=enums.PLAYER_KIND_HUMAN) for i in range(4)]))
        assert dict(created.view.options.settings).items() >= settings.items()
        tokens = tokens_of(created)
        jokers = settings["trumps"] != "standard"
        seen_jokers = False
        for _ in range(MAX_MOVES):
            seat, view = acting_seat(stub, created.game_id, tokens)
            if seat is None:
                break
            seen_jokers |= any(card in ("BJ", "LJ") for card in view.hand)
            action = pick(view, rng)
            stub.Act(pb.ActRequest(game_id=created.game_id, action=notation(action, rng),
                                   request_id=uuid.uuid4().hex), metadata=auth(tokens[seat]))
        else:
            raise AssertionError(f"game {game} at {settings} did not end")
        final = stub.GetGame(pb.GetGameRequest(game_id=created.game_id)).view
        score = stub.GetScore(pb.GetScoreRequest(game_id=created.game_id))
        assert final.phase_name == "game_over" and score.HasField("winner_side"), settings
        assert seen_jokers == jokers, settings   # jokers are dealt at, and only at, a jokers table
        for total in score.totals:
            assert total.score == sum(hand.sides[total.side].hand_points for hand in score.hands), settings
        lost = int(settings["losing_score"])
        top = max(total.score for total in score.totals)
        assert top >= 150 or (lost and min(total.score for total in score.totals) <= -lost), settings
        assert score.totals[score.winner_side].score == top
