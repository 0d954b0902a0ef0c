"""`ask --as-of`: a question answered from the edition valid on a date cites and quotes that edition only.

The mini part is ingested as edition A (2024-01-01), then as edition B (2025-01-01), which repeals
1926.502 (reserved) and rewords 1926.501(b)(1). Asked as of a date in A, the answer comes from A's
provisions and texts; asked today, from B; a date before A is a one-line error.
"""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from bifrost.app.cli.app import main_options
from bifrost.app.cli.ask_cmd import ask
from bifrost.app.facade import Bifrost
from bifrost.core.errors import NotFoundError
from bifrost.core.settings import Settings
from bifrost.retrieval.answer.quotes import verifies
from tests.integration.test_editions import DATE_A, DATE_B, edition_b
from tests.conftest import FIXTURES
from tests.unit.mini_corpus import MINI

IN_A = "2024-06-01"
PLAN = "Who shall prepare the fall protection plan?"
FALLING = "Each employee shall be protected from falling"
QUESTIONS = FIXTURES / "mini" / "questions-mini.jsonl"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("ask-as-of")
    bf = Bifrost(Settings(home=root / "home"))
    try:
        for source, date in ((MINI, DATE_A), (edition_b(root / "b"), DATE_B)):
            assert bf.ingest("mini", [source], date=date).files_ok
            bf.build_navigator("mini")
        bf.build_entities("mini", "offline")
    finally:
        bf.close()
    return root / "home"


@pytest.fixture
def bf(home):
    b = Bifrost(Settings(home=home))
    yield b
    b.close()


def assert_only_edition(bf: Bifrost, answer, number: int) -> None:
    """Every citation, quote and retrieved id is a provision of edition ``number``, quoted as it was then."""
    then = {p.id: p for p in bf.sql.provisions_at("mini", number)}
    assert {c.id for c in answer.citations} <= set(then)
    assert {it.id for it in answer.retrieved} <= set(then)
    for c in answer.citations:
        assert c.text == then[c.id].text
    for st in answer.statements:
        for q in st.quotes:
            assert verifies(q, then[q.provision_id]), q


def test_a_question_as_of_edition_a_is_answered_from_the_repealed_section(bf):
    answer = bf.ask(PLAN, "mini", as_of=IN_A)
    assert not answer.refused
    assert "1926.502(b)(1)" in [c.id for c in answer.citations]
    assert any(
        "shall be prepared by a qualified person" in q.text for st in answer.statements for q in st.quotes
    )
    assert (answer.edition.number, answer.edition.date) == (1, DATE_A)
    assert answer.note.startswith(f"as of edition 1 ({DATE_A}): ranked by lexical + dense fusion")
    assert "entity network" in answer.note
    assert_only_edition(bf, answer, 1)


def test_the_same_question_today_never_cites_the_repealed_paragraph(bf):
    answer = bf.ask(PLAN, "mini")
    assert "1926.502(b)(1)" not in [c.id for c in answer.citations]
    assert "1926.502(b)(1)" not in [it.id for it in answer.retrieved]
    assert answer.edition is None and answer.note is None


def test_a_changed_provision_is_quoted_as_it_stood_in_the_edition_asked_for(bf):
    past = bf.ask("Shall each employee be protected from falling?", "mini", as_of=IN_A)
    cited = {c.id: c.text for c in past.citations}
    assert "1926.501(b)(1)" in cited and FALLING + "." in cited["1926.501(b)(1)"]
    assert "guardrail systems or safety net" not in cited["1926.501(b)(1)"]
    assert_only_edition(bf, past, 1)
    now = {p.id: p.text for p in bf.sql.provisions("mini")}
    assert "by guardrail systems" in now["1926.501(b)(1)"]  # the current text differs: the quote above is A's


def test_a_date_in_the_current_edition_answers_exactly_as_without_one(bf):
    plain, dated = bf.ask(PLAN, "mini"), bf.ask(PLAN, "mini", as_of="2026-01-01")
    assert dated.model_dump(exclude={"timings"}) == plain.model_dump(exclude={"timings"})


def test_a_date_before_the_first_edition_is_refused(bf):
    with pytest.raises(
        NotFoundError, match=f"mini has no edition valid on 2023-01-01: its first edition is dated {DATE_A}"
    ):
        bf.ask(PLAN, "mini", as_of="2023-01-01")


