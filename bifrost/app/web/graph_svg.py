"""The navigator-graph neighbourhood of an answer, laid out in Python for a server-rendered SVG.

Nodes are the cited provisions (each with its role in the answer: rule, exception, condition,
procedure, definition), the uncited provisions on the paths that brought them in (the answer plan's
paths first, then the retrieval paths; drawn lighter) and any parent shared by two of them; edges
are the REFERS_TO and HAS edges among those nodes. Layout: an arc
diagram (provisions in document order on one row, shared parents above, cross-references
drawn as arcs below), which stays readable without any JavaScript.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from pydantic import BaseModel

from bifrost.app.facade import Bifrost
from bifrost.core.answer_types import Answer

NODE_W = 150
NODE_H = 30
ROW_Y = 100
TOP_Y = 24
MAX_NODES = 14


class SvgNode(BaseModel):
    """A provision box: centre, label and role (cited, path or context)."""

    id: str
    x: float
    y: float
    role: str
    href: str
    label: str = ""  # the cited provision's role in the answer (rule, exception, ...), "" for the others


class SvgEdge(BaseModel):
    """A line (HAS) or an arc (REFERS_TO) as an SVG path."""

    kind: str
    d: str
    title: str


class SvgGraph(BaseModel):
    """Everything the template needs to draw the picture."""

    width: float
    height: float
    node_w: int = NODE_W
    node_h: int = NODE_H
    nodes: list[SvgNode]
    edges: list[SvgEdge]


def neighbourhood(bifrost: Bifrost, answer: Answer) -> tuple[list[str], dict[str, str]]:
    """Provision ids to draw (cited first, then path nodes, then shared parents) and their roles."""
    cited = [c.id for c in answer.citations]
    roles: dict[str, str] = dict.fromkeys(cited, "cited")
    items = {it.id: it for it in answer.retrieved}
    planned = {p.id: p.path for p in answer.plan}
    for pid in cited:
        for step in planned.get(pid) or (items[pid].path if pid in items else ()):
            roles.setdefault(step, "path")
    ids = list(roles)[:MAX_NODES]
    parents = Counter()
    for pid in ids:
        parent = bifrost.parent_id(answer.corpus, pid)
        if parent:
            parents[parent] += 1
    for pid, n in parents.items():
        if n >= 2 and pid not in roles and len(roles) < MAX_NODES:
            roles[pid] = "context"
    return list(roles), roles


def _order(bifrost: Bifrost, corpus: str, pid: str) -> int:
    p = bifrost.provision(corpus, pid)
    return p.order if p else 0


def _pairs(
    bifrost: Bifrost, corpus: str, ids: list[str]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(parent, child) HAS pairs and (source, target) REFERS_TO pairs among the drawn ids."""
    drawn, has, refers = set(ids), [], []
    for pid in ids:
        parent = bifrost.parent_id(corpus, pid)
        if parent and parent in drawn:
            has.append((parent, pid))
        refers += [(pid, t) for t in bifrost.references_out(corpus, pid) if t in drawn and t != pid]
    return has, list(dict.fromkeys(refers))


def layout(bifrost: Bifrost, answer: Answer, link: Callable[[str], str]) -> SvgGraph | None:
    """Positions and edges of the neighbourhood, or None when there is nothing to draw."""
    ids, roles = neighbourhood(bifrost, answer)
    if not ids:
        return None
    corpus = answer.corpus
    row = sorted((i for i in ids if roles[i] != "context"), key=lambda i: _order(bifrost, corpus, i))
    context = [i for i in ids if roles[i] == "context"]
    has, refers = _pairs(bifrost, corpus, row + context)
    x = {pid: NODE_W / 2 + 10 + k * (NODE_W + 20) for k, pid in enumerate(row)}
    # above its children in the row (a shared parent's own shared parent is not one of them)
    for pid in context:
        kids = [c for p, c in has if p == pid and c in row]
        x[pid] = sum(x[k] for k in kids) / len(kids)
    in_row = set(row)
    above = max((_arc_depth(x, p, c) for p, c in has if p in in_row), default=0)
    row_y = max(ROW_Y if context else 0, NODE_H / 2 + 12 + above)
    y = {pid: (TOP_Y if pid in context else row_y) for pid in ids}
    edges = [_has(p, c, x, y) for p, c in has] + [_arc(s, t, x, y) for s, t in refers]
    below = max((_arc_depth(x, s, t) for s, t in refers), default=0)
    height = row_y + NODE_H / 2 + 16 + below
    width = max(x.values()) + NODE_W / 2 + 10
    labels = {p.id: p.role for p in answer.plan}
    nodes = [
        SvgNode(
            id=i,
            x=x[i],
            y=y[i],
            role=roles[i],
            href=link(i),
            label=labels.get(i, "") if roles[i] == "cited" else "",
        )
        for i in row + context
    ]
    return SvgGraph(width=width, height=height, nodes=nodes, edges=edges)


def _arc_depth(x: dict[str, float], src: str, dst: str) -> float:
    return 24 + min(100, abs(x[src] - x[dst]) / 4)


def _has(parent: str, child: str, x: dict[str, float], y: dict[str, float]) -> SvgEdge:
    """Parent to child: a straight line from a parent above, an arc over the row between two row nodes."""
    title = f"{parent} HAS {child}"
    if y[parent] < y[child]:
        return SvgEdge(
            kind="has",
            title=title,
            d=f"M{x[parent]:.0f},{y[parent] + NODE_H / 2:.0f} L{x[child]:.0f},{y[child] - NODE_H / 2:.0f}",
        )
    top, depth = y[child] - NODE_H / 2, _arc_depth(x, parent, child)
    d = (
        f"M{x[parent]:.0f},{top:.0f} C{x[parent]:.0f},{top - depth:.0f} "
        f"{x[child]:.0f},{top - depth:.0f} {x[child]:.0f},{top:.0f}"
    )
    return SvgEdge(kind="has", title=title, d=d)


def _arc(src: str, dst: str, x: dict[str, float], y: dict[str, float]) -> SvgEdge:
    """A cross-reference as a curve below the row, from the source's box to the target's."""
    base = y[src] + NODE_H / 2
    depth = _arc_depth(x, src, dst)
    x1, x2 = x[src] + (8 if x[dst] > x[src] else -8), x[dst]
    d = (
        f"M{x1:.0f},{base:.0f} C{x1:.0f},{base + depth:.0f} {x2:.0f},{base + depth:.0f} "
        f"{x2:.0f},{base + 2:.0f}"
    )
    return SvgEdge(kind="refers", d=d, title=f"{src} REFERS_TO {dst}")
