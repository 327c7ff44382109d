"""The Python client's GetHistory pages against a live server on Redis: get_history takes
after_version and page_size, history_entries walks every page into the whole log, and page sizes
out of bounds are refused as InvalidArgument."""

from __future__ import annotations

import pytest

from cardgame import errors
from cardgame.client import GameClient, GameView
from cardgame.v1 import enums_pb2 as enums

BOTS = [("West", "basic"), ("North", "basic"), ("East", "basic")]


def _played(client: GameClient) -> str:
    """A Buck Euchre game of one human (seat 0, the first dealer) against three bots, played to its end
    with the seat's first legal action each time; its id."""
    created = client.create_game("buck-euchre", ["Ann", *BOTS], options={"starting_score": 5}, first_dealer=0,
                                 shuffle_seed=7)
    seat = client.with_token(created.tokens[0])
    view: GameView = seat.get_game(created.game_id)
    for _ in range(3000):
        if view.phase == enums.PHASE_GAME_OVER:
            return created.game_id
        view = seat.act(view, view.legal_actions[0])
    raise AssertionError("the game did not end")


def test_history_entries_walks_every_page_into_the_whole_log(client, monkeypatch):
    game_id = _played(client)
    whole = client.get_history(game_id)
    assert whole.next_page_token == "" and len(whole.entries) > 14
    asked: list[tuple[str, int]] = []
    send = client.send

    def recording(method, request, **kwargs):
        if method == "GetHistory":
            asked.append((request.page_token, request.page_size))
        return send(method, request, **kwargs)

    monkeypatch.setattr(client, "send", recording)
    assert list(client.history_entries(game_id, page_size=7)) == list(whole.entries)
    pages = -(-len(whole.entries) // 7)
    assert [size for _, size in asked] == [7] * pages and asked[0][0] == ""
    assert all(token for token, _ in asked[1:])
    asked.clear()
    assert list(client.history_entries(game_id)) == list(whole.entries) and asked == [("", 0)]
    first = client.get_history(game_id, page_size=4)
    page = client.get_history(game_id, page_size=3, page_token=first.next_page_token)
    assert list(page.entries) == list(whole.entries[4:7]) and page.next_page_token


@pytest.mark.parametrize("fields", [{"page_size": -1}, {"page_token": "not-a-token"}])
def test_page_sizes_out_of_bounds_are_invalid_argument(client, fields):
    created = client.create_game("buck-euchre", ["Ann", *BOTS], first_dealer=0)
    with pytest.raises(errors.InvalidArgument):
        client.get_history(created.game_id, **fields)
    if "page_size" in fields:
        with pytest.raises(errors.InvalidArgument):
            list(client.history_entries(created.game_id, **fields))
