"""docker/docker-compose.yml is a valid Compose file wired as documented, checked without a
Docker engine: Debian's ``docker-compose`` (1.29, ``apt-get install docker-compose``) validates
the file against the Compose spec schema it ships and prints the resolved configuration, which
is then checked field by field. Missing tool: a visible skip locally, a failure in CI.
Safe defaults: Neo4j auth and the PostgreSQL password are required (no default), APOC is limited to
the procedures Bifrost uses, the app connects to both with the same credentials; the dev launchers
stay on loopback.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker" / "docker-compose.yml"
DOCKERFILE = ROOT / "docker" / "Dockerfile"
START = ROOT / "docker" / "neo4j-launcher" / "start.sh"
PG_START = ROOT / "docker" / "postgres-launcher" / "start.sh"
AUTH = "neo4j/test-password-1"
PG_PASSWORD = "testPgPassword2"
# What LangChain's Neo4jGraph calls for the graph-rag-langchain baseline (schema: apoc.meta.data,
# apoc.schema.nodes; add_graph_documents(baseEntityLabel=True): apoc.merge.relationship).
APOC_USED = {"apoc.meta.data", "apoc.schema.nodes", "apoc.merge.relationship"}


def _compose_cli() -> str:
    exe = shutil.which("docker-compose")
    if exe is None:
        msg = (
            "docker-compose not installed (apt-get install -y docker-compose) to validate "
            "docker/docker-compose.yml"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return exe


def _run(
    *args: str, auth: str | None = AUTH, pg_password: str | None = PG_PASSWORD
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "BIFROST_", "POSTGRES_"))}
    if auth is not None:
        env["NEO4J_AUTH"] = auth
    if pg_password is not None:
        env["POSTGRES_PASSWORD"] = pg_password
    return subprocess.run(
        [_compose_cli(), "-f", str(COMPOSE), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def resolved() -> dict:
    done = _run("config")
    assert done.returncode == 0, done.stderr
    return yaml.safe_load(done.stdout)


def test_the_compose_file_is_valid():
    done = _run("config", "-q")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_neo4j_auth_is_required_from_the_environment():
    done = _run("config", "-q", auth=None)
    assert done.returncode != 0
    assert "set NEO4J_AUTH=neo4j/<password>" in done.stderr


def test_neo4j_runs_5_26_community_with_auth_and_only_the_apoc_procedures_used(resolved):
    neo = resolved["services"]["neo4j"]
    env = neo["environment"]
    assert neo["image"] == "neo4j:5.26-community"
    assert env["NEO4J_PLUGINS"] == '["apoc"]'
    assert env["NEO4J_AUTH"] == AUTH
    allowed = set(env["NEO4J_dbms_security_procedures_allowlist"].split(","))
    assert allowed == APOC_USED
    assert set(env["NEO4J_dbms_security_procedures_unrestricted"].split(",")) <= allowed
    assert not any(
        "*" in p for p in allowed | set(env["NEO4J_dbms_security_procedures_unrestricted"].split(","))
    )
    assert {p.split(":", 1)[1].split("/")[0] for p in neo["ports"]} == {"7474:7474", "7687:7687"}
    assert all(p.startswith("127.0.0.1:") for p in neo["ports"])
    assert any(v.startswith("neo4j-data:/data") for v in neo["volumes"])
    assert neo["healthcheck"]["test"]


def test_the_app_talks_to_the_neo4j_service_once_it_is_healthy(resolved):
    app = resolved["services"]["app"]
    assert app["environment"]["BIFROST_STORE"] == "neo4j"
    assert app["environment"]["BIFROST_NEO4J_URI"] == "bolt://neo4j:7687"
    assert app["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert app["environment"]["NEO4J_AUTH"] == resolved["services"]["neo4j"]["environment"]["NEO4J_AUTH"]
    assert Path(app["build"]["context"]) == ROOT
    assert app["build"]["dockerfile"] == "docker/Dockerfile"
    assert any("8000:8000" in p for p in app["ports"])


def test_the_dockerfile_serves_bifrost_on_all_interfaces():
    text = DOCKERFILE.read_text()
    assert text.startswith("#") and "FROM python:3.11-slim" in text
    assert "pip install ." in text
    assert 'CMD ["bifrost-entrypoint"]' in text  # it ends with `bifrost serve --host 0.0.0.0 --port 8000`
    assert (
        'exec "$BIFROST" serve --host 0.0.0.0 --port "$PORT"'
        in (ROOT / "docker" / "entrypoint.sh").read_text()
    )
    assert "pip install .[web,neo4j,postgres]" in text  # the server, and the drivers of both services


def test_the_dockerfile_copies_every_folder_the_package_installs():
    folders = re.findall(r'"(\w+)": "bifrost\.\w+"', (ROOT / "setup.py").read_text(encoding="utf-8"))
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text(encoding="utf-8")
    assert {"graph_builders", "retrieval", "eval", "training", "prompts"} <= set(folders)
    assert [f for f in folders if f"COPY {f} ./{f}" not in dockerfile] == []


def test_the_postgres_password_is_required_from_the_environment():
    done = _run("config", "-q", pg_password=None)
    assert done.returncode != 0
    assert "set POSTGRES_PASSWORD=<password>" in done.stderr


def test_postgres_keeps_its_data_in_a_volume_and_listens_on_loopback(resolved):
    pg = resolved["services"]["postgres"]
    assert pg["image"] == "postgres:15"
    assert pg["environment"]["POSTGRES_PASSWORD"] == PG_PASSWORD
    assert (pg["environment"]["POSTGRES_USER"], pg["environment"]["POSTGRES_DB"]) == ("bifrost", "bifrost")
    assert any(v.startswith("postgres-data:/var/lib/postgresql/data") for v in pg["volumes"])
    assert all(p.startswith("127.0.0.1:") for p in pg["ports"])
    assert "pg_isready" in " ".join(pg["healthcheck"]["test"])


def test_the_app_uses_the_postgres_service_as_its_sql_store_once_it_is_healthy(resolved):
    from sqlalchemy import make_url

    app = resolved["services"]["app"]
    url = make_url(app["environment"]["BIFROST_DATABASE_URL"])
    pg = resolved["services"]["postgres"]["environment"]
    assert (url.drivername, url.host, url.port) == ("postgresql+psycopg", "postgres", 5432)
    assert (url.username, url.password, url.database) == (pg["POSTGRES_USER"], PG_PASSWORD, pg["POSTGRES_DB"])
    assert app["depends_on"]["postgres"]["condition"] == "service_healthy"


@pytest.mark.parametrize("host", ["0.0.0.0", "10.0.0.5", "example.org"])
def test_the_dev_postgres_launcher_refuses_a_non_loopback_address(tmp_path, host):
    env = {**os.environ, "BIFROST_PG_HOST": host, "BIFROST_PG_RUN": str(tmp_path / "run")}
    done = subprocess.run(
        ["bash", str(PG_START)], capture_output=True, text=True, timeout=30, env=env, check=False
    )
    assert done.returncode == 2 and "loopback" in done.stderr
    assert not (tmp_path / "run").exists()


def test_the_files_the_neo4j_service_mounts_exist():
    assert (ROOT / "docker" / "neo4j" / "bifrost.grass").is_file()
    assert (ROOT / "docker" / "neo4j" / "queries.cypher").is_file()


def test_the_app_reads_its_neo4j_credentials_from_neo4j_auth(monkeypatch):
    from bifrost.core.settings import Settings

    for key in [k for k in os.environ if k.startswith("BIFROST_NEO4J_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("NEO4J_AUTH", AUTH)
    s = Settings()
    assert (s.neo4j_user, s.neo4j_password) == ("neo4j", "test-password-1")
    monkeypatch.setenv("BIFROST_NEO4J_PASSWORD", "explicit")
    assert Settings().neo4j_password == "explicit"
    monkeypatch.setenv("NEO4J_AUTH", "none")
    monkeypatch.delenv("BIFROST_NEO4J_PASSWORD")
    assert Settings().neo4j_password == ""


def test_the_apoc_allowlist_covers_every_apoc_call_in_the_project():
    texts = [
        p.read_text(encoding="utf-8")
        for pkg in ("bifrost", "graph_builders", "retrieval", "eval", "training")
        for p in (ROOT / pkg).rglob("*.py")
    ]
    texts.append((ROOT / "docker" / "neo4j" / "queries.cypher").read_text(encoding="utf-8"))
    called = {m for t in texts for m in re.findall(r"\bapoc\.[A-Za-z_.]*[A-Za-z_]", t)}
    assert called <= APOC_USED


@pytest.mark.parametrize("host", ["0.0.0.0", "10.0.0.5", "example.org"])
def test_the_auth_less_dev_launcher_refuses_a_non_loopback_address(tmp_path, host):
    env = {**os.environ, "BIFROST_NEO4J_HOST": host, "BIFROST_NEO4J_RUN": str(tmp_path / "run")}
    done = subprocess.run(
        ["bash", str(START)], capture_output=True, text=True, timeout=30, env=env, check=False
    )
    assert done.returncode == 2 and "auth off" in done.stderr and "loopback" in done.stderr
    assert not (tmp_path / "run").exists()


def test_the_dev_launcher_says_auth_is_off_when_it_starts():
    assert "auth is OFF (development only)" in START.read_text()
    java = (
        ROOT
        / "docker"
        / "neo4j-launcher"
        / "src"
        / "main"
        / "java"
        / "dev"
        / "bifrost"
        / "neo4j"
        / "Launcher.java"
    ).read_text()
    assert "auth is OFF (development only)" in java and "isLoopback(host)" in java
