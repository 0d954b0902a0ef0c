"""The answer's graph picture: shared parents drawn above the cited provisions, whatever their nesting."""

from __future__ import annotations

from types import SimpleNamespace

from bifrost.app.web.graph_svg import layout
from bifrost.core.answer_types import Answer, AnswerMode, Citation

TREE = {"b": "501", "b2": "b", "b2i": "b2", "b2ii": "b2", "b10": "b", "b12": "b"}
ORDER = ["501", "b", "b2", "b2i", "b2ii", "b10", "b12"]


class _Tree:
    """The three navigator reads the layout makes, over a fixed tree (a fake of the facade for this unit)."""

    def parent_id(self, corpus: str, pid: str) -> str | None:
        return TREE.get(pid)

    def references_out(self, corpus: str, pid: str) -> list[str]:
        return ["b2i"] if pid == "b10" else []

    def provision(self, corpus: str, pid: str):
        return SimpleNamespace(order=ORDER.index(pid))


def test_a_shared_parent_whose_own_parent_is_also_shared_is_drawn_above_its_cited_children():
    cited = ["b10", "b12", "b2i", "b2ii"]  # b2 is the parent of two, b the parent of two others (and of b2)
    answer = Answer(
        question="q",
        corpus="c",
        mode=AnswerMode.EXTRACTIVE,
        refused=False,
        text="",
        citations=[Citation(corpus="c", id=pid) for pid in cited],
    )
    graph = layout(_Tree(), answer, lambda pid: f"#{pid}")
    nodes = {n.id: n for n in graph.nodes}
    assert set(nodes) == {*cited, "b", "b2"}
    assert nodes["b2"].role == nodes["b"].role == "context"
    assert nodes["b2"].x == (nodes["b2i"].x + nodes["b2ii"].x) / 2  # above the two paragraphs it holds
    assert nodes["b"].y == nodes["b2"].y < nodes["b10"].y
    assert {"b HAS b2", "b2 HAS b2i"} <= {e.title for e in graph.edges}
