"""Ask a question and print each statement with the exact words it rests on.

    python examples/ask_with_quotes.py --home .bifrost-demo --corpus osha-1926 \
        "How to protect excavation work from rainstorm hazard?"

Every statement cites provision ids and carries quotes: character offsets into the stored text
of the provision, which this script re-checks and shows in context.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings

CONTEXT = 40  # characters shown around a quote


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("question")
    ap.add_argument("--home", type=Path, required=True, help="BIFROST_HOME with the corpus built")
    ap.add_argument("--corpus", default="osha-1926")
    args = ap.parse_args()

    bf = Bifrost(Settings(home=args.home))
    try:
        answer = bf.ask(args.question, args.corpus)
        print(f"Q: {answer.question}\n({answer.mode.value} answer)\n")
        if answer.refused:
            print(answer.text)
            return
        for n, st in enumerate(answer.statements, start=1):
            print(f"{n}. {st.text}  [{'] ['.join(st.citations)}]")
            for q in st.quotes:
                stored = bf.provision(args.corpus, q.provision_id).text
                assert stored[q.start : q.end] == q.text  # the span is the provision's own words
                before = stored[max(0, q.start - CONTEXT) : q.start]
                after = stored[q.end : q.end + CONTEXT]
                shown = " ".join(f"...{before}>>{q.text}<<{after}...".split())
                print(f"   {q.provision_id} [{q.start}:{q.end}] {shown}")
        print("\nSources:")
        for c in answer.citations:
            print(f"   {c.id}  {c.url or ''}")
    finally:
        bf.close()


if __name__ == "__main__":
    main()
