"""`bifrost mcp` through the real protocol: the SDK's client starts the server as a subprocess
over stdio (and once over streamable HTTP), lists tools and resources and calls each tool on the
small fixture corpus; bad input is an MCP error with the web API's message and the server keeps
serving; stdout carries nothing but protocol messages."""

from __future__ import annotations

import hashlib
import json
import queue
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.conftest import subprocess_env
from tests.integration.mcp_client import SyncMcp, free_port, server_command, stdio_params, wait_for_port
from tests.unit.mini_corpus import SCRIPT_ID, build_corpus, write_script_corpus

pytestmark = pytest.mark.timeout(600)

PLAN_QUESTION = "Who must prepare the fall protection plan?"
INVALID_PARAMS = -32602
from bifrost.app.mcp import ports  # noqa: E402

TOOLS = {"ask", "search", "provision", "neighbours", "entity", "diff", "precedents"}
LETTERS = [
    {
        "id": "loi-plan",
        "title": "Who may prepare a fall protection plan for leading edge work",
        "date": "1999-01-02",
        "url": "https://example.org/loi-plan",
        "cites": ["1926.502(b)(1)", "1910.28"],
    },
    {
        "id": "loi-edge",
        "title": "Guardrails for employees constructing a leading edge",
        "cites": ["1926.501(b)(2)"],
    },
]


@pytest.fixture(scope="module")
def mini_home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mcp")
    bf = Bifrost(Settings(home=root / "home"))
    try:
        build_corpus(bf, "mini", write_script_corpus(root))
        letters = root / "letters.jsonl"
        letters.write_text("\n".join(json.dumps(r) for r in LETTERS) + "\n", encoding="utf-8")
        assert bf.import_precedents(letters, "mini", issuer="OSHA").added == 2
    finally:
        bf.close()
    return root / "home"


@pytest.fixture(scope="module")
def mcp(mini_home) -> SyncMcp:
    """One stdio session for the module (the server loads its models once)."""
    session = SyncMcp(stdio_params(mini_home, "--page-size", "5"))
    yield session
    session.close()


def assert_quotes_verify(mcp: SyncMcp, corpus: str, answer: dict) -> None:
    """Every quote is exactly the provision text between its offsets (text read through `provision`)."""
    for st in answer["statements"]:
        assert st["quotes"] and {q["provision_id"] for q in st["quotes"]} == set(st["citations"])
        for q in st["quotes"]:
            text = mcp.call("provision", id=q["provision_id"], corpus=corpus)["text"]
            assert text[q["start"] : q["end"]] == q["text"]


# --- discovery ---
def test_the_server_lists_seven_read_only_tools_with_their_input_rules(mcp):
    tools = {t.name: t for t in mcp.tools()}
    assert set(tools) == TOOLS == set(ports.TOOLS)  # the list `--help`, the README and the docs give
    assert all(t.annotations.read_only_hint and not t.annotations.destructive_hint for t in tools.values())
    k = tools["search"].input_schema["properties"]["k"]
    assert (k["minimum"], k["maximum"], k["default"]) == (1, 100, 10)
    assert tools["ask"].output_schema and "statements" in tools["ask"].output_schema["properties"]


def test_precedents_are_similar_answered_questions_with_what_they_cite(mcp):
    found = mcp.call("precedents", question="Who prepares the fall protection plan?", corpus="mini", k=1)
    (best,) = found["precedents"]
    assert best["id"] == "loi-plan" and best["issuer"] == "OSHA" and best["resolved"] == ["1926.502(b)(1)"]
    assert best["cites"] == ["1926.502(b)(1)", "1910.28"]  # as written, the one outside the corpus kept
    with pytest.raises(MCPError):
        mcp.call("precedents", question="plan", corpus="mini", k=0)


def test_a_question_naming_a_provision_is_answered_from_it(mcp):
    answer = mcp.call("ask", question="What does 1926.502(b)(1) require?", corpus="mini")
    assert answer["outcome"] == "answered" and answer["citations"][0]["id"] == "1926.502(b)(1)"
    assert answer["named"] == [
        {"written": "1926.502(b)(1)", "target_id": "1926.502(b)(1)", "reason": None, "via": ""}
    ]
    missing = mcp.call("ask", question="What does 1926.502(z)(9) require?", corpus="mini")
    assert "1926.502(z)(9): not found in the current edition of mini" in missing["text"]


