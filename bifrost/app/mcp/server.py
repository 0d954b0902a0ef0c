"""The MCP server over one Bifrost home, on the official SDK's `MCPServer` (FastMCP in mcp 1.x): read-only
tools and every provision as a resource ``bifrost://{corpus}/{provision_id}`` (the listing holds what a client
browses: parts, subparts, sections, appendices; paragraphs are read through the template).

A `BifrostError` becomes an MCP error (JSON-RPC) with the message the web API gives; the server
goes on serving. `MCPServer` lists only static resources, all at once, so `ResourcePages`
(SDK middleware) answers ``resources/list`` a page at a time with the SDK's cursor. On stdio,
nothing but protocol messages reaches stdout: model loading runs with stdout sent to stderr,
and `stdio.serve_stdio` (the SDK's public stdio entry point) diverts stray writes while it serves.
"""

from __future__ import annotations

from bifrost import __version__

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.to_thread
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Resource, ToolAnnotations
from pydantic import Field

from bifrost.app.facade import Bifrost
from bifrost.app.mcp.auth import TokenVerifier, caller
from bifrost.app.team.policy import auth_required
from bifrost.app.http.limits import RateLimitMiddleware
from bifrost.app.http.security import SecurityHeadersMiddleware
from bifrost.core.access import LOCAL, AccessDenied, Unauthenticated
from bifrost.app.mcp.ports import MCP_PORT
from bifrost.app.mcp.models import AskResult, EntityResult, PrecedentsResult, ProvisionResult, SearchResult
from bifrost.app.mcp.service import McpService
from bifrost.app.mcp.stdio import serve_stdio
from bifrost.app.mcp.uris import TEMPLATE
from bifrost.app.inputs import MAX_DEPTH, MAX_QUESTION, MAX_RESULTS, InvalidQuestion, InvalidRequest
from bifrost.core.errors import BifrostError, ModelUnavailableError, NotFoundError, RetryableError, StoreError
from bifrost.core.store.edition_diff import EditionDiff
from bifrost.core.types import NavigatorSubgraph

log = logging.getLogger(__name__)
T = TypeVar("T")

Transport = Literal["stdio", "http"]
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
INSTRUCTIONS = (
    "Bifrost answers questions about regulations (e.g. OSHA 29 CFR 1926, ADGM rulebooks) from a dual "
    "knowledge graph. "
    "Every statement of an `ask` answer cites provision ids and quotes the exact words it rests on "
    "(character offsets "
    "into the provision's text); cite those ids and quotes, and say so when the answer is a refusal. Use "
    "`search` to "
    "find provisions, `provision` for a provision's full text and neighbours, `neighbours` for the "
    "navigator graph "
    "around it, `entity` for the entity network. Provisions are also resources: "
    "bifrost://{corpus}/{provision_id} "
    "(the id percent-encoded)."
)

Corpus = Annotated[
    str, Field(description="Corpus name, e.g. osha-1926 (see the resource listing for the served ones)")
]
ProvisionId = Annotated[str, Field(description="Provision id as officially cited, e.g. 1926.501(b)(2)(i)")]


def to_mcp_error(e: BifrostError) -> MCPError:
    """The MCP error of a Bifrost error: same message; ``data.error`` says which kind, as the web API does."""
    if isinstance(e, (StoreError, ModelUnavailableError, RetryableError)):
        code, kind = INTERNAL_ERROR, "unavailable"
    elif isinstance(e, Unauthenticated):
        code, kind = INVALID_REQUEST, "unauthorized"
    elif isinstance(e, AccessDenied):
        code, kind = INVALID_REQUEST, "forbidden"
    elif isinstance(e, NotFoundError):
        code, kind = INVALID_PARAMS, "not_found"
    elif isinstance(e, (InvalidRequest, InvalidQuestion)):
        code, kind = INVALID_PARAMS, "invalid_request"
    else:
        code, kind = INVALID_PARAMS, "bad_request"
    return MCPError(code=code, message=str(e), data={"error": kind})


@contextlib.contextmanager
def mcp_errors() -> Iterator[None]:
    """Raise any `BifrostError` of the block as its MCP error."""
    try:
        yield
    except BifrostError as e:
        if isinstance(e, (StoreError, ModelUnavailableError, RetryableError)):
            log.warning("MCP call failed: %s", e)
        raise to_mcp_error(e) from None