def test_the_edition_matrix_is_cached_on_disk_so_a_second_process_does_not_embed_again(home, bf):
    bf.ask(PLAN, "mini", as_of=IN_A)
    past = bf.pipeline.edition_retriever(bf.edition("mini", IN_A))
    cache = past.dense.cache_file
    assert cache and cache.endswith(".npy") and (home / "index" / "mini").is_dir()
    again = Bifrost(Settings(home=home))
    try:
        calls: list[int] = []
        embed = again.embedder.embed
        again.resources.embedder.embed = lambda texts: calls.append(len(texts)) or embed(texts)  # type: ignore[method-assign]
        retr = again.pipeline.edition_retriever(again.edition("mini", IN_A))
        assert retr.dense.cache_file == cache and calls == []
    finally:
        again.close()


# --- the command line ---
def cli() -> typer.Typer:
    root = typer.Typer()
    root.callback()(main_options)
    root.command()(ask)
    return root


def test_cli_prints_the_edition_line_and_json_carries_the_edition(home):
    r = CliRunner().invoke(cli(), ["--home", str(home), "ask", PLAN, "--corpus", "mini", "--as-of", IN_A])
    assert r.exit_code == 0, r.output
    assert f"as of edition 1 ({DATE_A}): ranked by lexical + dense fusion" in r.stdout
    assert "1926.502(b)(1)" in r.stdout
    r = CliRunner().invoke(
        cli(), ["--home", str(home), "ask", PLAN, "--corpus", "mini", "--as-of", IN_A, "--json"]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert (data["edition"]["number"], data["edition"]["date"]) == (1, DATE_A) and data["note"].startswith(
        "as of edition 1"
    )


@pytest.mark.parametrize(
    "when,message",
    [
        ("2023-01-01", f"mini has no edition valid on 2023-01-01: its first edition is dated {DATE_A}"),
        ("yesterday", "--as-of: 'yesterday' is not a date (YYYY-MM-DD)"),
    ],
)
def test_cli_a_bad_or_too_early_date_is_a_one_line_error(home, when, message):
    r = CliRunner().invoke(cli(), ["--home", str(home), "ask", PLAN, "--corpus", "mini", "--as-of", when])
    assert r.exit_code == 1
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1


# --- eval ---
def test_eval_as_of_edition_a_ranks_that_editions_provisions_and_skips_current_only_systems(home, tmp_path):
    from bifrost.app.cli.app import app

    out = tmp_path / "run"
    r = CliRunner().invoke(
        app,
        [
            "--home",
            str(home),
            "eval",
            "--corpus",
            "mini",
            "--questions",
            str(QUESTIONS),
            "--systems",
            "bm25,dense,rrf,bifrost-hybrid,bifrost-ltr",
            "--out",
            str(out),
            "--as-of",
            IN_A,
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    metrics = json.loads(r.stdout)
    assert metrics["meta"]["edition"]["number"] == 1 and metrics["meta"]["edition"]["note"].startswith(
        "as of edition 1"
    )
    assert set(metrics["systems"]) == {"bm25", "dense", "rrf", "bifrost-hybrid"}
    assert "skipped as of edition 1" in metrics["skipped"]["bifrost-ltr"]
    bf = Bifrost(Settings(home=home))
    try:
        in_a = {p.id for p in bf.sql.provisions_at("mini", 1)}
    finally:
        bf.close()
    rows = [json.loads(line) for line in (out / "per_question.jsonl").read_text().splitlines()]
    assert rows and all({pid for pid, *_ in row["ranked"]} <= in_a for row in rows)
    plan = [row for row in rows if row["id"] == "m1" and row["system"] == "bifrost-hybrid"][0]
    # the repealed paragraph, found as of A
    assert "1926.502(b)(1)" in [pid for pid, *_ in plan["ranked"]][:10]


def test_eval_as_of_the_current_edition_is_a_plain_run(home, tmp_path):
    from bifrost.app.cli.app import app

    # the questions whose gold edition B still holds (m1: repealed in B)
    in_b = tmp_path / "questions-b.jsonl"
    in_b.write_text(
        "".join(
            line + "\n"
            for line in QUESTIONS.read_text().splitlines()
            if json.loads(line)["id"] in {"m3", "m5", "m6", "m10"}
        )
    )
    r = CliRunner().invoke(
        app,
        [
            "--home",
            str(home),
            "eval",
            "--corpus",
            "mini",
            "--questions",
            str(in_b),
            "--systems",
            "bm25",
            "--out",
            str(tmp_path / "now"),
            "--as-of",
            "2026-01-01",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "edition" not in json.loads(r.stdout)["meta"]
    r = CliRunner().invoke(
        app,
        [
            "--home",
            str(home),
            "eval",
            "--corpus",
            "mini",
            "--questions",
            str(QUESTIONS),
            "--systems",
            "bm25",
            "--out",
            str(tmp_path / "all"),
            "--json",
        ],
    )
    assert (
        r.exit_code == 1
        and "line 1: question 'm1': gold '1926.502(b)(1)' is not a provision of mini" in r.output
    )
