"""Property-based tests of the reference extractors (CFR and ADGM): any provision text, random or
built from reference vocabulary, gives a list of `Reference`s without raising; every resolved
target exists in the corpus index, none is the provision itself, targets are unique, and a
dangling reference says why."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from bifrost.core.types import Provision, Reference
from bifrost.graph_builders.jurisdictions.adgm.references import AdgmReferenceExtractor
from bifrost.graph_builders.jurisdictions.adgm.passages_json import Passage, passages_to_provisions
from tests.unit.graph_builders.navigator.test_adgm_references import PASSAGES
from tests.unit.graph_builders.navigator.test_cfr_references import EXTRACTOR, KNOWN, _prov

CFR_WORDS = [
    "§",
    "§§",
    "1926.502",
    "1926.451(g)(1)",
    "(b)",
    "(2)",
    "(i)",
    "(A)",
    "(<i>1</i>)",
    "paragraph",
    "paragraphs",
    "of this section",
    "through",
    "and",
    "or",
    ",",
    "to",
    "Subpart",
    "subparts",
    "M",
    "L",
    "Appendix",
    "B",
    "of this subpart",
    "this part",
    "29 CFR",
    "part 1910",
    "1926.500(b)[Leading edge]",
    "(z)(99)",
    "(xl)",
    ".",
    "-",
    "–",
    "\n",
    "١٩٢٦.٥٠٢",
    "(٢)",
    "(15²)",
    "1926.0502",
    "9999.1",
]
ADGM_WORDS = [
    "Rule",
    "Rules",
    "6.1.1(b)",
    "GEN",
    "3.3.31",
    "section 58(2)",
    "of FSMR",
    "Chapter 6",
    "of these Rules",
    "App5",
    "Schedule 1",
    "paragraph 87 of Schedule 1",
    "(iii)",
    "to",
    "and",
    "-",
    "1.5",
    "A6.9.3",
    "Part 6",
    "(a)(1)",
    "Rules 6.1.1 to 6.1.2",
    "PRU 6.8",
    "subsection 251(4)",
    "١.٢.٣",
    "6.1.1(b)(iii)",
    "\n",
    ",",
]


def texts(words: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=80),
        st.lists(st.one_of(st.sampled_from(words), st.text(max_size=4)), max_size=25).map(" ".join),
    )


def check(refs: list[Reference], source: Provision, known, self_refs: bool = False) -> None:
    """``self_refs``: ADGM keeps a passage naming its own rule (`Rule 6.1.1` in 6.1.1), by design."""
    assert isinstance(refs, list) and all(isinstance(r, Reference) for r in refs)
    targets = [r.target_id for r in refs if r.target_id is not None]
    assert len(targets) == len(set(targets)), "one reference per target"
    for r in refs:
        assert r.source_id == source.id and r.raw
        if r.target_id is not None:
            assert r.target_id in known and (self_refs or r.target_id != source.id)
        else:
            assert r.reason, "a dangling reference says why"


CFR_SOURCES = [
    "1926.502(b)(2)(i)",
    "1926.501",
    "1926.500(b)[Leading edge]",
    "1926 Subpart M",
    "1926.1053(a)(4)(ii)",
]


@given(pid=st.sampled_from(CFR_SOURCES), text=texts(CFR_WORDS))
@example(pid="1926.501", text="See § ١٩٢٦.٥٠٢(b) and paragraph (15²) of this section.")
@example(pid="1926.502(b)(2)(i)", text="paragraphs (b)(2) through (b)(1) and (z)(99) of § 1926.502")
def test_cfr_extractor_never_raises_and_resolves_only_known_ids(pid: str, text: str):
    source = _prov(pid, text)
    check(EXTRACTOR.extract(source, KNOWN), source, KNOWN)


ADGM_PROVISIONS, _ = passages_to_provisions([Passage(*p) for p in PASSAGES], "adgm")
ADGM = AdgmReferenceExtractor()
ADGM_INDEX = ADGM.index(ADGM_PROVISIONS)


@given(source=st.sampled_from(ADGM_PROVISIONS), text=texts(ADGM_WORDS))
@example(source=ADGM_PROVISIONS[4], text="Rules 6.1.1 to 6.1.2 and 6.1.2 to 6.1.1 of GEN, Rule ٦.١.١")
def test_adgm_extractor_never_raises_and_resolves_only_known_passages(source: Provision, text: str):
    p = source.model_copy(update={"text": text})
    check(ADGM.extract(p, ADGM_INDEX), p, ADGM_INDEX, self_refs=True)
