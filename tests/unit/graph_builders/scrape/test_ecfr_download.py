"""Specification of the eCFR downloader, against httpx.MockTransport (never the network)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bifrost.core.errors import RetryableError, SourceParseError
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_download import download_part, user_agent

XML = b"<DIV5 N='1926'><HEAD>PART 1926</HEAD></DIV5>"


def _client(calls: list[httpx.Request], status: int = 200) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if request.url.path.endswith("/titles.json"):
            return httpx.Response(
                200,
                json={
                    "titles": [
                        {"number": 29, "latest_issue_date": "2024-06-05", "up_to_date_as_of": "2024-06-07"}
                    ]
                },
            )
        return httpx.Response(status, content=XML)

    return httpx.Client(transport=httpx.MockTransport(handler), headers={"User-Agent": user_agent()})


def test_current_resolves_latest_date_then_fetches_the_part(tmp_path: Path) -> None:
    calls: list[httpx.Request] = []
    path = download_part(29, "1926", tmp_path, client=_client(calls))
    assert path.read_bytes() == XML and path.name == "title-29-part-1926-2024-06-05.xml"
    assert [c.url.path for c in calls] == [
        "/api/versioner/v1/titles.json",
        "/api/versioner/v1/full/2024-06-05/title-29.xml",
    ]
    assert calls[1].url.params["part"] == "1926"


def test_second_call_reads_the_cache_without_network(tmp_path: Path) -> None:
    calls: list[httpx.Request] = []
    first = download_part(29, "1926", tmp_path, client=_client(calls))
    again: list[httpx.Request] = []
    assert download_part(29, "1926", tmp_path, client=_client(again)) == first
    assert again == []


def test_explicit_date_skips_the_titles_lookup(tmp_path: Path) -> None:
    calls: list[httpx.Request] = []
    download_part(29, "1926", tmp_path, date="2020-01-01", client=_client(calls))
    assert [c.url.path for c in calls] == ["/api/versioner/v1/full/2020-01-01/title-29.xml"]


def test_requests_carry_a_bifrost_user_agent(tmp_path: Path) -> None:
    calls: list[httpx.Request] = []
    download_part(29, "1926", tmp_path, date="2020-01-01", client=_client(calls))
    assert calls[0].headers["User-Agent"].startswith("bifrost/")


def test_server_error_is_retryable_and_leaves_no_cache(tmp_path: Path) -> None:
    with pytest.raises(RetryableError):
        download_part(29, "1926", tmp_path, date="2020-01-01", client=_client([], status=503))
    assert not list(tmp_path.glob("*.xml"))


def test_not_found_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceParseError) as info:
        download_part(29, "1926", tmp_path, date="2020-01-01", client=_client([], status=404))
    assert "404" in info.value.reason


def test_bad_date_is_rejected_before_any_request(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        download_part(29, "1926", tmp_path, date="yesterday", client=_client([]))
