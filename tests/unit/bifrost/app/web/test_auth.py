"""A served home with tokens on: every door (pages, JSON API, graph pictures, records) refuses a request
with no token, a wrong one, an expired one (401), and one scoped to another corpus (403), and nothing of
the other corpus is in any body; a login sets a session whose forms need its CSRF value; roles hold."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from bifrost.app.facade import Bifrost
from bifrost.app.web.app import create_app
from bifrost.core.settings import Settings
from bifrost.core.store.sql_models import TokenRow, utcnow
from tests.unit.mini_corpus import MARKER, MINI, build_corpus, write_marked_corpus

Q = "What must an employee constructing a leading edge be protected by?"


@dataclass
class Served:
    """An app with tokens on over two corpora: ``mini`` and ``secret`` (whose words carry `MARKER`)."""

    bf: Bifrost
    client: TestClient
    tokens: dict[str, str]
    secret_record: str
    mini_record: str
    mini: str = "mini"
    secret: str = "secret"

    def __iter__(self):  # bf, client, tokens, secret_record, mini_record
        return iter((self.bf, self.client, self.tokens, self.secret_record, self.mini_record))


def serve_two_corpora(bf: Bifrost, root, mini: str = "mini", secret: str = "secret") -> Served:
    """Build both corpora in ``bf``'s stores, add the users, and an app that checks tokens."""
    build_corpus(bf, mini, MINI)
    build_corpus(bf, secret, write_marked_corpus(root))
    tokens = {
        "reader": bf.users.add("rita", "reader", [mini]).secret,
        "reviewer": bf.users.add("rev", "reviewer", [mini]).secret,
        "admin": bf.users.add("ada", "admin", ["all"]).secret,
        "expired": bf.users.add("old", "admin", ["all"], expires_days=1).secret,
        "revoked": bf.users.add("gone", "admin", ["all"]).secret,
    }
    with bf.sql.session() as s:
        s.execute(
            update(TokenRow).where(TokenRow.user == "old").values(expires_at=utcnow() - timedelta(minutes=1))
        )
    bf.users.revoke("gone")
    app = create_app(bf, require_auth=True)
    client = TestClient(app)
    client.app_under_test = app
    admin = {"Authorization": f"Bearer {tokens['admin']}"}
    secret_record = client.post(
        "/api/ask", json={"question": "anchorage inspection", "corpus": secret}, headers=admin
    ).json()["record_id"]
    mini_record = client.post("/api/ask", json={"question": Q, "corpus": mini}, headers=admin).json()[
        "record_id"
    ]
    return Served(bf, client, tokens, secret_record, mini_record, mini, secret)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("auth")
    bf = Bifrost(Settings(home=root / "home"))
    yield serve_two_corpora(bf, root)
    bf.close()


def from_address(client: TestClient, address: str) -> TestClient:
    """Another client of the same app, from its own address (failed attempts are limited per address)."""
    return TestClient(client.app_under_test, client=(address, 50000))


def doors(served: Served) -> list[tuple[str, str, dict | None]]:
    """Every route that reads a corpus, aimed at the `secret` corpus (method, path, JSON body)."""
    pid = quote("1926.504(a)(1)", safe="")
    secret, mini, secret_record = served.secret, served.mini, served.secret_record
    return [
        ("GET", "/", None),
        ("GET", f"/?corpus={secret}", None),
        ("GET", f"/ask?q=anchorage+inspection&corpus={secret}", None),
        ("GET", "/ask?q=anchorage+inspection&corpus=all", None),
        ("GET", f"/provision/{secret}/{pid}", None),
        ("GET", f"/entity/{secret}/anchorage", None),
        ("GET", "/answers", None),
        ("GET", f"/answers/{secret_record}", None),
        ("POST", "/api/ask", {"question": "anchorage inspection", "corpus": secret}),
        ("POST", "/api/ask", {"question": "anchorage inspection", "corpus": f"{mini},{secret}"}),
        ("GET", f"/api/provision/{secret}/{pid}", None),
        ("GET", "/api/answers", None),
        ("GET", f"/api/answers/{secret_record}", None),
        ("POST", f"/api/answers/{secret_record}/replay", None),
        ("POST", f"/api/answers/{secret_record}/review", {"right": []}),
        ("GET", "/api/users", None),
        ("GET", "/openapi.json", None),
        ("GET", "/docs", None),
    ]


def call(client: TestClient, method: str, path: str, body: dict | None, headers: dict[str, str]):
    return client.request(method, path, json=body, headers=headers)


