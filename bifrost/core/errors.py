"""One error tree for Bifrost: every failure a user can see is a `BifrostError`.

Messages name the file, field or citation, the value found and the fix; context is kept as
attributes so the CLI and web app can render a one-line message.
"""

from __future__ import annotations

from pathlib import Path


class BifrostError(Exception):
    """Root of every error Bifrost raises on purpose."""


class SourceParseError(BifrostError):
    """A source file (JSON, XML, HTML, PDF, ...) cannot be read or parsed."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class CitationError(BifrostError):
    """A citation that the grammar rejects."""

    def __init__(self, citation: str, reason: str) -> None:
        self.citation = citation
        self.reason = reason
        super().__init__(f"citation {citation!r}: {reason}")


class StoreError(BifrostError):
    """A store (SQL or graph) cannot be reached or refused an operation."""


class NotFoundError(BifrostError):
    """A corpus, provision or entity that does not exist."""


class PromptError(BifrostError):
    """A prompt file is missing or a placeholder is not filled."""


class ModelUnavailableError(BifrostError):
    """A model (chat, embedding, spaCy) is not installed or not configured."""


class ModelUnreachableError(ModelUnavailableError):
    """A chat model server that kept refusing or dropping connections (the circuit breaker opened)."""

    def __init__(self, model: str, failures: int, last: str) -> None:
        self.model = model
        self.failures = failures
        self.last = last
        super().__init__(
            f"chat model {model!r} is unreachable: {failures} consecutive connection failures (last: {last})"
        )


class RetryableError(BifrostError):
    """A transient failure worth retrying (timeouts, rate limits)."""


class ConfigError(BifrostError):
    """A setting with a value Bifrost cannot use; the message names the setting and how to set it."""


class MissingExtraError(BifrostError):
    """An optional feature whose packages are not installed; the message names the extra to install."""

    def __init__(self, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(f"this needs the {package!r} package: pip install 'bifrost-rag[{extra}]'")


class EntityBuildAborted(BifrostError):
    """An entity build that stopped before writing: the stored network is untouched.

    Extractions already journaled (LLM extractor) are kept, so running the build again resumes;
    ``report`` is the build's `EntityBuildReport` so far, when there is one.
    """

    def __init__(self, corpus: str, reason: str, report: object | None = None) -> None:
        self.corpus = corpus
        self.reason = " ".join(reason.split())
        self.report = report
        super().__init__(
            f"entity build of {corpus!r} stopped, nothing written (the previous entity network is kept): "
            f"{self.reason}"
        )
