"""Models in a forked child give the same results as in-process, and any failure of the child
falls back to in-process work with one log line. Each case runs in a fresh interpreter: forking
is only safe (and only done) before torch is loaded."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.conftest import subprocess_env

TEXTS = [
    "How to protect excavation work from rainstorm hazard?",
    "excavation",
    "rainstorm hazard",
    "guardrail",
]

SETUP = textwrap.dedent(f"""
    import json, logging, sys
    import numpy as np
    from bifrost.core.embeddings import SentenceTransformerEmbedder, encode_service
    from bifrost.core.model_process import ModelProcess
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s", stream=sys.stdout)
    TEXTS = {TEXTS!r}
    make = lambda: SentenceTransformerEmbedder(num_threads=1)
    encode = lambda: encode_service(make())
    def same_as_in_process(vectors_by_call):
        local = make()
        return all(np.array_equal(v, local.embed(t)) for t, v in vectors_by_call)
""")


def run(body: str) -> tuple[dict, str]:
    """Run SETUP + body in a new interpreter; the JSON of its last stdout line, and the lines before."""
    done = subprocess.run(
        [sys.executable, "-c", SETUP + textwrap.dedent(body)],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    *before, last = done.stdout.strip().splitlines()
    return json.loads(last), "\n".join(before)


def test_vectors_from_the_child_are_the_same_floats_and_torch_stays_out_of_the_parent():
    result, log = run("""
        process = ModelProcess.start({"encode": encode})
        e = make(); e.use_process(process)
        calls = [(TEXTS, e.embed(TEXTS)), (["scaffold", "excavation"], e.embed(["scaffold", "excavation"]))]
        torch_in_parent = "torch" in sys.modules
        child_alive = process.process.is_alive()
        process.close()
        print(json.dumps({"torch_in_parent": torch_in_parent, "child_alive": child_alive,
                          "same": same_as_in_process(calls), "ended": not process.process.is_alive()}))
    """)
    assert result == {"torch_in_parent": False, "child_alive": True, "same": True, "ended": True}
    assert log == ""


def test_a_service_that_cannot_load_falls_back_in_process_with_one_line_and_others_still_serve():
    result, log = run("""
        def broken():
            raise OSError("model folder unreadable")
        process = ModelProcess.start({"encode": broken, "echo": lambda: (lambda x: x)})
        e = make(); e.use_process(process)
        calls = [(TEXTS, e.embed(TEXTS)), (["scaffold"], e.embed(["scaffold"]))]
        print(json.dumps({"same": same_as_in_process(calls), "echo": process.call("echo", [1, "a"]),
                          "failed": sorted(process.failed)}))
    """)
    assert result == {"same": True, "echo": [1, "a"], "failed": ["encode"]}
    lines = log.splitlines()
    assert len(lines) == 1 and "model folder unreadable" in lines[0] and "in this process" in lines[0]


def test_a_child_that_dies_falls_back_in_process():
    result, log = run("""
        process = ModelProcess.start({"encode": encode})
        process.process.kill(); process.process.join()
        e = make(); e.use_process(process)
        calls = [(TEXTS, e.embed(TEXTS)), (["scaffold"], e.embed(["scaffold"]))]
        print(json.dumps({"same": same_as_in_process(calls)}))
        process.close()
    """)
    assert result == {"same": True}
    assert len(log.splitlines()) == 1 and "ended" in log


def test_no_child_once_torch_is_loaded_or_another_thread_runs():
    result, _ = run("""
        import threading
        stop = threading.Event()
        t = threading.Thread(target=stop.wait); t.start()
        with_thread = ModelProcess.start({"encode": encode})
        stop.set(); t.join()
        import torch
        with_torch = ModelProcess.start({"encode": encode})
        print(json.dumps({"with_thread": with_thread is None, "with_torch": with_torch is None}))
    """)
    assert result == {"with_thread": True, "with_torch": True}


def test_one_child_per_service_each_serving_its_own_and_a_killed_one_falls_back_alone():
    result, log = run("""
        import os
        from bifrost.core.model_process import ModelProcesses, call_or_none
        processes = ModelProcesses.start({"encode": encode, "pid": lambda: (lambda _x: os.getpid())})
        e = make(); e.use_process(processes)
        pids = {name: child.process.pid for name, child in processes.children.items()}
        calls = [(TEXTS, e.embed(TEXTS))]
        served_by = call_or_none(processes, "pid", None)[1]
        processes.children["pid"].process.kill(); processes.children["pid"].process.join()
        after_kill = call_or_none(processes, "pid", None)
        calls.append((["scaffold"], e.embed(["scaffold"])))
        torch_in_parent = "torch" in sys.modules
        processes.close()
        own_pid = served_by == pids["pid"] != os.getpid()
        print(json.dumps({"children": len(set(pids.values())), "own_pid": own_pid,
                          "after_kill": list(after_kill), "same": same_as_in_process(calls),
                          "failed": sorted(processes.failed), "torch_in_parent": torch_in_parent,
                          "ended": not any(c.process.is_alive() for c in processes.children.values())}))
    """)
    assert result == {
        "children": 2,
        "own_pid": True,
        "after_kill": [False, None],
        "same": True,
        "failed": ["pid"],
        "torch_in_parent": False,
        "ended": True,
    }
    assert len(log.splitlines()) == 1 and "ended" in log
