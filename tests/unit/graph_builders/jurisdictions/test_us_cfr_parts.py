"""A CFR corpus holds the parts its spec names (Part 1926 of a file that also holds 1928 and 1949-1992; every
part of the 1902-1908 file), and a citation outside the corpus is named as a reader names it."""

from __future__ import annotations

from bifrost.graph_builders.jurisdictions.registry import pack_of


def test_each_corpus_reads_the_parts_its_spec_names():
    pack = pack_of("osha-1926")
    assert pack.parts_of("osha-1926") == ("1926",)
    assert pack.parts_of("osha-1900-1909") is None  # every part the file holds
    assert pack.parts_of("title-29-part-1904") == ("1904",)
    assert pack.parts_of("my-own-rules") is None


def test_a_citation_outside_the_corpus_is_named_with_its_title_and_part():
    place = pack_of("osha-1926").place_of("1910.147(c)", "osha-1926")
    assert place.cited == "29 CFR 1910.147(c)"
    assert place.about == "Occupational Safety and Health Standards (general industry)"
    assert (
        pack_of("adgm").place_of("GEN 3.2", "adgm").cited == "GEN 3.2"
    )  # a pack without a table: as written
