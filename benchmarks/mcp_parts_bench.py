"""Benchmark: where an MCP `search` call's time goes besides the search itself, part by part, in one
process (no transport): the tool's own work beyond `Bifrost.search` (argument checks, corpus check,
reading the hits' provisions, building the result records; the search is answered from a cache so
that only this work is timed), the SDK's conversion of the result into a `CallToolResult` and its
JSON-RPC line, the size of that line, and on the client side the parsing of the line and the check of
the structured result against the tool's output schema (jsonschema, as the SDK's client does); the
same for a compact text block (no indentation) instead of the SDK's indented one.
Measures the code on PYTHONPATH: `PYTHONPATH=<checkout> python -m benchmarks.mcp_parts_bench --home <copy of
a home>`.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

import mcp_types
import pydantic_core
from jsonschema import validators
from mcp.types import CallToolResult, TextContent

from bifrost.app.facade import Bifrost
from bifrost.app.mcp.server import create_server
from bifrost.core.settings import Settings
from benchmarks.mcp_bench import read_questions, search_arguments


def ms(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def p50(xs: list[float], digits: int = 3) -> float:
    return round(statistics.median(xs), digits)


def wire_line(result: CallToolResult) -> str:
    """The JSON-RPC response line the server writes for a tool result."""
    payload = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return mcp_types.JSONRPCResponse(jsonrpc="2.0", id=1, result=payload).model_dump_json(
        by_alias=True, exclude_unset=True
    )


def compact(structured: dict) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=pydantic_core.to_json(structured).decode())],
        structured_content=structured,
    )


def main() -> None:
    ap = search_arguments(__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--all-corpora",
        action="store_true",
        help="Serve every ingested corpus (no --corpus), as `bifrost mcp` does by default",
    )
    args = ap.parse_args()
    questions = read_questions(args.questions, args.calls)
    bf = Bifrost(Settings(home=args.home))
    server, service = create_server(bf, None if args.all_corpora else [args.corpus])
    service.warm_up()
    cached = {q: bf.search(q, args.corpus, args.k) for q in questions}
    bf.search = lambda q, corpus, k: cached[q]  # type: ignore[method-assign]  # time only the tool's own work
    meta = server._tool_manager.get_tool("search").fn_metadata
    check = validators.validator_for(meta.output_schema)(meta.output_schema)
    parts: dict[str, list[float]] = {
        k: []
        for k in (
            "tool_work",
            "convert_and_line",
            "client_parse",
            "client_schema_check",
            "compact_client_parse",
        )
    }
    size: dict[str, list[float]] = {"line_bytes": [], "compact_line_bytes": []}
    for _ in range(args.repeats):
        for q in questions:
            parts["tool_work"].append(ms(lambda: service.search(q, args.corpus, args.k)))
            result = service.search(q, args.corpus, args.k)
            parts["convert_and_line"].append(ms(lambda: wire_line(meta.convert_result(result))))
            line, small = (
                wire_line(meta.convert_result(result)),
                wire_line(compact(result.model_dump(mode="json"))),
            )
            size["line_bytes"].append(len(line.encode()))
            size["compact_line_bytes"].append(len(small.encode()))
            parse = lambda text: CallToolResult.model_validate(
                mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False).result
            )  # noqa: E731
            parts["client_parse"].append(ms(lambda: parse(line)))
            parts["compact_client_parse"].append(ms(lambda: parse(small)))
            parts["client_schema_check"].append(ms(lambda: check.validate(result.model_dump(mode="json"))))
    bf.close()
    print(
        json.dumps(
            {
                "benchmark": "MCP search call, parts besides the search (p50 ms; bytes)",
                "corpus": args.corpus,
                "calls": len(questions) * args.repeats,
                "k": args.k,
                **{f"{k}_ms": p50(v) for k, v in parts.items()},
                **{k: p50(v, 0) for k, v in size.items()},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
