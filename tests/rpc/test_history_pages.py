"""GetHistory in pages through real channels against real Redis: pages of a whole game join into
the unpaged answer entry for entry, whichever instance serves each page; page sizes out of bounds
are refused and change nothing; and during play a page hides the open hand's deck and exchanged
cards exactly as the unpaged answer does."""

from __future__ import annotations

import random

import grpc
import pytest

from cardgame.moves import notation_for
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from service.rpc import apikeys
from tests.rpc.conftest import instances, stubs_of
from tests.support.players import acting_seat, auth, choose, play_to_end

KEY, ENTRY = apikeys.new_key("history-pages")
BASIC = enums.PLAYER_KIND_BOT_BASIC
PAGE = 7


@pytest.fixture(scope="module")
def stubs(redis_url: str, module_prefix: str):
    """Stubs of two instances on one Redis and prefix, with an API key."""
    with instances(2, "--create-burst", "100", "--create-rate", "100", redis_url=redis_url, prefix=module_prefix,
                   env={"CARDGAME_API_KEYS": ENTRY}) as servers, stubs_of(servers) as stubs:
        yield stubs


def _new(stub, variant: str, seed: int, **options) -> tuple[str, dict[int, str]]:
    """A game of one human (seat 0, the first dealer) against three basic bots: its id and token."""
    seats = [pb.SeatConfig(name="you")] + [pb.SeatConfig(name=f"bot {i}", kind=BASIC) for i in (1, 2, 3)]
    rules = (options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(**options)) if variant == "spades"
             else options_pb2.RuleOptions(buck_euchre=options_pb2.BuckEuchreOptions(**options)))
    created = stub.CreateGame(pb.CreateGameRequest(variant_name=variant, seats=seats, options=rules, first_dealer=0,
                                                   shuffle_seed=seed), metadata=[("x-api-key", KEY)], timeout=10)
    return created.game_id, {t.seat: t.token for t in created.seat_tokens}


def _pages(stubs, game_id: str, page_size: int, token: str | None = None) -> list[pb.GetHistoryResponse]:
    """Every page of the game's history from the start by page tokens (AIP-158), each from the next
    instance in turn."""
    pages, page_token = [], ""
    for i in range(10_000):
        page = stubs[i % len(stubs)].GetHistory(
            pb.GetHistoryRequest(game_id=game_id, page_token=page_token, page_size=page_size),
            metadata=auth(token), timeout=10)
        pages.append(page)
        page_token = page.next_page_token
        assert bool(page_token) == bool(page.next_after_version)   # the deprecated field still says the same
        if not page_token:
            return pages
    raise AssertionError("the pages never ended")


def _check_pages(pages: list[pb.GetHistoryResponse], whole: pb.GetHistoryResponse, page_size: int) -> None:
    """The pages are full but the last, each continues where the one before ended, and together they
    are the whole answer, entry for entry."""
    for page in pages:
        assert (page.variant_name, page.options_json, page.first_dealer, page.version) == (
            whole.variant_name, whole.options_json, whole.first_dealer, whole.version)
    for page in pages[:-1]:
        assert len(page.entries) == page_size and page.next_after_version == page.entries[-1].version
    assert pages[-1].next_after_version == 0 and 0 < len(pages[-1].entries) <= page_size
    joined = [entry for page in pages for entry in page.entries]
    assert len(joined) == len(whole.entries)
    for mine, theirs in zip(joined, whole.entries, strict=True):
        assert mine == theirs


def test_the_pages_of_a_whole_game_join_into_the_unpaged_answer(stubs):
    game_id, tokens = _new(stubs[0], "buck_euchre", seed=41)
    play_to_end(stubs[0], game_id, tokens, random.Random(41))
    whole = stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id), timeout=10)
    assert whole.next_after_version == 0  # a game this size is one default page, as before paging
    assert [e.version for e in whole.entries] == list(range(2, whole.version + 1))
    assert all(e.deck for e in whole.entries if e.action == "deal") and len(whole.entries) > 10 * PAGE
    pages = _pages(stubs, game_id, PAGE)
    assert len(pages) == -(-len(whole.entries) // PAGE)
    _check_pages(pages, whole, PAGE)
    _check_pages(_pages(stubs, game_id, PAGE, token=tokens[0]), whole, PAGE)  # the seat sees the same
    assert stubs[0].GetHistory(pb.GetHistoryRequest(game_id=game_id, page_size=5000), timeout=10) == whole
    assert stubs[0].GetHistory(pb.GetHistoryRequest(game_id=game_id, after_version=1), timeout=10) == whole
    middle = stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id, after_version=20, page_size=3), timeout=10)
    assert list(middle.entries) == list(whole.entries[19:22]) and middle.next_after_version == 23
    for after in (whole.version - 1, whole.version, whole.version + 100, 2**62):
        tail = stubs[0].GetHistory(pb.GetHistoryRequest(game_id=game_id, after_version=after), timeout=10)
        assert list(tail.entries) == list(whole.entries[after - 1:]) and tail.next_after_version == 0
        assert tail.version == whole.version and tail.variant_name == "buck_euchre"