def test_what_a_client_browses_is_listed_page_by_page_with_the_sdk_cursor(mcp, mini_home):
    """Parts, subparts, sections and appendices are listed; paragraphs and definitions are read by the
    template."""
    uris, pages, cursor = [], 0, None
    while True:
        page = mcp.resources(cursor)
        uris += [r.uri for r in page.resources]
        pages += 1
        assert len(page.resources) <= 5
        if not (cursor := page.next_cursor):
            break
    bf = Bifrost(Settings(home=mini_home))
    try:
        count = sum(
            p.kind.value in ("part", "subpart", "section", "appendix") for p in bf.sql.provisions("mini")
        )
    finally:
        bf.close()
    assert len(uris) == len(set(uris)) == count and pages == -(-count // 5)
    assert (
        "bifrost://mini/1926.500" in uris and "bifrost://mini/1926.500%28b%29%5BLeading%20edge%5D" not in uris
    )
    assert "Leading edge means" in mcp.read("bifrost://mini/1926.500%28b%29%5BLeading%20edge%5D")


def test_a_provision_is_read_by_its_percent_encoded_uri(mcp):
    [template] = mcp.templates()
    assert template.uri_template == "bifrost://{corpus}/{provision_id}"
    text = mcp.read("bifrost://mini/1926.500%28b%29%5BLeading%20edge%5D")
    assert text.startswith("1926.500(b)[Leading edge]") and "Leading edge means the edge of a floor" in text
    assert "https://www.ecfr.gov/current/title-29/section-1926.500" in text


# --- tools ---
def test_ask_returns_the_answer_with_cited_ids_and_spans_that_verify(mcp):
    answer = mcp.call("ask", question=PLAN_QUESTION, corpus="mini")
    assert answer["mode"] == "extractive" and not answer["refused"] and answer["statements"]
    assert "1926.502(b)(1)" in {c["id"] for c in answer["citations"]}
    assert all(c["uri"].startswith("bifrost://mini/") for c in answer["citations"])
    assert answer["retrieved"][0]["rank"] == 1 and answer["retrieved"][0]["why"]
    assert_quotes_verify(mcp, "mini", answer)


def test_ask_refuses_an_off_topic_question(mcp):
    answer = mcp.call("ask", question="Who painted the Mona Lisa?", corpus="mini")
    assert answer["refused"] and answer["statements"] == [] and answer["citations"] == []


def test_search_ranks_k_provisions_with_why_each_was_retrieved(mcp):
    result = mcp.call(
        "search", query="fall protection plan prepared by a qualified person", corpus="mini", k=3
    )
    hits = result["results"]
    assert [h["rank"] for h in hits] == [1, 2, 3]
    assert all(h["why"] and h["via"] and h["uri"].startswith("bifrost://mini/") for h in hits)
    assert "1926.502(b)(1)" in {h["id"] for h in hits}


def test_provision_returns_text_heading_url_parent_children_and_references(mcp):
    p = mcp.call("provision", id="1926.501(b)(2)(i)", corpus="mini")
    assert p["text"].startswith("Each employee who is constructing a leading edge")
    assert p["url"] == "https://www.ecfr.gov/current/title-29/section-1926.501#p-1926.501(b)(2)(i)"
    assert p["parent"]["id"] == "1926.501(b)(2)" and p["parent"]["heading"] == "Leading edges."
    assert "1926.501(b)(2)(i)[Note]" in {c["id"] for c in p["children"]}
    assert "1926.502(b)" in {r["id"] for r in p["references_out"]}
    plan = mcp.call("provision", id="1926.502(b)", corpus="mini")
    assert {"1926.501(b)(2)(i)", "1926.503(a)(1)"} <= {r["id"] for r in plan["references_in"]}
    assert "1926.501(b)(2)" in {r["id"] for r in plan["references_out"]}


def test_neighbours_walks_has_and_refers_to_edges_up_to_the_depth(mcp):
    only_root = mcp.call("neighbours", id="1926.501(b)(2)(i)", corpus="mini", depth=0)
    assert [n["id"] for n in only_root["nodes"]] == ["1926.501(b)(2)(i)"] and only_root["edges"] == []
    refs = mcp.call("neighbours", id="1926.501(b)(2)(i)", corpus="mini", depth=1, kinds=["REFERS_TO"])
    assert {(e["type"], e["source"], e["target"]) for e in refs["edges"]} == {
        ("REFERS_TO", "1926.501(b)(2)(i)", "1926.502(b)")
    }
    both = mcp.call("neighbours", id="1926.501(b)(2)(i)", corpus="mini", depth=2)
    depth = {n["id"]: n["depth"] for n in both["nodes"]}
    assert depth["1926.501(b)(2)"] == 1 and depth["1926.502(b)"] == 1 and depth["1926.501(b)"] == 2
    assert {"HAS", "REFERS_TO"} == {e["type"] for e in both["edges"]} and max(depth.values()) == 2


def test_entity_returns_the_entity_its_provisions_and_relations(mcp):
    e = mcp.call("entity", name="guardrail systems", corpus="mini")
    assert e["name"] == "guardrail system" and "1926.501(b)(2)(i)" in e["provisions"]
    assert all({"head", "relation", "tail", "provisions"} <= set(r) for r in e["relations"])


def test_provision_text_with_markup_comes_back_as_plain_text(mcp):
    assert "<script>alert(1)</script>" in mcp.call("provision", id=SCRIPT_ID, corpus="mini")["text"]


# --- bad input ---
BAD_CALLS = [
    (
        "ask",
        {"question": "", "corpus": "mini"},
        "question: the question is empty: type a question about the regulations",
    ),
    (
        "ask",
        {"question": "x" * 2001, "corpus": "mini"},
        "question: the question has 2001 characters; the limit is 2000",
    ),
    ("ask", {"question": PLAN_QUESTION, "corpus": "nope"}, "unknown corpus 'nope'; loaded corpora: mini"),
    (
        "ask",
        {"question": PLAN_QUESTION, "corpus": "mini", "as_of": "2020-13-01"},
        "as_of: '2020-13-01' is not a date (YYYY-MM-DD) or an edition number",
    ),
    ("search", {"query": "fall", "corpus": "mini", "k": 0}, "k: Input should be greater than or equal to 1"),
    ("search", {"query": "fall", "corpus": "mini", "k": 101}, "k: Input should be less than or equal to 100"),
    (
        "search",
        {"query": "   ", "corpus": "mini"},
        "query: the question is empty: type a question about the regulations",
    ),
    ("provision", {"id": "1926.999(z)", "corpus": "mini"}, "provision '1926.999(z)' is not in corpus 'mini'"),
    ("provision", {"id": "1926.500", "corpus": "nope"}, "unknown corpus 'nope'; loaded corpora: mini"),
    (
        "neighbours",
        {"id": "1926.999(z)", "corpus": "mini"},
        "provision '1926.999(z)' is not in corpus 'mini'",
    ),
    (
        "neighbours",
        {"id": "1926.500", "corpus": "mini", "depth": 6},
        "depth: Input should be less than or equal to 5",
    ),
    (
        "neighbours",
        {"id": "1926.500", "corpus": "mini", "kinds": ["PARENT"]},
        "kinds.0: Input should be 'HAS' or 'REFERS_TO'",
    ),
    (
        "entity",
        {"name": " ", "corpus": "mini"},
        "name: the entity name is empty: give a name such as 'guardrail system'",
    ),
]


@pytest.mark.parametrize("tool,arguments,message", BAD_CALLS, ids=[f"{t}-{m[:30]}" for t, _, m in BAD_CALLS])
def test_bad_input_is_an_mcp_error_with_the_web_api_message_and_the_server_keeps_serving(
    mcp, tool, arguments, message
):
    with pytest.raises(MCPError) as info:
        mcp.call(tool, **arguments)
    assert (info.value.code, info.value.message) == (INVALID_PARAMS, message)
    assert mcp.call("search", query="guardrail", corpus="mini", k=1)["results"]


def test_an_unknown_resource_and_a_forged_cursor_are_mcp_errors(mcp):
    with pytest.raises(MCPError) as info:
        mcp.read("bifrost://mini/1926.999%28z%29")
    assert info.value.message == "provision '1926.999(z)' is not in corpus 'mini'"
    with pytest.raises(MCPError) as info:
        mcp.resources("not-a-cursor")
    assert info.value.code == INVALID_PARAMS and "list again without a cursor" in info.value.message
    assert mcp.resources().resources


def home_digest(home: Path) -> dict[str, str]:
    """Hash of every file of a home (SQLite's transient -wal/-shm files aside)."""
    return {
        str(f.relative_to(home)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(home.rglob("*"))
        if f.is_file() and not f.name.endswith(("-wal", "-shm"))
    }


def test_no_tool_writes_to_the_home(mini_home):
    before = home_digest(mini_home)
    session = SyncMcp(stdio_params(mini_home))
    try:
        session.call("ask", question=PLAN_QUESTION, corpus="mini")
        session.call("search", query="guardrail", corpus="mini", k=5)
        session.call("provision", id="1926.502(b)", corpus="mini")
        session.call("neighbours", id="1926.502(b)", corpus="mini", depth=2)
        session.call("entity", name="employer", corpus="mini")
        session.read(session.resources().resources[0].uri)
    finally:
        session.close()
    assert home_digest(mini_home) == before


# --- transports ---
def _reader(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


@pytest.mark.parametrize("warm", ["--warm", "--no-warm"])  # models load before serving, or on the first call
def test_stdout_carries_only_protocol_messages(mini_home, warm):
    proc = subprocess.Popen(
        server_command(mini_home, warm),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=subprocess_env(),
        text=True,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "ask", "arguments": {"question": PLAN_QUESTION, "corpus": "mini"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "", "corpus": "mini"}},
        },
    ]
    try:
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        proc.stdin.flush()
        out, answered = [], set()
        while answered != {1, 2, 3}:
            line = lines.get(timeout=300)
            assert line is not None, "the server closed stdout before answering"
            out.append(line)
            answered.add(json.loads(line).get("id"))
        proc.stdin.close()
        proc.wait(timeout=60)
        while (line := lines.get(timeout=10)) is not None:
            out.append(line)
    finally:
        if proc.poll() is None:
            proc.kill()
    messages = [json.loads(line) for line in out]  # every line is a JSON-RPC message, nothing else
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    by_id = {m.get("id"): m for m in messages}
    assert not by_id[2]["result"]["isError"] and by_id[2]["result"]["structuredContent"]["statements"]
    assert by_id[3]["error"]["code"] == INVALID_PARAMS


def test_the_server_answers_over_streamable_http(mini_home):
    port = free_port()
    proc = subprocess.Popen(
        server_command(mini_home, "--transport", "http", "--port", str(port)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=subprocess_env(),
    )
    try:
        wait_for_port(port, proc)
        session = SyncMcp(f"http://127.0.0.1:{port}/mcp")
        try:
            assert {t.name for t in session.tools()} == TOOLS
            with pytest.raises(MCPError) as info:
                session.call("search", query="fall", corpus="nope")
            assert info.value.message == "unknown corpus 'nope'; loaded corpora: mini"
            answer = session.call("ask", question=PLAN_QUESTION, corpus="mini")
            assert not answer["refused"]
            assert_quotes_verify(session, "mini", answer)
        finally:
            session.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# --- the paper's question on the whole of Part 1926 ---
LEADING_EDGE = (
    "Can a combination of a warning line system and personal fall arrest system be used for all types of "
    "leading-edge work?"
)


@pytest.mark.slow
def test_the_leading_edge_question_over_mcp_on_osha(osha_home, tmp_path):
    home = tmp_path / "osha"
    shutil.copytree(osha_home, home)  # the server never writes, but the built home stays untouched
    session = SyncMcp(stdio_params(home, "--corpus", "osha-1926"))
    try:
        answer = session.call("ask", question=LEADING_EDGE, corpus="osha-1926")
        assert not answer["refused"] and answer["statements"]
        found = {c["id"] for c in answer["citations"]} | {h["id"] for h in answer["retrieved"]}
        assert {"1926.501(b)(2)(i)", "1926.502(k)"} <= found
        assert_quotes_verify(session, "osha-1926", answer)
    finally:
        session.close()