class ResourcePages:
    """SDK middleware: answers ``resources/list`` with one page of provisions and the cursor of
    the next (after the SDK has checked the request, so validation and the handshake gate hold)."""

    def __init__(self, service: McpService) -> None:
        self.service = service

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method != "resources/list" or not isinstance(result, dict):
            return result
        token = (ctx.params or {}).get("cursor")
        with mcp_errors():
            entries, nxt = await anyio.to_thread.run_sync(self.service.resource_page, token)
        resources = [
            Resource(
                uri=e.uri, name=e.name, title=e.title, description=e.description, mime_type="text/plain"
            ).model_dump(by_alias=True, mode="json", exclude_none=True)
            for e in entries
        ]
        page = {k: v for k, v in result.items() if k != "nextCursor"} | {"resources": resources}
        return page | ({"nextCursor": nxt} if nxt else {})


class ReadToolRunner:
    """How the quick read tools (`search`, `provision`, `neighbours`, `entity`: local work, no chat
    model) run: on the event loop when ``inline`` (stdio: one client, a worker-thread handoff and
    the wake-up back cost several ms per call on a busy machine, see `benchmarks/mcp_bench.py`), else
    in a worker thread (HTTP: one client's call must not stall another's). `ask` and `diff` always
    run in a worker thread (a chat model or a large edition can take seconds)."""

    def __init__(self, inline: bool) -> None:
        self.inline = inline

    async def __call__(self, fn: Callable[..., T], *args: Any) -> T:
        with mcp_errors():
            return fn(*args) if self.inline else await anyio.to_thread.run_sync(fn, *args)


def create_server(
    bifrost: Bifrost,
    corpora: Sequence[str] | None = None,
    page_size: int = 100,
    inline_reads: bool = False,
    auth_url: str | None = None,
) -> tuple[MCPServer, McpService]:
    """The MCP server over an injected facade (``corpora`` limits what is served; default: all ingested);
    ``inline_reads`` runs the quick read tools on the event loop (see `ReadToolRunner`; right for stdio).
    ``auth_url`` (the server's own ``http://host:port``) makes every HTTP call carry a Bifrost token
    (``Authorization: Bearer``, checked by the SDK's bearer middleware with `TokenVerifier`), and each call
    runs as its token's user, within that user's corpora."""
    verifier = TokenVerifier(bifrost.users) if auth_url else None
    who = caller if auth_url else (lambda: LOCAL)
    service = McpService(bifrost, corpora, page_size, who=who)
    auth = AuthSettings(issuer_url=auth_url, resource_server_url=f"{auth_url}/mcp") if auth_url else None
    server = MCPServer(
        "bifrost",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        middleware=[ResourcePages(service)],
        token_verifier=verifier,
        auth=auth,
    )
    read = ReadToolRunner(inline_reads)
    add_question_tools(server, service, read)
    add_graph_tools(server, service, read)
    add_edition_tools(server, service)
    return server, service


def add_question_tools(server: MCPServer, service: McpService, read: ReadToolRunner) -> None:
    """The `ask`, `search` and `precedents` tools."""

    @server.tool(annotations=READ_ONLY)
    def ask(
        question: Annotated[str, Field(description=f"The question, 1 to {MAX_QUESTION} characters")],
        corpus: Annotated[
            str,
            Field(
                description="Corpus name (e.g. osha-1926), several as a,b, or 'all' (default: every corpus "
                "served; the router asks those likely to hold the rule, `routing` says how likely each was)"
            ),
        ] = "all",
        as_of: Annotated[
            str | None,
            Field(
                description="Answer from the edition valid on this date (YYYY-MM-DD) or with this number; "
                "default: the current edition"
            ),
        ] = None,
    ) -> AskResult:
        """Answer a question from the regulations: a verdict (yes, no, depends) when the cited text decides a
        yes/no question, then statements by role (rule, exception, condition, procedure, definition), each
        citing provision ids and quoting the exact supporting words (offsets into each provision's text);
        outcome "shortlist" when no rule is sure enough to state: ``shortlist`` lists the likeliest provisions
        (none stated as the answer, no verdict); "not_stated" quotes the closest provisions and says what none
        of them states; "refused" (refused=true) when the question is out of scope. ``plan`` gives each cited
        provision's role and path."""
        with mcp_errors():
            return service.ask(question, corpus, as_of)

    @server.tool(annotations=READ_ONLY)
    async def search(
        query: Annotated[str, Field(description=f"What to look for, 1 to {MAX_QUESTION} characters")],
        corpus: Corpus,
        k: Annotated[
            int,
            Field(
                description=f"How many provisions, 1 to {MAX_RESULTS}",
                json_schema_extra={"minimum": 1, "maximum": MAX_RESULTS},
            ),
        ] = 10,
    ) -> SearchResult:
        """Rank provisions for a query (keyword, embedding and both graphs), each with why it was
        retrieved."""
        return await read(service.search, query, corpus, k)

    @server.tool(annotations=READ_ONLY)
    async def precedents(
        question: Annotated[str, Field(description=f"The question, 1 to {MAX_QUESTION} characters")],
        corpus: Corpus,
        k: Annotated[
            int, Field(description="How many, 1 to 50", json_schema_extra={"minimum": 1, "maximum": 50})
        ] = 5,
    ) -> PrecedentsResult:
        """Questions the regulator answered before that are most like this one (letters of interpretation,
        FAQs, reviewed answers): title, date, link and the provisions each cites. Interpretations, never the
        rule: quote the provisions themselves (tool `provision`)."""
        return await read(service.precedents, question, corpus, k)


