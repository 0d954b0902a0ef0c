"""Specification of the CFR provision parser shared by every source format."""

from __future__ import annotations

from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.jurisdictions.us_cfr.sources.labels import label_ordinal
from bifrost.graph_builders.jurisdictions.us_cfr.sources.paragraphs import Line, split_section


def _split(
    *texts: str | Line, section: str = "1926.502", heading: str = "Systems."
) -> tuple[dict[str, Provision], list[str], list[Provision]]:
    lines = [t if isinstance(t, Line) else Line(t) for t in texts]
    provs, odd = split_section(
        "osha-1926", section, heading, lines, parent_id="1926 Subpart M", order_start=10
    )
    return {p.id: p for p in provs}, odd, provs


def test_section_comes_first_with_parent_and_orders_increase() -> None:
    by, _, provs = _split("(a) One.", "(b) Two.")
    assert provs[0].id == "1926.502" and provs[0].kind is ProvisionKind.SECTION
    assert provs[0].parent_id == "1926 Subpart M" and provs[0].heading == "Systems."
    assert [p.order for p in provs] == [10, 11, 12]
    assert by["1926.502(b)"].parent_id == "1926.502"


def test_heading_and_first_child_on_one_line_are_split() -> None:
    by, odd, _ = _split(
        "(a) Capacity. (1) Except as provided, each scaffold shall support its load.",
        "(2) Scaffolds shall be level.",
    )
    assert by["1926.502(a)"].heading == "Capacity."
    assert by["1926.502(a)"].text == ""
    assert by["1926.502(a)(1)"].text.startswith("Except as provided")
    assert by["1926.502(a)(2)"].parent_id == "1926.502(a)"
    assert odd == []


def test_dash_headings_split_through_several_levels() -> None:
    by, _, _ = _split(
        "(a) A.",
        "(b) Branch circuits —(1) Ground-fault protection —(i) General. The employer shall protect.",
        "(ii) Other.",
    )
    assert by["1926.502(b)"].heading == "Branch circuits"
    assert by["1926.502(b)(1)"].heading == "Ground-fault protection"
    assert by["1926.502(b)(1)(i)"].heading == "General."
    assert by["1926.502(b)(1)(i)"].text == "The employer shall protect."
    assert "1926.502(b)(1)(ii)" in by


def test_stacked_labels_at_line_start_make_each_level() -> None:
    by, _, _ = _split("(a) Intro.", "(b)(1) Nets shall extend 8 feet.", "(2) Nets shall be inspected.")
    assert by["1926.502(b)"].text == ""
    assert by["1926.502(b)(1)"].text == "Nets shall extend 8 feet."


def test_paragraph_heading_goes_to_heading_and_text_is_own_text_only() -> None:
    by, _, _ = _split(
        "(b) Guardrail systems. Guardrail systems shall comply with the following:",
        "(1) Top rails shall be 42 inches high.",
    )
    assert by["1926.502(b)"].heading == "Guardrail systems."
    assert by["1926.502(b)"].text == "Guardrail systems shall comply with the following:"
    assert "42 inches" not in by["1926.502(b)"].text


def test_lead_in_ending_in_colon_stays_text_when_its_first_item_is_split() -> None:
    by, _, _ = _split(
        "(a) A.",
        "(1) One.",
        "(ii) Employers may show this by the following: (A) An inspection; or",
        "(B) A test.",
    )
    assert by["1926.502(a)(1)(ii)"].heading == ""
    assert by["1926.502(a)(1)(ii)"].text == "Employers may show this by the following:"
    assert by["1926.502(a)(1)(ii)(A)"].text == "An inspection; or"


def test_requirement_sentence_is_not_taken_for_a_heading() -> None:
    by, _, _ = _split("(a) Employers shall provide nets. Nets shall be tested.")
    assert by["1926.502(a)"].heading == ""


def test_i_after_h_is_a_letter() -> None:
    by, odd, _ = _split(
        *[f"({c}) Para." for c in "abcdefgh"],
        "(i) Stability of adjacent structures. (1) Where the stability is endangered, support shall be "
        "provided.",
    )
    assert by["1926.502(i)"].parent_id == "1926.502"
    assert "1926.502(i)(1)" in by
    assert odd == []


def test_i_right_after_a_numeral_is_roman() -> None:
    by, _, _ = _split("(a) A.", "(1) One:", "(i) First item;", "(ii) Second item.")
    assert by["1926.502(a)(1)(i)"].parent_id == "1926.502(a)(1)"
    assert "1926.502(a)(1)(ii)" in by


def test_i_after_h_with_open_numeral_is_settled_by_the_next_label() -> None:
    before = [f"({c}) Para." for c in "abcdefgh"]
    as_roman, _, _ = _split(*before, "(1) One:", "(i) item;", "(ii) item.")
    as_letter, _, _ = _split(*before, "(1) One.", "(i) Letter i.", "(j) Letter j.")
    assert "1926.502(h)(1)(i)" in as_roman
    assert "1926.502(i)" in as_letter and "1926.502(j)" in as_letter


