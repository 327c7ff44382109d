"""The strong (search) bot through a running server: a whole game with strong seats, its moves
committed with the human move that handed them the turn, and other calls answered while it thinks
(its turns run in worker processes, off the server's event loop)."""

from __future__ import annotations

import random
import uuid

from cardgame.moves import notation_for
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from tests.support.players import acting_seat, auth, choose, create, tokens_of

MAX_MOVES = 400


def test_game_with_strong_bots_and_calls_answered_while_they_think(stub):
    rng = random.Random(5)
    kinds = [enums.PLAYER_KIND_HUMAN] + [enums.PLAYER_KIND_BOT_STRONG] * 3
    options = options_pb2.RuleOptions(buck_euchre=options_pb2.BuckEuchreOptions(starting_score=5))
    created = create(stub, "buck_euchre", kinds, options=options, first_dealer=0, shuffle_seed=11)
    game_id, tokens = created.game_id, tokens_of(created)
    assert [s.kind for s in created.view.seats][1:] == [enums.PLAYER_KIND_BOT_STRONG] * 3
    answered_while_thinking = 0
    for _ in range(MAX_MOVES):
        seat, view = acting_seat(stub, game_id, tokens)
        if seat is None:
            break
        before = view.version
        request = pb.ActRequest(game_id=game_id, action=notation_for(choose(view, rng), rng=rng),
                                request_id=uuid.uuid4().hex)
        move = stub.Act.future(request, metadata=auth(tokens[seat]), timeout=60)
        seen = []
        while not move.done():
            seen.append(stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=10).view.version)
        after = move.result().view
        # the move and the bot turns it handed over land in one commit: never a version between
        assert set(seen) <= {before, after.version}, (before, after.version, seen)
        answered_while_thinking = max(answered_while_thinking, seen.count(before))
        assert stub.GetGame(pb.GetGameRequest(game_id=game_id)).view.version == after.version
    else:
        raise AssertionError("the game did not end")
    score = stub.GetScore(pb.GetScoreRequest(game_id=game_id))
    assert len(score.winner_seats) == 1 and score.hands
    # the strong bots thought for more than a few GetGame round trips at least once, and the
    # server answered those calls meanwhile, before the commit (a blocked event loop would answer
    # at most the one call that got in before the move)
    assert answered_while_thinking >= 3, answered_while_thinking
