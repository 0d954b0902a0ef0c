"""Same ranked ids and citations from two code trees for every question of a question set.

For each ``--code`` tree, asks every question of ``--questions`` in one process over its own copy of
``--home`` (so that neither reads the other's extraction journal or index files), and writes the retrieved ids
in order, the cited ids, the refusal and the statements (their text, citations and quoted spans) of each. A
tree that has `bifrost.core.model_process` asks with the model processes of a cold `bifrost ask` (the
embedding model and the spaCy parser in forked children), so their results are compared with the in-process
ones of a tree without them. Prints how many questions differ (0 expected) and exits 1 if any. With ``--record
FILE`` the answers of one tree are written to FILE; ``--against FILE`` compares a tree with answers recorded
before (a change that moves modules: record, move, compare).

    HF_HUB_OFFLINE=1 python -m benchmarks.ask_identity --home .bifrost-demo --code /path/to/main --code . \\
        --questions ../shared/eval/osha-loi-dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.code_tree import tree_env

PROBE = """
import json, sys
from bifrost.core.settings import Settings
home, corpus, questions = sys.argv[1], sys.argv[2], json.loads(open(sys.argv[3]).read())
settings = Settings(home=home)
process = None
try:
    from bifrost.app.cold_start import model_services
    from bifrost.core.model_process import ModelProcesses
    process = ModelProcesses.start(model_services(settings, questions[0], corpus))
except ImportError:
    pass
from bifrost.app.facade import Bifrost
bf = Bifrost(settings)
if process is not None:
    bf.resources.use_model_process(process)
out = []
for q in questions:
    a = bf.ask(q, corpus)
    statements = [
        [s.text, list(s.citations), [[q.provision_id, q.start, q.end] for q in s.quotes]]
        for s in a.statements
    ]
    verdict = None  # the decision, not its wording
    if a.verdict is not None:
        v = a.verdict
        verdict = f"value={v.value!r} provision_id={v.provision_id!r} words={v.words!r}"
    out.append({
        "retrieved": [it.id for it in a.retrieved], "citations": [c.id for c in a.citations],
        "refused": a.refused, "statements": statements, "outcome": str(a.outcome), "verdict": verdict,
    })
torch_in_parent = "torch" in sys.modules
print(json.dumps({"model_process": process is not None, "torch_in_parent": torch_in_parent, "answers": out}))
"""


def answers(code: Path, home: Path, corpus: str, questions_file: Path) -> dict:
    env = tree_env(code)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home), corpus, str(questions_file)],
        env=env,
        cwd=code.resolve(),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{code}: exited {done.returncode}: {done.stderr.strip()[-1000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True, help="a built home (copied for each tree)")
    ap.add_argument("--code", type=Path, action="append", required=True, help="a code tree (give two)")
    ap.add_argument("--questions", type=Path, required=True, help="JSONL with a 'question' field")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--record", type=Path, help="write the (one) tree's answers here")
    ap.add_argument("--against", type=Path, help="compare the (one) tree with answers recorded before")
    args = ap.parse_args()
    questions = [
        json.loads(line)["question"] for line in args.questions.read_text().splitlines() if line.strip()
    ]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        qfile = Path(tmp) / "questions.json"
        qfile.write_text(json.dumps(questions))
        for i, code in enumerate(args.code):
            home = Path(tmp) / f"home{i}"
            shutil.copytree(args.home, home, ignore=shutil.ignore_patterns("*-wal", "*-shm", "*.lock"))
            results[str(code)] = answers(code, home, args.corpus, qfile)
            shutil.rmtree(home)
    if args.record:
        args.record.write_text(json.dumps(results[str(args.code[0])]))
        print(f"{len(questions)} answers recorded in {args.record}")
        return
    if args.against:
        results = {str(args.against): json.loads(args.against.read_text()), **results}
    trees = list(results)
    first = results[trees[0]]["answers"]
    differ = {
        t: [questions[i] for i, (a, b) in enumerate(zip(first, results[t]["answers"])) if a != b]
        for t in trees[1:]
    }
    print(
        json.dumps(
            {
                "questions": len(questions),
                "trees": {t: {k: v for k, v in r.items() if k != "answers"} for t, r in results.items()},
                "differing_questions": {t: len(d) for t, d in differ.items()},
                "differing_fields": {
                    t: {
                        f: sum(a.get(f) != b.get(f) for a, b in zip(first, results[t]["answers"]))
                        for f in ("retrieved", "citations", "refused", "outcome", "verdict", "statements")
                    }
                    for t in trees[1:]
                },
                "examples": {t: d[:3] for t, d in differ.items()},
            },
            indent=2,
        )
    )
    sys.exit(1 if any(differ.values()) else 0)


if __name__ == "__main__":
    main()