def test_negative_bounds_are_invalid_argument_and_change_nothing_and_large_pages_are_capped(stubs):
    game_id, tokens = _new(stubs[0], "buck_euchre", seed=42)
    before = stubs[0].GetHistory(pb.GetHistoryRequest(game_id=game_id), timeout=10)
    version = stubs[0].GetGame(pb.GetGameRequest(game_id=game_id), timeout=10).view.version
    bad = [({"page_size": -1}, "page_size"), ({"page_size": -2**31}, "page_size"),
           ({"after_version": -1}, "after_version"), ({"after_version": 2, "page_size": -7}, "page_size")]
    for fields, named in bad:
        for token in (None, tokens[0]):
            with pytest.raises(grpc.RpcError) as refused:
                stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id, **fields), metadata=auth(token), timeout=10)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, fields
            assert named in refused.value.details(), refused.value.details()
    with pytest.raises(grpc.RpcError) as unknown:  # bounds are checked before the game is looked up
        stubs[0].GetHistory(pb.GetHistoryRequest(game_id="0" * 24, page_size=-1), timeout=10)
    assert unknown.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert stubs[0].GetGame(pb.GetGameRequest(game_id=game_id), timeout=10).view.version == version
    assert stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id), timeout=10) == before
    for size in (5000, 5001, 2**31 - 1):     # more than the most a page holds: the most
        assert stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id, page_size=size), timeout=10) == before


def _into_the_second_hand(stub, game_id: str, tokens: dict[int, str]) -> None:
    """Play until the second hand's tricks (the human bids Double Nil there when offered, so its
    exchange with its partner is part of the open hand)."""
    rng = random.Random(43)
    for _ in range(2000):
        seat, view = acting_seat(stub, game_id, tokens)
        assert seat is not None, "the game ended before its second hand"
        if view.hand_number == 2 and view.phase == enums.PHASE_PLAY:
            return
        double_nil = [a for a in view.legal_actions if a.kind == enums.ACTION_KIND_DOUBLE_NIL]
        action = double_nil[0] if view.hand_number == 2 and double_nil else choose(view, rng)
        stub.Act(pb.ActRequest(game_id=game_id, action=notation_for(action, rng=rng)),
                 metadata=auth(tokens[seat]), timeout=10)
    raise AssertionError("the second hand's tricks never came")


def test_during_play_a_page_hides_the_open_hand_exactly_as_the_unpaged_answer(stubs):
    game_id, tokens = _new(stubs[0], "spades", seed=44, target_score=200)
    _into_the_second_hand(stubs[0], game_id, tokens)
    whole = stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id), timeout=10)
    assert whole.next_after_version == 0
    deals = [e for e in whole.entries if e.action == "deal"]
    assert len(deals) == 2 and deals[0].deck and deals[0].salt and not deals[1].deck and not deals[1].salt
    open_hand = [e for e in whole.entries if e.version >= deals[1].version]
    exchanges = [e for e in open_hand if e.action.startswith("exchange")]
    assert exchanges and all(e.action == "exchange" for e in exchanges)  # the cards stay hidden
    assert stubs[0].GetGame(pb.GetGameRequest(game_id=game_id), timeout=10).view.version == whole.version
    for token in (None, tokens[0]):
        _check_pages(_pages(stubs, game_id, PAGE, token=token), whole, PAGE)
    alone = stubs[0].GetHistory(pb.GetHistoryRequest(game_id=game_id, after_version=deals[1].version - 1,
                                                      page_size=1), timeout=10)
    assert list(alone.entries) == [deals[1]] and alone.next_after_version == deals[1].version
    first = stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id, page_size=deals[1].version - 2), timeout=10)
    assert list(first.entries) == list(whole.entries[:deals[1].version - 2]) and first.entries[0].deck
    assert first.next_after_version == deals[1].version - 1
    play_to_end(stubs[0], game_id, tokens, random.Random(45))
    after = stubs[0].GetHistory(pb.GetHistoryRequest(game_id=game_id), timeout=10)
    assert all(e.deck for e in after.entries if e.action == "deal")
    shown = [e for e in after.entries if e.version in {x.version for x in exchanges}]
    assert all(len(e.action.split()) > 1 for e in shown)  # the game is over: the exchanged cards too


def test_page_tokens_continue_like_the_deprecated_after_version_and_belong_to_their_game(stubs):
    game_id, tokens = _new(stubs[0], "buck_euchre", seed=43)
    play_to_end(stubs[0], game_id, tokens, random.Random(43))
    other_id, _ = _new(stubs[0], "buck_euchre", seed=44)
    first = stubs[0].GetHistory(pb.GetHistoryRequest(game_id=game_id, page_size=3), timeout=10)
    assert first.next_page_token and first.next_after_version == first.entries[-1].version
    by_token = stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id, page_size=3,
                                                        page_token=first.next_page_token), timeout=10)
    by_version = stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game_id, page_size=3,
                                                          after_version=first.next_after_version), timeout=10)
    assert by_token == by_version and by_token.entries[0].version == first.entries[-1].version + 1
    score_token = stubs[0].GetScore(pb.GetScoreRequest(game_id=game_id, page_size=1), timeout=10).next_page_token
    for foreign in (first.next_page_token, "not-a-token", score_token or "c2NvcmU6MQ=="):
        target = other_id if foreign == first.next_page_token else game_id
        with pytest.raises(grpc.RpcError) as refused:
            stubs[0].GetHistory(pb.GetHistoryRequest(game_id=target, page_token=foreign), timeout=10)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "page_token is not one that GetHistory returned" in refused.value.details()