def leaks(r, path: str) -> bool:
    """Whether a body shows anything of the `secret` corpus beyond the path the caller asked for itself
    (a login form sends the caller back to it)."""
    from html import unescape
    from urllib.parse import unquote

    body = unescape(r.text).replace(unquote(path), "").replace(path, "")
    return MARKER in body or "1926.504" in body


CREDENTIALS = ["none", "wrong", "malformed", "expired", "revoked", "basic"]


@pytest.mark.parametrize("credential", CREDENTIALS)
def test_no_door_opens_without_a_live_token(served, credential):
    check_no_door_opens(served, credential)


def check_no_door_opens(served: Served, credential: str) -> None:
    bf, client, tokens, secret_record, _ = served
    headers = {
        "none": {},
        "wrong": {"Authorization": "Bearer bft_0123456789ab_" + "x" * 43},
        "malformed": {"Authorization": "Bearer hello"},
        "expired": {"Authorization": f"Bearer {tokens['expired']}"},
        "revoked": {"Authorization": f"Bearer {tokens['revoked']}"},
        "basic": {"Authorization": "Basic YWRhOmFkYQ=="},
    }[credential]
    client = from_address(client, f"10.0.0.{len(credential)}{ord(credential[0])}")
    for method, path, body in doors(served):
        r = call(client, method, path, body, headers)
        assert r.status_code == 401, (method, path, r.status_code)
        assert not leaks(r, path), (method, path)
        assert "bft_" not in r.text  # a token is never echoed
        assert r.headers["www-authenticate"].startswith("Bearer")


def test_a_token_for_one_corpus_reads_nothing_of_another(served):
    check_other_corpus_closed(served)


def check_other_corpus_closed(served: Served) -> None:
    bf, client, tokens, secret_record, _ = served
    client.cookies.clear()
    headers = {"Authorization": f"Bearer {tokens['reader']}"}
    secret = served.secret
    open_paths = (
        "/",
        "/ask?q=anchorage+inspection&corpus=all",
        "/answers",
        "/api/answers",
        f"/?corpus={secret}",
    )
    for method, path, body in doors(served):
        r = call(client, method, path, body, headers)
        assert not leaks(r, path), (method, path)
        if path in open_paths:
            assert r.status_code == 200, (method, path)  # their own corpus and records only
        elif path.startswith(("/openapi.json", "/docs")):
            assert r.status_code == 200
        elif path.startswith(f"/api/answers/{secret_record}") or path == f"/answers/{secret_record}":
            assert r.status_code in (403, 404), (method, path)  # no record of theirs
        else:
            assert r.status_code == 403, (method, path, r.status_code)
    assert client.get("/api/health", headers=headers).json()["corpora"] == [served.mini]


def test_health_is_open_and_names_no_corpus_to_a_stranger(served):
    _, client, _, _, _ = served
    client.cookies.clear()
    r = client.get("/api/health")
    assert r.status_code == 200 and r.json()["corpora"] == [] and "secret" not in r.text


def test_roles_reader_asks_reviewer_reviews_admin_lists_users(served):
    bf, client, tokens, _, mini_record = served
    client.cookies.clear()
    reader, reviewer = ({"Authorization": f"Bearer {tokens[k]}"} for k in ("reader", "reviewer"))
    asked = client.post("/api/ask", json={"question": Q, "corpus": "mini"}, headers=reader).json()
    cited = [c["id"] for c in asked["citations"]]
    r = client.post(f"/api/answers/{asked['record_id']}/review", json={"right": cited[:1]}, headers=reader)
    assert r.status_code == 403 and "reviewer role" in r.json()["message"]
    r = client.post(f"/api/answers/{asked['record_id']}/review", json={"right": cited[:1]}, headers=reviewer)
    assert r.status_code == 200 and r.json()["reviewer"] == "rev"
    assert client.get("/api/users", headers=reviewer).status_code == 403
    users = client.get("/api/users", headers={"Authorization": f"Bearer {tokens['admin']}"})
    assert users.status_code == 200 and {u["name"] for u in users.json()} >= {"rita", "rev", "ada"}
    assert not any(t in users.text for t in tokens.values())


