"""The code and model versions an answer record carries: the package version and, in a git checkout, the
commit; the embedding and chat models; a sha256 prefix of each corpus's ranker (read once per file change)."""

from __future__ import annotations

import functools
from importlib import metadata
from pathlib import Path

from bifrost.core.settings import Settings
from bifrost.retrieval.ranking.ltr.model import model_paths, ranker_sha256


def _git_commit(root: Path) -> str:
    head = root / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if not ref.startswith("ref: "):
            return ref[:12]
        name = ref[5:]
        loose = root / ".git" / name
        if loose.is_file():
            return loose.read_text().strip()[:12]
        for line in (root / ".git" / "packed-refs").read_text().splitlines():
            if line.endswith(" " + name):
                return line.split()[0][:12]
    except OSError:
        return ""
    return ""


@functools.cache
def code_version() -> str:
    """``bifrost-rag 0.1.0`` plus ``+g<commit>`` when the package runs from a git checkout."""
    try:
        version = metadata.version("bifrost-rag")
    except metadata.PackageNotFoundError:
        version = "unknown"
    commit = _git_commit(Path(__file__).resolve().parents[3])
    return f"bifrost-rag {version}" + (f"+g{commit}" if commit else "")


# the file's path and stat -> its hash: read once per change
_RANKER_SHAS: dict[tuple[str, int, int], str] = {}


def ranker_version(settings: Settings, corpus: str) -> str | None:
    """A sha256 prefix of the corpus's stored ranker (`ranker_sha256`), read again only when the file
    changes."""
    path = model_paths(settings, corpus)[0]
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _RANKER_SHAS:
        _RANKER_SHAS[key] = ranker_sha256(settings, corpus)[:16]
    return _RANKER_SHAS[key]


def model_versions(settings: Settings, corpora: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {"embedding": settings.embedding_model, "chat": settings.llm_model}
    for c in corpora:
        out[f"ranker:{c}"] = ranker_version(settings, c)
    return out
