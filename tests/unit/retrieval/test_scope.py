"""Scope statements: what a rulebook says each of its parts covers, excludes or leaves to another part, read
from its own sentences, and the ranker's `scope` columns a question's words give a candidate."""

from __future__ import annotations

from bifrost.core.types import Provision, ProvisionKind, Reference
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.scope import ScopeIndex, ScopeStatement, read_scopes

K = ProvisionKind
TEXT = {
    "1.500(a)": "Requirements relating to fall protection for employees working on scaffolds are provided in "
    "subpart L of this part.",
    "1.501(b)": "Each employee on a walking/working surface 6 feet or more above a lower level shall be "
    "protected from falling by guardrail systems.",
    "1.450(a)": "This subpart applies to all scaffolds used in workplaces covered by this part. It does not "
    "apply to crane or derrick suspended personnel platforms.",
    "1.451(g)": "Each employee on a scaffold more than 10 feet above a lower level shall be protected from "
    "falling to that lower level.",
    "1.451(h)": "Paragraph (g) of this section does not apply to employees erecting a scaffold, unless feasible.",
}
REFS = [
    ("1.500(a)", "subpart L of this part", "1 Subpart L"),
    ("1.450(a)", "This subpart", "1 Subpart L"),
    ("1.451(h)", "Paragraph (g) of this section", "1.451(g)"),
]


def corpus() -> tuple[list[Provision], NavigatorIndex]:
    """Subpart M (scope section 1.500, then 1.501) and subpart L (scope section 1.450, then 1.451)."""
    rows = [
        ("1", None, K.PART, ""),
        ("1 Subpart L", "1", K.SUBPART, "Scaffolds"),
        ("1.450", "1 Subpart L", K.SECTION, "Scope, application and definitions"),
        ("1.450(a)", "1.450", K.PARAGRAPH, ""),
        ("1.451", "1 Subpart L", K.SECTION, "General requirements"),
        ("1.451(g)", "1.451", K.PARAGRAPH, ""),
        ("1.451(h)", "1.451", K.PARAGRAPH, ""),
        ("1 Subpart M", "1", K.SUBPART, "Fall Protection"),
        ("1.500", "1 Subpart M", K.SECTION, "Scope, application, and definitions"),
        ("1.500(a)", "1.500", K.PARAGRAPH, ""),
        ("1.501", "1 Subpart M", K.SECTION, "Duty to have fall protection"),
        ("1.501(b)", "1.501", K.PARAGRAPH, ""),
    ]
    ps = [
        Provision(corpus="c", id=i, parent_id=p, kind=k, order=n, heading=h, text=TEXT.get(i, ""))
        for n, (i, p, k, h) in enumerate(rows)
    ]
    refs = [Reference(corpus="c", source_id=s, raw=raw, target_id=t) for s, raw, t in REFS]
    return ps, NavigatorIndex.build(ps, refs)


STOP = {"the", "for", "are", "all", "this", "that", "not", "does", "apply", "need", "what", "used", "each"}


def tokenize(text: str) -> list[str]:
    words = text.lower().replace(".", " ").replace(",", " ").replace("?", " ").split()
    return [w.rstrip("s") for w in words if len(w) > 2 and w not in STOP]


def index() -> tuple[ScopeIndex, NavigatorIndex]:
    ps, nav = corpus()
    rare = {"scaffold": 3.0, "crane": 3.0, "derrick": 3.0, "erecting": 3.0}
    rare |= dict.fromkeys(("requirement", "relating", "employee", "working", "provided", "part"), 0.5)
    return ScopeIndex.build(read_scopes(ps, nav), tokenize, lambda ts: {t: rare.get(t, 1.0) for t in ts}), nav


def test_a_scope_sections_deferral_is_stated_for_its_whole_subpart_and_points_to_the_part_it_cites():
    ps, nav = corpus()
    assert ScopeStatement(
        "defers",
        "1.500(a)",
        "1 Subpart M",
        "Requirements relating to fall protection for employees working on scaffolds",
        "1 Subpart L",
    ) in read_scopes(ps, nav)


def test_this_subpart_applies_to_is_said_of_the_subpart_and_an_exclusion_of_the_part_its_subject_names():
    ps, nav = corpus()
    said = {(s.kind, s.scope, s.subject) for s in read_scopes(ps, nav)}
    assert ("applies", "1 Subpart L", "all scaffolds used in workplaces covered by this part") in said
    assert ("excludes", "1.450", "crane or derrick suspended personnel platforms") in said
    assert ("excludes", "1.451(g)", "employees erecting a scaffold") in said  # "Paragraph (g) ... does not"


def test_a_question_about_the_deferred_subject_marks_the_general_rule_away_and_the_specific_one_here():
    idx, nav = index()
    columns = idx.scorer("Do painters on a scaffold need fall protection?", nav)
    away, here, _, _ = columns("1.501(b)")
    assert away > 0.6 and here == 0
    away, here, applies, _ = columns("1.451(g)")
    assert away == 0 and here > 0.6 and applies > 0


def test_a_question_off_the_deferred_subject_gives_the_general_rule_little_away():
    idx, nav = index()
    away, _, _, _ = idx.scorer("Do roofers need fall protection at 6 feet?", nav)("1.501(b)")
    general = idx.scorer("Do painters on a scaffold need fall protection?", nav)("1.501(b)")[0]
    assert away < general / 2


def test_an_exclusion_the_question_takes_up_scores_the_excluded_part():
    idx, nav = index()
    assert idx.scorer("Are employees erecting a scaffold covered?", nav)("1.451(g)")[3] > 0.5
    assert idx.scorer("What is the height for a scaffold?", nav)("1.451(g)")[3] < 0.5


def test_a_sentence_with_no_scope_words_says_nothing():
    ps, nav = corpus()
    assert not [s for s in read_scopes(ps, nav) if s.source in ("1.501(b)", "1.451(g)")]