def test_v_after_iv_is_roman_and_v_after_u_is_a_letter() -> None:
    roman, _, _ = _split("(a) A.", "(1) One:", "(i) a;", "(ii) b;", "(iii) c;", "(iv) d;", "(v) e.")
    assert "1926.502(a)(1)(v)" in roman
    letters = [f"({chr(c)}) Para." for c in range(ord("a"), ord("v") + 1)]
    letter, _, _ = _split(*letters)
    assert letter["1926.502(v)"].parent_id == "1926.502"


def test_x_after_ix_is_roman_and_after_w_is_a_letter() -> None:
    romans = ["(a) A.", "(1) One:"] + [
        f"({r}) item." for r in ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
    ]
    roman, odd, _ = _split(*romans)
    assert "1926.502(a)(1)(x)" in roman and odd == []
    letters = [f"({chr(c)}) Para." for c in range(ord("a"), ord("x") + 1)]
    letter, odd2, _ = _split(*letters)
    assert "1926.502(x)" in letter and odd2 == []


def test_levels_five_and_six_are_inferred_in_plain_text() -> None:
    by, odd, _ = _split(
        "(a) A.",
        "(1) One.",
        "(i) Roman.",
        "(A) Capital:",
        "(1) Italic one:",
        "(a) Italic a;",
        "(b) Italic b.",
        "(2) Italic two.",
        "(B) Capital B.",
        "(2) Two.",
    )
    assert "1926.502(a)(1)(i)(A)(1)(a)" in by
    assert by["1926.502(a)(1)(i)(A)(1)(b)"].level == 8
    assert by["1926.502(a)(1)(i)(A)(2)"].parent_id == "1926.502(a)(1)(i)(A)"
    assert by["1926.502(a)(2)"].parent_id == "1926.502(a)"
    assert odd == []


def test_spaced_labels_are_italic_levels() -> None:
    by, _, _ = _split(
        "(a) A.", "(1) One.", "(i) Roman.", "(A) Capital:", "( 1 ) Italic one.", "( 2 ) Italic two."
    )
    assert "1926.502(a)(1)(i)(A)(2)" in by


def test_italic_flag_from_a_line_places_level_five() -> None:
    by, _, _ = _split(
        "(a) A.",
        "(1) One.",
        "(i) Roman.",
        "(A) Capital.",
        Line("(1) Italic.", italic_label=True),
        Line("(2) Italic.", italic_label=True),
    )
    assert "1926.502(a)(1)(i)(A)(2)" in by and "1926.502(a)(2)" not in by


def test_definitions_become_nodes_under_their_paragraph() -> None:
    by, _, _ = _split(
        "(a) Scope.",
        "(b) Definitions.",
        "Anchorage means a secure point.",
        "Leading edge means the edge of a floor.",
        "(c) Next.",
        section="1926.500",
    )
    leading = by["1926.500(b)[Leading edge]"]
    assert leading.kind is ProvisionKind.DEFINITION and leading.term == "Leading edge"
    assert leading.parent_id == "1926.500(b)" and leading.level == by["1926.500(b)"].level + 1
    assert by["1926.500(b)"].heading == "Definitions."
    assert by["1926.500(c)"].parent_id == "1926.500"


def test_first_definition_on_the_heading_line_is_split_off() -> None:
    by, _, _ = _split(
        "(b) Definitions. Cleat means a ladder crosspiece.",
        "Failure means load refusal.",
        section="1926.1050",
    )
    assert by["1926.1050(b)"].text == ""
    assert by["1926.1050(b)[Cleat]"].text == "Cleat means a ladder crosspiece."


def test_term_period_definition_styles_are_recognised() -> None:
    by, _, _ = _split(
        "(b) Definitions.",
        "Cleat means a crosspiece.",
        "Ladder stand. A mobile fixed size ladder.",
        "Side-step ladder. See “Fixed ladder.”",
        section="1926.1050",
    )
    assert by["1926.1050(b)[Ladder stand]"].term == "Ladder stand"
    assert "1926.1050(b)[Side-step ladder]" in by


def test_definition_list_items_are_children_of_the_definition() -> None:
    by, odd, _ = _split(
        "(a) Scope.",
        "(b) Definitions.",
        "Snaphook means a connector of two types:",
        "(1) The locking type;",
        "(2) The non-locking type.",
        "Toeboard means a barrier.",
        "(c) Next.",
        section="1926.500",
    )
    assert by["1926.500(b)[Snaphook](2)"].parent_id == "1926.500(b)[Snaphook]"
    assert by["1926.500(b)[Toeboard]"].parent_id == "1926.500(b)"
    assert by["1926.500(c)"].parent_id == "1926.500"
    assert odd == []


