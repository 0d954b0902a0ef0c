"""Users and tokens: made whole or not at all, one-line errors naming what is wrong, and a token that is
unknown, expired or revoked never authenticates."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from bifrost.app.facade import Bifrost
from bifrost.app.team.users import Users
from bifrost.core.access import ALL_CORPORA, Role, Unauthenticated
from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.core.settings import Settings


@pytest.fixture
def users(tmp_path) -> Users:
    bf = Bifrost(Settings(home=tmp_path / "home"))
    bf.sql.ensure_corpus("osha-1926", "us-cfr")
    bf.sql.ensure_corpus("adgm", "adgm")
    yield bf.users
    bf.close()


def test_a_user_gets_a_token_that_authenticates_to_their_role_and_corpora(users):
    token = users.add("rita", "reader", ["osha-1926"])
    who = users.authenticate(token.secret)
    assert (who.user, who.role, who.corpora, who.token_id) == ("rita", Role.READER, ("osha-1926",), token.id)
    assert who.may_read("osha-1926") and not who.may_read("adgm")


def test_all_means_every_corpus_now_and_later(users):
    token = users.add("ada", "admin", ["all"])
    assert users.authenticate(token.secret).corpora == (ALL_CORPORA,)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("bob", "owner", ["osha-1926"]), "unknown role 'owner'"),
        (("bob", "reader", ["nope"]), "unknown corpus 'nope'"),
        (("bad name!", "reader", ["all"]), "user name 'bad name!'"),
        (("bob", "reader", []), "--corpus"),
    ],
)
def test_a_bad_role_corpus_or_name_is_one_line_and_creates_nothing(users, args, says):
    with pytest.raises(BifrostError, match=says) as e:
        users.add(*args)
    assert "\n" not in str(e.value)
    assert users.list() == []


def test_a_bad_rate_limit_creates_nothing(users):
    with pytest.raises(BifrostError, match="--rate-limit"):
        users.add("bob", "reader", ["all"], rate_limit="lots")
    assert users.list() == []


def test_adding_a_user_twice_is_refused_and_keeps_the_first(users):
    first = users.add("rita", "reader", ["all"])
    with pytest.raises(BifrostError, match="exists"):
        users.add("rita", "admin", ["all"])
    assert users.authenticate(first.secret).role is Role.READER


def test_the_listing_never_holds_a_secret(users):
    token = users.add("rita", "reader", ["all"])
    listed = users.list()[0].model_dump_json()
    assert token.secret not in listed and token.secret.split("_", 2)[2] not in listed and token.id in listed


@pytest.mark.parametrize("text", ["", "nonsense", "bft_0123456789ab_" + "x" * 43])
def test_unknown_or_malformed_tokens_are_refused(users, text):
    users.add("rita", "reader", ["all"])
    with pytest.raises(Unauthenticated, match="not valid"):
        users.authenticate(text)


def test_a_right_id_with_a_wrong_secret_is_refused(users):
    token = users.add("rita", "reader", ["all"])
    forged = token.secret[:-4] + ("AAAA" if not token.secret.endswith("AAAA") else "BBBB")
    with pytest.raises(Unauthenticated, match="not valid"):
        users.authenticate(forged)


def test_a_revoked_token_stops_at_once_and_the_others_go_on(users):
    first = users.add("rita", "reader", ["all"])
    second = users.new_token("rita")
    users.authenticate(first.secret)  # remembered by this process: revocation must still hold
    assert users.revoke("rita", first.id) == 1
    with pytest.raises(Unauthenticated, match="revoked"):
        users.authenticate(first.secret)
    assert users.authenticate(second.secret).token_id == second.id


def test_an_expired_token_is_refused(tmp_path):
    now = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    bf = Bifrost(Settings(home=tmp_path / "home"))
    users = Users(bf.sql, bf.corpora, clock=lambda: now[0])
    token = users.add("rita", "reader", ["all"], expires_days=1)
    assert users.authenticate(token.secret).user == "rita"
    now[0] += timedelta(days=1, seconds=1)
    with pytest.raises(Unauthenticated, match="expired"):
        users.authenticate(token.secret)
    assert not users.any()
    bf.close()


def test_removing_a_user_ends_their_tokens(users):
    token = users.add("rita", "reader", ["all"])
    users.remove("rita")
    with pytest.raises(Unauthenticated):
        users.authenticate(token.secret)
    with pytest.raises(NotFoundError, match="unknown user 'rita'"):
        users.remove("rita")
