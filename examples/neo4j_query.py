"""Export a corpus's two graphs to Neo4j (`make neo4j` starts one) and run a saved analyst query
from docker/neo4j/queries.cypher; --corpus sets its corpus parameter, --param NAME=LITERAL others:
    python examples/neo4j_query.py --home .bifrost-demo --corpus osha-1926 \\
        --query cross_reference_neighbourhood --param "id='1926.502(k)'"
"""

import argparse
import ast
import re
from pathlib import Path

from neo4j import GraphDatabase

from bifrost.app.facade import Bifrost
from bifrost.core.errors import BifrostError
from bifrost.core.settings import Settings

QUERIES = Path(__file__).resolve().parents[1] / "docker" / "neo4j" / "queries.cypher"


def saved_queries() -> dict[str, tuple[str, dict]]:
    """key -> (query text, default parameters), from the "// ==== key:" and "// :param" lines."""
    out: dict[str, tuple[list[str], dict]] = {}
    for line in QUERIES.read_text().splitlines():
        if m := re.match(r"^// ==== (\w+): ", line):
            body, params = out[m[1]] = ([], {})
        elif out and (m := re.match(r"^// :param (\w+) => (.+)$", line)):
            params[m[1]] = ast.literal_eval(m[2])
        elif out and not line.startswith("//"):
            body.append(line)
    return {k: ("\n".join(body).strip().rstrip(";"), params) for k, (body, params) in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="BIFROST_HOME with the corpus built")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--neo4j", default="bolt://127.0.0.1:7687", help="Bolt URI of the Neo4j server")
    ap.add_argument("--query", default="most_referenced_provisions", choices=sorted(saved_queries()))
    ap.add_argument("--param", action="append", default=[], metavar="NAME=LITERAL", help="A parameter")
    args = ap.parse_args()
    bf = Bifrost(settings := Settings(home=args.home, neo4j_uri=args.neo4j))
    try:
        print("exported:", bf.export_neo4j(args.corpus).stats.model_dump())
    except BifrostError as e:
        raise SystemExit(f"error: {e}") from None
    finally:
        bf.close()
    text, params = saved_queries()[args.query]
    given = {n: ast.literal_eval(v) for n, v in (p.split("=", 1) for p in args.param)}
    params |= {"corpus": args.corpus} | given
    auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
    with GraphDatabase.driver(args.neo4j, auth=auth) as driver:
        records, _, _ = driver.execute_query(text, params, database_=settings.neo4j_database)
    print(*(record.data() for record in records), f"{len(records)} row(s) from {args.query}", sep="\n")


if __name__ == "__main__":
    main()
