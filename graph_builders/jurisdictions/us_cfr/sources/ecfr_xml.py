"""Parse eCFR XML (versioner API ``full`` endpoint): DIV5 part, DIV6 subpart, DIV8 section, DIV9 appendix.

Paragraph text goes through ``split_section``; the XML's italics (``(<I>1</I>)`` labels of levels
5-6 and ``<I>Heading.</I>`` paragraph headings) are handed over on each ``Line`` so nothing is guessed.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import quote

from lxml import etree

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ParsedDocument, Provision, ProvisionKind, SourceDocument
from bifrost.graph_builders.jurisdictions.us_cfr.sources.paragraphs import Line, split_section

URL_BASE = "https://www.ecfr.gov/current/title-29"
_TEXT_TAGS = {
    "P",
    "FP",
    "NOTE",
    "EXTRACT",
    "GPOTABLE",
    "CITA",
    "EDNOTE",
    "EFFDNOT",
    "PSPACE",
    "HD1",
    "HD2",
    "HD3",
}
# ASCII digits
_SECTION_HEAD = re.compile(
    r"^§§?\s*(?P<id>[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9])(?:\s*[-–]\s*[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9]))?)\s*(?P<heading>.*)$",
    re.S,
)
_LABEL_ONLY = re.compile(r"^\s*(?:\(\s?\w{1,7}\s?\)\s*)+$")
_APPENDIX_LETTER = re.compile(r"Appendix ([A-Z0-9]{1,3})\b")
_SECTION_APPENDIX = re.compile(r"to §\s?([1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9]))")
# What an N attribute must look like to become an id (anything else is skipped as an oddity)
_PART_N = re.compile(r"[1-9][0-9]{0,3}")
_SUBPART_N = re.compile(r"[A-Z]{1,2}")
_SECTION_N = re.compile(
    r"[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9])(?:-[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9]))?"
)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _text(el: etree._Element) -> str:
    return _clean("".join(el.itertext()))


def _paragraph_line(p: etree._Element) -> Line:
    """A ``P``: its text, whether its label is italic, and the italic heading after the label."""
    lead = p.text or ""
    children = [c for c in p if isinstance(c.tag, str)]
    italic_label = False
    heading: str | None = None
    if (
        children
        and children[0].tag == "I"
        and lead.strip().endswith("(")
        and (children[0].tail or "").startswith(")")
    ):
        italic_label = _LABEL_ONLY.match(f"({children[0].text or ''})") is not None
    before = lead
    for child in children:
        if child.tag == "I" and _LABEL_ONLY.match(before) and not (italic_label and child is children[0]):
            heading = _clean(child.text or "") or None
            break
        before += "".join(child.itertext()) + (child.tail or "")
    return Line(_text(p), italic_label=italic_label, italic_heading=heading)


def _table_line(table: etree._Element) -> Line:
    rows = [" | ".join(_text(c) for c in row if isinstance(c.tag, str)) for row in table.iter("ROW", "BOXHD")]
    title = next((_text(t) for t in table.iter("TTITLE")), "")
    return Line("\n".join(r for r in [title, *rows] if r))


def _lines(div: etree._Element) -> list[Line]:
    """The content lines of a section or appendix in document order."""
    out: list[Line] = []
    for el in div:
        if not isinstance(el.tag, str) or el.tag == "HEAD":
            continue
        if el.tag in ("P", "FP"):
            out.append(_paragraph_line(el))
        elif el.tag == "GPOTABLE":
            out.append(_table_line(el))
        elif el.tag in ("NOTE", "EDNOTE", "EFFDNOT"):
            hed = next((_text(h) for h in el if h.tag in ("HED", "HD1")), "Note:")
            body = " ".join(_text(c) for c in el if isinstance(c.tag, str) and c.tag not in ("HED", "HD1"))
            out.append(Line(f"{hed if hed.endswith(':') else hed + ':'} {body}".strip()))
        elif el.tag == "CITA":
            cita = _text(el)
            out.append(Line(cita if cita.startswith("[") else f"[{cita}]"))
        elif el.tag == "EXTRACT":
            out += _lines(el)
        elif el.tag in _TEXT_TAGS:
            out.append(Line(_text(el)))
    return [line for line in out if line.text]


def _appendix(
    corpus: str, div: etree._Element, part: str, subpart: str | None, order: int, doc: str
) -> Provision:
    head = _text(div.find("HEAD")) if div.find("HEAD") is not None else str(div.get("N", ""))
    letter = _APPENDIX_LETTER.search(head) or _APPENDIX_LETTER.search(str(div.get("N", "")))
    sec = _SECTION_APPENDIX.search(head)
    owner = sec.group(1) if sec else (f"{part} Subpart {subpart}" if subpart else part)
    pid = f"{owner} Appendix {letter.group(1)}" if letter else f"{owner} Appendix"
    text = "\n".join(line.text for line in _lines(div))
    url = (
        f"{URL_BASE}/part-{part}"
        + (f"/subpart-{subpart}" if subpart else "")
        + f"/appendix-{quote(str(div.get('N', head)))}"
    )
    level = 3 if sec else (2 if subpart else 1)
    return Provision(
        corpus=corpus,
        id=pid,
        parent_id=owner,
        kind=ProvisionKind.APPENDIX,
        heading=head,
        text=text,
        level=level,
        order=order,
        url=url,
        document=doc,
        reserved=head.endswith("[Reserved]") and not text,
    )


def _parse_tree(path: Path) -> etree._Element:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise SourceParseError(path, f"cannot read file: {e.strerror or e}") from e
    if not raw.strip():
        raise SourceParseError(path, "file is empty (expected eCFR XML)")
    try:
        return etree.fromstring(
            raw, parser=etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
        )
    except etree.XMLSyntaxError as e:
        raise SourceParseError(path, f"malformed XML: {e.msg} (line {e.lineno})") from e


_DATED = re.compile(r"^(?P<stem>title-\d+-part-[0-9A-Za-z]+)-(?P<date>\d{4}-\d{2}-\d{2})\.xml$")


def document_name(path: Path) -> tuple[str, str | None]:
    """The source's name and edition date: a point-in-time download (``title-29-part-1926-2024-01-01.xml``,
    as `bifrost download --date` saves it) is the same document in another edition."""
    m = _DATED.match(path.name)
    return (f"{m['stem']}.xml", m["date"]) if m else (path.name, None)


def _read_part(
    part_el, part: str, corpus: str, provisions: list[Provision], oddities: list[str], document: str
) -> None:
    """The subparts, sections and appendices of one part (DIV5), appended to ``provisions`` in order."""
    for el in part_el.iter("DIV6", "DIV8", "DIV9"):
        sub_el = next((a for a in el.iterancestors("DIV6")), None) if el.tag != "DIV6" else el
        letter = str(sub_el.get("N", "")).strip() if sub_el is not None else None
        if letter is not None and not _SUBPART_N.fullmatch(letter):
            if el.tag == "DIV6":
                oddities.append(
                    f"{part}: subpart element with N={letter[:20]!r}, not a subpart letter; its "
                    "sections go under the part"
                )
                continue
            letter = None
        parent = f"{part} Subpart {letter}" if letter else part
        if el.tag == "DIV6":
            sub_head = _text(el.find("HEAD")) if el.find("HEAD") is not None else ""
            sub_heading = re.sub(r"^Subpart [A-Z]{1,2}\s*[—-]\s*", "", sub_head)
            provisions.append(
                Provision(
                    corpus=corpus,
                    id=parent,
                    parent_id=part,
                    kind=ProvisionKind.SUBPART,
                    heading=sub_heading,
                    level=1,
                    order=len(provisions),
                    url=f"{URL_BASE}/part-{part}/subpart-{letter}",
                    document=document,
                    reserved=sub_head.endswith("[Reserved]"),
                )
            )
        elif el.tag == "DIV9":
            provisions.append(_appendix(corpus, el, part, letter, len(provisions), document))
        else:
            head_el = el.find("HEAD")
            m = _SECTION_HEAD.match(_text(head_el)) if head_el is not None else None
            sid = re.sub(r"\s", "", m.group("id")).replace("–", "-") if m else str(el.get("N", "")).strip()
            if not _SECTION_N.fullmatch(sid):
                oddities.append(
                    f"{parent}: section without a § heading or an N attribute naming it ({sid[:20]!r}); "
                    "skipped"
                )
                continue
            provs, odd = split_section(
                corpus,
                sid,
                m.group("heading").strip() if m else "",
                _lines(el),
                parent_id=parent,
                order_start=len(provisions),
                url_base=URL_BASE,
                document=document,
            )
            provisions += provs
            oddities += odd


def parse_ecfr_xml(path: Path, corpus: str, **_other_formats: object) -> ParsedDocument:
    """Parse every part (DIV5) in an eCFR XML file; sections odd in shape are listed in ``oddities``."""
    path = Path(path)
    root = _parse_tree(path)
    parts = [root] if root.tag == "DIV5" else list(root.iter("DIV5"))
    if not parts:
        raise SourceParseError(
            path, f"no <DIV5> part element found (root is <{root.tag}>); expected eCFR versioner XML"
        )
    provisions: list[Provision] = []
    oddities: list[str] = []
    for part_el in parts:
        part = str(part_el.get("N", "")).strip()
        if not _PART_N.fullmatch(part):
            oddities.append(f"part element with N={part[:20]!r}, not a CFR part number; skipped")
            continue
        head = _text(part_el.find("HEAD")) if part_el.find("HEAD") is not None else f"PART {part}"
        heading = re.sub(rf"^PART {re.escape(part)}\s*[—-]\s*", "", head)
        provisions.append(
            Provision(
                corpus=corpus,
                id=part,
                kind=ProvisionKind.PART,
                heading=heading,
                level=0,
                order=len(provisions),
                url=f"{URL_BASE}/part-{part}",
                document=path.name,
            )
        )
        _read_part(part_el, part, corpus, provisions, oddities, path.name)
    if not provisions:
        raise SourceParseError(path, f"no CFR part found: {'; '.join(oddities[:3])}")
    checksum = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    name, edition = document_name(path)
    if name != path.name:
        provisions = [p.model_copy(update={"document": name}) for p in provisions]
    document = SourceDocument(corpus=corpus, name=name, format="ecfr-xml", checksum=checksum, edition=edition)
    return ParsedDocument(document=document, provisions=tuple(provisions), oddities=tuple(oddities))
