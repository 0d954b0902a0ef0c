"""Fetch one CFR part as eCFR XML from the versioner API, with a file cache.

The shared corpus is the first choice; this is the fallback the design asks for. A second call
for the same title, part and date reads the cache and makes no request.
"""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import httpx

from bifrost.core.errors import RetryableError, SourceParseError

API = "https://www.ecfr.gov/api/versioner/v1"
PROJECT_URL = "https://github.com/bifrost-rag/bifrost"  # placeholder until the project has a home
TIMEOUT = httpx.Timeout(60.0, connect=10.0)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def user_agent() -> str:
    """``bifrost/<version> (+<project url>)``: eCFR asks clients to identify themselves."""
    try:
        v = version("bifrost-rag")
    except PackageNotFoundError:
        v = "0"
    return f"bifrost/{v} (+{PROJECT_URL})"


def _get(client: httpx.Client, url: str, params: dict[str, str] | None = None) -> httpx.Response:
    try:
        response = client.get(url, params=params)
    except httpx.TimeoutException as e:
        raise RetryableError(f"eCFR request timed out: {url}") from e
    except httpx.ConnectError as e:
        raise RetryableError(
            "cannot reach www.ecfr.gov (offline?); ingest a local copy instead: bifrost ingest FILE "
            "--edition-date YYYY-MM-DD"
        ) from e
    except httpx.HTTPError as e:
        raise RetryableError(f"eCFR request failed: {url}: {e}") from e
    if response.status_code == 429 or response.status_code >= 500:
        raise RetryableError(f"eCFR answered {response.status_code} for {response.url}; try again later")
    if response.status_code != 200:
        raise SourceParseError(str(response.url), f"eCFR answered HTTP {response.status_code}")
    return response


def latest_date(client: httpx.Client, title: int) -> str:
    """The latest issue date eCFR has for ``title`` (from /titles.json)."""
    url = f"{API}/titles.json"
    try:
        titles = _get(client, url).json()["titles"]
        entry = next(t for t in titles if int(t["number"]) == title)
        date = str(entry.get("latest_issue_date") or entry["up_to_date_as_of"])
    except (ValueError, KeyError, TypeError, StopIteration) as e:
        raise SourceParseError(url, f"no latest issue date for title {title} in the titles list") from e
    if not _DATE.match(date):
        raise SourceParseError(url, f"unexpected date {date!r} for title {title}")
    return date


def download_part(
    title: int, part: str, cache_dir: Path, date: str = "current", *, client: httpx.Client | None = None
) -> Path:
    """Path of the cached eCFR XML of ``title`` part ``part`` as of ``date`` ("current" or YYYY-MM-DD).

    "current" is resolved once through /titles.json and remembered in the cache (delete
    ``title-<n>-current.txt`` to look again). ``client`` is for tests (``httpx.MockTransport``);
    by default a client with a Bifrost User-Agent and timeouts is made and closed here.
    """
    if date != "current" and not _DATE.match(date):
        raise ValueError(f"date must be 'current' or YYYY-MM-DD, got {date!r}")
    if not re.fullmatch(r"[0-9A-Za-z]+", part):
        raise ValueError(f"part must be a part number like '1926', got {part!r}")
    cache_dir = Path(cache_dir)
    asked = date
    own = client is None
    http = client or httpx.Client(
        headers={"User-Agent": user_agent()}, timeout=TIMEOUT, follow_redirects=True
    )
    try:
        if date == "current":
            pointer = cache_dir / f"title-{title}-current.txt"
            if pointer.exists():
                date = pointer.read_text(encoding="utf-8").strip()
            else:
                date = latest_date(http, title)
        target = cache_dir / f"title-{title}-part-{part}-{date}.xml"
        if target.exists() and target.stat().st_size > 0:
            return target
        response = _get(http, f"{API}/full/{date}/title-{title}.xml", params={"part": part})
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".xml.part")
        tmp.write_bytes(response.content)
        tmp.replace(target)
        if asked == "current":
            (cache_dir / f"title-{title}-current.txt").write_text(date, encoding="utf-8")
        return target
    finally:
        if own:
            http.close()