def test_definition_outside_a_definitions_paragraph_is_text() -> None:
    by, _, _ = _split("(a) Rails. Rails shall be smooth.", "Paint means a coating applied by brush.")
    assert not any(p.kind is ProvisionKind.DEFINITION for p in by.values())
    assert by["1926.502(a)"].text.endswith("applied by brush.")


def test_notes_attach_to_the_provision_they_follow_and_are_numbered() -> None:
    by, _, _ = _split(
        "(b) Rails.",
        "(1) Top rails shall be 42 inches.",
        "Note: Stilts raise the height.",
        "Note: Second note.",
        "(2) Mid rails.",
    )
    note = by["1926.502(b)(1)[Note]"]
    assert note.kind is ProvisionKind.NOTE and note.parent_id == "1926.502(b)(1)"
    assert note.text == "Stilts raise the height." and note.heading == "Note:"
    assert by["1926.502(b)(1)[Note 2]"].text == "Second note."


def test_note_naming_a_paragraph_attaches_to_that_paragraph() -> None:
    by, _, _ = _split(
        "(b) B.",
        "(1) One.",
        "(2) Two.",
        "(i) Item.",
        "Note to paragraph ( b )(1): Applies to one.",
        "Exception: Not for two.",
    )
    assert by["1926.502(b)(1)[Note]"].heading == "Note to paragraph (b)(1):"
    assert by["1926.502(b)(2)(i)[Note]"].text == "Not for two."


def test_source_line_goes_to_section_metadata_not_nodes() -> None:
    by, _, provs = _split("(a) A.", "[61 FR 46104, Aug. 30, 1996]", "Editorial Note: See the list.")
    assert provs[0].source_note == "[61 FR 46104, Aug. 30, 1996]"
    assert all("61 FR" not in p.text for p in provs)
    assert by["1926.502[Note]"].heading == "Editorial Note:"


def test_pages_are_the_union_of_a_provisions_lines() -> None:
    by, _, provs = _split(
        Line("(a) Starts on one page", page=3),
        Line("and continues on the next.", page=4),
        Line("(b) Next.", page=4),
    )
    assert by["1926.502(a)"].pages == (3, 4)
    assert by["1926.502(b)"].pages == (4,)
    assert provs[0].pages == (3, 4)


def test_urls_point_at_section_and_paragraph_fragment() -> None:
    by, _, provs = _split("(b) B.", "(15) Rope.")
    assert provs[0].url == "https://www.ecfr.gov/current/title-29/section-1926.502"
    assert (
        by["1926.502(b)(15)"].url
        == "https://www.ecfr.gov/current/title-29/section-1926.502#p-1926.502(b)(15)"
    )


def test_no_url_base_means_no_urls() -> None:
    provs, _ = split_section("c", "1.1", "H", [Line("(a) A.")], parent_id="1", order_start=0, url_base=None)
    assert all(p.url is None for p in provs)


def test_reserved_paragraphs_and_label_ranges() -> None:
    by, odd, _ = _split("(a) A.", "(1) One.", "(2) [Reserved]", "(3)-(5) [Reserved]", "(6) Six.")
    assert by["1926.502(a)(2)"].reserved and by["1926.502(a)(2)"].text == ""
    assert "1926.502(a)(3)-(5)" in by and "1926.502(a)(6)" in by and odd == []


def test_embedded_section_appendix_becomes_appendix_node() -> None:
    by, _, _ = _split(
        "(a) A.",
        "Appendix A to § 1926.502—Guidance (Non-Mandatory) Text of the appendix.",
        "[1 FR 1, Jan. 1, 2000]",
    )
    app = by["1926.502 Appendix A"]
    assert app.kind is ProvisionKind.APPENDIX and app.parent_id == "1926.502"


def test_skipped_label_is_reported_as_oddity() -> None:
    by, odd, _ = _split("(a) A.", "(c) C.")
    assert "1926.502(c)" in by
    assert len(odd) == 1 and odd[0].startswith("1926.502: (c) follows (a)")


def test_section_starting_past_a_is_kept_and_reported() -> None:
    by, odd, _ = _split("(b) B.")
    assert by["1926.502(b)"].parent_id == "1926.502" and len(odd) == 1


def test_label_fitting_nowhere_is_kept_as_text_and_reported() -> None:
    by, odd, _ = _split("(a) A.", "(Q) Orphan.")
    assert "1926.502(Q)" not in by and "Orphan" in by["1926.502(a)"].text
    assert odd and "fits no open paragraph" in odd[0]


def test_italic_heading_hint_is_trusted() -> None:
    by, _, _ = _split(Line("(a) Rails shall be. (1) One.", italic_heading="Rails shall be."))
    assert by["1926.502(a)"].heading == "Rails shall be." and "1926.502(a)(1)" in by


def test_label_ordinals_follow_cfr_sequences() -> None:
    assert label_ordinal(3, "xiv") == 13
    assert label_ordinal(1, "aa") == 26
    assert label_ordinal(3, "iiv") is None
    assert label_ordinal(4, "a") is None
