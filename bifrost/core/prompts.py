"""Load versioned agent prompts from ``prompts/<name>/v<N>.{system,user,repair}.txt`` files.

Prompts are files so they can be reviewed and versioned apart from code. Placeholders are
``${name}`` (``string.Template``), so JSON examples with braces need no escaping; a literal
dollar sign is written ``$$``.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from pathlib import Path
from string import Template

from pydantic import BaseModel, ConfigDict

from bifrost.core.errors import PromptError
from bifrost.core.settings import Settings

_VERSION_RE = re.compile(r"^v(\d+)\.user\.txt$")


class RenderedPrompt(BaseModel):
    """A prompt pair with every placeholder filled: ready to send as system + user messages."""

    model_config = ConfigDict(frozen=True)

    system: str
    user: str


class PromptTemplatePair(BaseModel):
    """One agent's system and user templates at one version, plus an optional repair template."""

    model_config = ConfigDict(frozen=True)

    name: str
    version: str
    system: str
    user: str
    repair: str | None = None
    path: Path

    @property
    def id(self) -> str:
        """``name@version``, for logs and run records."""
        return f"{self.name}@{self.version}"

    @property
    def fingerprint(self) -> str:
        """Hash of the template texts: changes whenever a prompt file's wording changes."""
        h = hashlib.sha256()
        for part in (self.name, self.version, self.system, self.user, self.repair or ""):
            h.update(part.encode("utf-8"))
            h.update(b"\x1f")
        return h.hexdigest()[:16]

    @property
    def placeholders(self) -> frozenset[str]:
        """Names used by the system and user templates."""
        return _placeholders(self.system) | _placeholders(self.user)

    def render(self, **variables: object) -> RenderedPrompt:
        """Fill the system and user templates; unknown or missing names raise `PromptError`."""
        allowed = self.placeholders
        return RenderedPrompt(
            system=self._fill(self.system, "system", variables, allowed),
            user=self._fill(self.user, "user", variables, allowed),
        )

    def render_repair(self, **variables: object) -> str:
        """Fill the repair template (the feedback sent after an invalid reply)."""
        if self.repair is None:
            raise PromptError(f"prompt {self.id}: missing file {self.path / (self.version + '.repair.txt')}")
        return self._fill(self.repair, "repair", variables, _placeholders(self.repair))

    def _fill(self, template: str, part: str, variables: dict[str, object], allowed: frozenset[str]) -> str:
        unknown = set(variables) - allowed
        if unknown:
            raise PromptError(
                f"prompt {self.id} ({part}): unknown variable(s) {sorted(unknown)}; the template uses "
                f"{sorted(allowed)}"
            )
        try:
            return Template(template).substitute({k: str(v) for k, v in variables.items()})
        except KeyError as e:
            name = e.args[0]
            raise PromptError(
                f"prompt {self.id} ({part}): placeholder ${{{name}}} has no value; pass {name}=... to "
                "render()"
            ) from e
        except ValueError as e:
            raise PromptError(
                f"prompt {self.id} ({part}): malformed placeholder ({e}); write a literal $ as $$"
            ) from e


def _placeholders(template: str) -> frozenset[str]:
    names: set[str] = set()
    for m in Template.pattern.finditer(template):
        name = m.group("named") or m.group("braced")
        if name:
            names.add(name)
    return frozenset(names)


def default_prompts_dir() -> Path:
    """The prompts installed with the package (`bifrost.prompts`, the repository's ``prompts/``
    folder), read with `importlib.resources`; ``BIFROST_PROMPTS_DIR`` overrides it."""
    return Path(str(resources.files("bifrost.prompts")))


def resolve_prompts_dir(prompts_dir: str | Path | None = None, settings: Settings | None = None) -> Path:
    """The explicit folder, else ``settings.prompts_dir`` when set, else the installed prompts."""
    if prompts_dir is None and settings is not None:
        prompts_dir = settings.prompts_dir
    folder = Path(prompts_dir) if prompts_dir is not None else default_prompts_dir()
    if not folder.is_dir():
        raise PromptError(
            f"prompts folder {folder} does not exist; pass prompts_dir=... or set BIFROST_PROMPTS_DIR"
        )
    return folder


def available_versions(name: str, prompts_dir: str | Path | None = None) -> list[str]:
    """Versions of one prompt present on disk, oldest first (``["v1", "v2"]``)."""
    folder = resolve_prompts_dir(prompts_dir) / name
    if not folder.is_dir():
        return []
    numbers = sorted(int(m.group(1)) for p in folder.iterdir() if (m := _VERSION_RE.match(p.name)))
    return [f"v{n}" for n in numbers]


def load_prompt(
    name: str, version: str = "latest", prompts_dir: str | Path | None = None
) -> PromptTemplatePair:
    """Load one agent's prompt pair; ``latest`` picks the highest ``vN`` present."""
    root = resolve_prompts_dir(prompts_dir)
    folder = root / name
    if version == "latest":
        versions = available_versions(name, root)
        if not versions:
            raise PromptError(
                f"no prompt {name!r}: expected {folder / 'v1.system.txt'} and {folder / 'v1.user.txt'}"
            )
        version = versions[-1]
    if not re.fullmatch(r"v\d+", version):
        raise PromptError(f"prompt {name!r}: version {version!r} is not of the form v1, v2, ... or 'latest'")
    texts: dict[str, str] = {}
    for part in ("system", "user"):
        path = folder / f"{version}.{part}.txt"
        if not path.is_file():
            raise PromptError(f"prompt {name}@{version}: missing file {path}")
        texts[part] = path.read_text(encoding="utf-8").strip()
    repair_path = folder / f"{version}.repair.txt"
    repair = repair_path.read_text(encoding="utf-8").strip() if repair_path.is_file() else None
    return PromptTemplatePair(
        name=name, version=version, system=texts["system"], user=texts["user"], repair=repair, path=folder
    )
