"""The Docker route starts (checked without a Docker engine): the compose file, the image and the entrypoint
agree (the image runs docker/entrypoint.sh, tokens are required since the app listens on 0.0.0.0 in its
container, the compose file passes the corpus to ingest), and the entrypoint, run against a local home,
ingests the corpus once, creates an admin whose token it prints once, and ends with the serve command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
BIFROST = Path(sys.executable).with_name("bifrost")
RULES = ROOT / "examples" / "rulebooks" / "acme-site-rules.html"
pytestmark = pytest.mark.timeout(600)


def test_the_image_the_compose_file_and_the_entrypoint_agree():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    compose = (ROOT / "docker" / "docker-compose.yml").read_text()
    assert "COPY docker/entrypoint.sh /usr/local/bin/bifrost-entrypoint" in dockerfile
    assert 'CMD ["bifrost-entrypoint"]' in dockerfile and "BIFROST_AUTH=tokens" in dockerfile
    assert "BIFROST_AUTH: ${BIFROST_AUTH:-tokens}" in compose and "BIFROST_INGEST:" in compose
    assert re.search(r"--host 0\.0\.0\.0", ENTRYPOINT.read_text())


def run(home: Path, **env: str) -> subprocess.CompletedProcess:
    shim = home.parent / "bin"
    shim.mkdir(exist_ok=True)
    # the image's `bifrost`, pointed at this test's home and at a local rulebook as the corpus's source
    (shim / "bifrost").write_text(
        f'#!/usr/bin/env bash\nif [[ "$1" == ingest ]]; then set -- "$@" "{RULES}"; fi\n'
        f'exec "{BIFROST}" --home "{home}" "$@"\n'
    )
    (shim / "bifrost").chmod(0o755)
    full = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "BIFROST_ENTRYPOINT_DRY": "1",
        "BIFROST": str(shim / "bifrost"),
    }
    return subprocess.run(
        ["bash", str(ENTRYPOINT)],
        env={**full, **env},
        capture_output=True,
        text=True,
        timeout=550,
        check=False,
    )


def test_the_entrypoint_ingests_once_creates_an_admin_once_and_serves(tmp_path):
    home = tmp_path / "home"
    first = run(home, BIFROST_INGEST="acme", BIFROST_AUTH="tokens")
    assert first.returncode == 0, first.stderr[-1500:]
    assert "ingesting acme" in first.stdout and "creating 'admin'" in first.stdout
    assert first.stdout.strip().splitlines()[-1].endswith("serve --host 0.0.0.0 --port 8000")
    again = run(home, BIFROST_INGEST="acme", BIFROST_AUTH="tokens")
    assert again.returncode == 0 and "ingesting" not in again.stdout and "creating" not in again.stdout


def test_with_auth_off_no_user_is_made(tmp_path):
    done = run(tmp_path / "home", BIFROST_INGEST="acme", BIFROST_AUTH="off")
    assert done.returncode == 0 and "creating" not in done.stdout