def test_a_login_sets_a_session_and_its_forms_need_the_csrf_value(served):
    bf, client, tokens, _, _ = served
    client.cookies.clear()
    page = client.get("/ask?q=leading+edge")
    assert page.status_code == 401 and 'action="/login"' in page.text
    r = client.post("/login", data={"token": "bft_wrong", "next": "/"}, follow_redirects=False)
    assert r.status_code == 401 and "Login failed" in r.text
    r = client.post(
        "/login", data={"token": tokens["reviewer"], "next": "https://evil.example/"}, follow_redirects=False
    )
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    results = client.get("/ask", params={"q": Q, "corpus": "mini"})
    assert results.status_code == 200 and "Review this answer" in results.text and "Log out" in results.text
    record_id = results.text.split('href="/answers/')[1].split('"')[0]
    form = {"mark-1926.501(b)(2)(i)": "right", "added": "", "team": "site"}
    assert client.post(f"/answers/{record_id}/review", data=form).status_code == 403  # no CSRF value
    csrf = results.text.split('name="csrf" value="')[1].split('"')[0]
    r = client.post(
        f"/answers/{record_id}/review",
        data={**form, "csrf": csrf},
        headers={"Origin": "https://evil.example"},
        follow_redirects=False,
    )
    assert r.status_code == 403  # another site's form
    r = client.post(f"/answers/{record_id}/review", data={**form, "csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/answers/{record_id}?reviewed=1"
    assert any(rv.reviewer == "rev" and rv.team == "site" for rv, _ in bf.reviews("mini"))
    client.post("/logout", data={"csrf": csrf})
    client.cookies.clear()
    assert client.get("/answers").status_code == 401


def test_a_revoked_token_ends_its_web_sessions(served):
    bf, client, _, _, _ = served
    token = bf.users.add("temp", "reader", ["mini"])
    client.cookies.clear()
    assert (
        client.post("/login", data={"token": token.secret, "next": "/"}, follow_redirects=False).status_code
        == 303
    )
    assert client.get("/answers").status_code == 200
    bf.users.revoke("temp")
    r = client.get("/answers")
    assert r.status_code == 401 and "revoked" in r.text
    client.cookies.clear()


def test_a_forged_session_cookie_is_no_session(served):
    _, client, _, _, _ = served
    client.cookies.clear()
    client.cookies.set("bifrost_session", "eyJ0IjoiYWJjIiwiYyI6ImQifQ.forged.sig")
    assert client.get("/answers").status_code == 401
    client.cookies.clear()


def test_every_response_carries_the_security_headers(served):
    _, client, tokens, _, _ = served
    client.cookies.clear()
    for path in ("/", "/api/health", "/static/style.css", "/login"):
        r = client.get(path, headers={"Authorization": f"Bearer {tokens['reader']}"})
        assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
        assert r.headers["referrer-policy"] == "same-origin"
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert client.get("/api/health").headers["cache-control"] == "no-store"


def test_authentication_off_is_todays_single_user(served):
    bf, _, _, _, _ = served
    local = TestClient(create_app(bf))
    r = local.post("/api/ask", json={"question": Q, "corpus": "mini"})
    assert r.status_code == 200 and r.json()["record_id"]
    assert (
        bf.answer_log.get(r.json()["record_id"], bf.users.authenticate(served.tokens["admin"])).user
        == "local"
    )


def test_failed_attempts_from_one_address_are_limited(served):
    client = from_address(served.client, "10.9.9.9")
    codes = [
        client.get(
            "/api/answers", headers={"Authorization": "Bearer bft_0123456789ab_" + "y" * 43}
        ).status_code
        for _ in range(25)
    ]
    assert codes[:20] == [401] * 20 and 429 in codes[20:]


def test_the_corpus_menu_chooses_every_rulebook_for_whoever_reads_several_and_keeps_a_narrower_choice(served):
    import re

    bf, client, tokens, _secret_record, _mini_record = served
    client.cookies.clear()
    admin = {"Authorization": f"Bearer {tokens['admin']}"}
    chosen = lambda html: re.findall(r'<option value="([^"]+)" selected>', html)  # noqa: E731
    page = client.get("/", headers=admin).text
    assert chosen(page) == ["all"] and re.search(
        r'<option value="all" selected>every rulebook</option>', page
    )
    assert "searched in <strong>every rulebook</strong>" in page
    assert "What must an employee constructing a leading edge be protected by?" in page  # mini's example
    assert chosen(client.get("/?corpus=mini", headers=admin).text) == ["mini"]
    asked = client.get("/ask?q=anchorage+inspection&corpus=all", headers=admin)
    assert asked.status_code == 200 and chosen(asked.text) == [
        "all"
    ]  # the results keep every rulebook chosen
    # a reader of one corpus sees no menu at all, so no "every rulebook" beyond their scope
    reader = client.get("/", headers={"Authorization": f"Bearer {tokens['reader']}"}).text
    assert "every rulebook" not in reader
