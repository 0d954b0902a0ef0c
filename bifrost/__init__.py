"""Bifrost: question answering over regulations with a dual knowledge graph.

The public API, loaded lazily (``import bifrost`` imports nothing heavy, so ``bifrost --help``
stays fast)::

    from bifrost import Bifrost

    with Bifrost() as bf:                       # state in $BIFROST_HOME (default ~/.bifrost)
        bf.build("osha-1926")                   # ingest, Document Navigator Graph, Entity Network Graph
        answer = bf.ask("When is fall protection required on a roof?")
        print(answer.text)                      # every statement cites provision ids

`Bifrost` also has ``search``, ``show``, ``diff``, ``train_ranker``, ``train_answerability`` and
``evaluate``; `Settings` configures a home, `RetrievalConfig` the retrieval knobs.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from bifrost.app.facade import Bifrost, BuildReport
    from bifrost.core.errors import BifrostError
    from bifrost.core.settings import Settings
    from bifrost.core.answer_types import Answer, Citation, RetrievedItem, Statement
    from bifrost.core.types import Provision
    from bifrost.retrieval.config import RetrievalConfig

_EXPORTS = {
    "Bifrost": "bifrost.app.facade",
    "BuildReport": "bifrost.app.facade",
    "Settings": "bifrost.core.settings",
    "RetrievalConfig": "bifrost.retrieval.config",
    "BifrostError": "bifrost.core.errors",
    "Answer": "bifrost.core.answer_types",
    "Statement": "bifrost.core.answer_types",
    "Citation": "bifrost.core.answer_types",
    "Provision": "bifrost.core.types",
    "RetrievedItem": "bifrost.core.answer_types",
}
"""Public name -> the module that defines it (imported on first use)."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bifrost-rag")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


__version__ = _version()
__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bifrost' has no attribute {name!r}")
    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