def add_graph_tools(server: MCPServer, service: McpService, read: ReadToolRunner) -> None:
    """The `provision`, `neighbours` and `entity` tools."""

    @server.tool(annotations=READ_ONLY)
    async def provision(id: ProvisionId, corpus: Corpus) -> ProvisionResult:  # noqa: A002 - the tool's argument
        """A provision's text, heading, official URL, parent, children and cross-references in and out."""
        return await read(service.provision, id, corpus)

    @server.tool(annotations=READ_ONLY)
    async def neighbours(
        id: ProvisionId,  # noqa: A002
        corpus: Corpus,
        depth: Annotated[
            int,
            Field(
                description=f"Edges to walk from the provision, 0 to {MAX_DEPTH}",
                json_schema_extra={"minimum": 0, "maximum": MAX_DEPTH},
            ),
        ] = 1,
        kinds: Annotated[
            list[str] | None,
            Field(
                description='Edge types to follow: "HAS" (parent and children), "REFERS_TO" '
                "(cross-references out and in); default both"
            ),
        ] = None,
    ) -> NavigatorSubgraph:
        """The Document Navigator Graph around a provision: nodes (with their depth) and HAS / REFERS_TO
        edges."""
        return await read(service.neighbours, id, corpus, depth, kinds)

    @server.tool(annotations=READ_ONLY)
    async def entity(
        name: Annotated[
            str, Field(description="Entity name, e.g. guardrail system (the closest one is used)")
        ],
        corpus: Corpus,
    ) -> EntityResult:
        """An entity of the Entity Network, the provisions that mention it and its relations."""
        return await read(service.entity, name, corpus)


def add_edition_tools(server: MCPServer, service: McpService) -> None:
    """The `diff` tool between two editions, and each provision as a resource behind the template."""

    @server.tool(annotations=READ_ONLY)
    def diff(
        corpus: Corpus,
        from_edition: Annotated[
            str | None,
            Field(
                description="Older edition: number or date YYYY-MM-DD (default: the one before to_edition)"
            ),
        ] = None,
        to_edition: Annotated[
            str | None,
            Field(description="Newer edition: number or date YYYY-MM-DD (default: the current one)"),
        ] = None,
    ) -> EditionDiff:
        """What changed between two editions: provisions added, removed, moved, changed (word diff), REFERS_TO
        added and removed, citations left dangling by a repeal, entities added and removed."""
        with mcp_errors():
            return service.diff(corpus, from_edition, to_edition)

    @server.resource(
        TEMPLATE,
        name="provision",
        title="A provision of a rulebook",
        mime_type="text/plain",
        description="A provision's id, heading, text and official URL; ids are percent-encoded",
    )
    def provision_resource(corpus: str, provision_id: str) -> str:
        with mcp_errors():
            return service.read_provision(corpus, provision_id)


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to stdout (Python or C level) to stderr for the block."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def serve(
    bifrost: Bifrost,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = MCP_PORT,
    corpora: Sequence[str] | None = None,
    warm: bool = True,
    page_size: int = 100,
) -> None:
    """Run the server until the client goes away (stdio) or the process is stopped (http). Over HTTP, tokens
    are checked as `serve` checks them (BIFROST_AUTH and the address), and BIFROST_RATE_LIMIT holds per
    token."""
    secured = transport == "http" and auth_required(bifrost.settings, host, bifrost.users)
    server, service = create_server(
        bifrost,
        corpora,
        page_size,
        inline_reads=transport == "stdio",
        auth_url=f"http://{host}:{port}" if secured else None,
    )
    if warm:
        with stdout_to_stderr():
            service.warm_up()
    if transport == "stdio":
        anyio.run(serve_stdio, server)
        return
    import uvicorn

    app = server.streamable_http_app(host=host)
    rule = bifrost.settings.rate_limit_rule
    if rule is not None:
        app = RateLimitMiddleware(app, rule[0], rule[1])
    app = SecurityHeadersMiddleware(app)
    log.info("MCP over HTTP, authentication %s", "on: tokens" if secured else "off (one local user)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
