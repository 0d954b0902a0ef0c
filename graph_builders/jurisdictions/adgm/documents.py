"""The 40 ADGM documents of the ObliQA corpus: title and the names passages use to cite them.

The passage files carry only a numeric DocumentID, so titles cannot all be read from the data
(the regulations' first PassageID is their title; the rulebooks never print theirs). This table
follows the data set's own map (RegNLP/ObliQADataset `scripts/DocumentMap.rtf`, commit 2b61b8e);
the abbreviations are the ones the passages use ("GEN 3.3.31", "section 58 of FSMR").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class AdgmDocument:
    """One document: its DocumentID, title, and the names that cite it (abbreviation first)."""

    document_id: str
    title: str
    names: tuple[str, ...] = ()


def _doc(document_id: int, title: str, *names: str) -> AdgmDocument:
    return AdgmDocument(str(document_id), title, names)


ADGM_DOCUMENTS: Mapping[str, AdgmDocument] = {
    d.document_id: d
    for d in (
        _doc(
            1,
            "Anti-Money Laundering and Sanctions Rules and Guidance (AML)",
            "AML",
            "AML Rules",
            "AML Rulebook",
        ),
        _doc(2, "Captive Insurance Business Rules (CIB)", "CIB", "Captive Insurance Business Rules"),
        _doc(
            3,
            "Conduct of Business Rulebook (COBS)",
            "COBS",
            "Conduct of Business Rulebook",
            "Conduct of Business Rules",
        ),
        _doc(4, "Fees Rules (FEES)", "FEES", "Fees Rules"),
        _doc(5, "Fund Passporting Rules (FP)", "FP", "Fund Passporting Rules"),
        _doc(6, "Fund Rules (FUNDS)", "FUNDS", "FUND", "Fund Rules", "Funds Rules"),
        _doc(7, "General Rulebook (GEN)", "GEN", "General Rulebook"),
        _doc(8, "Glossary (GLO)", "GLO", "Glossary"),
        _doc(9, "Islamic Finance Rules (IFR)", "IFR", "Islamic Finance Rules"),
        _doc(
            10,
            "Market Infrastructure Rulebook (MIR)",
            "MIR",
            "Market Infrastructure Rulebook",
            "Market Infrastructure Rules",
        ),
        _doc(11, "Market Rules (MKT)", "MKT", "Market Rules", "Markets Rules"),
        _doc(12, "Prudential – Insurance Business (PIN)", "PIN"),
        _doc(13, "Prudential – Investment, Insurance Intermediation and Banking Rules (PRU)", "PRU"),
        _doc(
            14,
            "Bank Recovery and Resolution Regulations 2018",
            "BRRR",
            "Bank Recovery and Resolution Regulations",
        ),
        _doc(
            15,
            "Common Reporting Standard Regulations 2017",
            "CRS Regulations",
            "Common Reporting Standard Regulations",
        ),
        _doc(
            16,
            "Foreign Account Tax Compliance Regulations 2022",
            "FATCA Regulations",
            "Foreign Account Tax Compliance Regulations",
        ),
        _doc(
            17,
            "Financial Services and Markets Regulations 2015 (FSMR)",
            "FSMR",
            "Financial Services and Markets Regulations",
        ),
        _doc(18, "Guidance – Regulatory Framework for Fund Managers of Venture Capital Funds"),
        _doc(19, "Guidance – Regulation of Virtual Asset Activities in ADGM"),
        _doc(20, "Guidance – English Law in ADGM"),
        _doc(21, "Guidance – Application Programming Interfaces (APIs) in ADGM"),
        _doc(22, "Code of Market Conduct (CMC)", "CMC", "Code of Market Conduct"),
        _doc(23, "FSRA Confidentiality Policy (CONF)", "CONF"),
        _doc(24, "Guiding Principles for the FSRA's Approach to Virtual Asset Regulation and Supervision"),
        _doc(25, "Environmental, Social and Governance Disclosures Guidance"),
        _doc(26, "FinTech Regulatory Laboratory Guidance"),
        _doc(
            27,
            "Guidance & Policies Manual (GPM)",
            "GPM",
            "Guidance & Policies Manual",
            "Guidance and Policies Manual",
        ),
        _doc(28, "Guidance – Continuous Disclosure", "Guidance on Continuous Disclosure"),
        _doc(
            29,
            "Guidance – Regulation of Digital Security Offerings and Virtual Assets under the Financial "
            "Services and Markets Regulations",
        ),
        _doc(30, "Guidance – Disclosure Requirements for Mining Reporting Entities", "Guidance on Mining"),
        _doc(
            31, "Guidance – Disclosure Requirements for Petroleum Reporting Entities", "Guidance on Petroleum"
        ),
        _doc(32, "Supplementary Guidance – Private Credit Funds"),
        _doc(33, "Guidance – Regulation of Digital Securities Activities in ADGM"),
        _doc(34, "Guidance – Regulation of Spot Commodity Activities in ADGM"),
        _doc(
            35,
            "Guidance – Regulatory Framework for Private Financing Platforms and Multilateral Trading "
            "Facilities "
            "dealing with Private Capital Markets",
        ),
        _doc(36, "Guidance – Principles for the Effective Management of Climate-related Financial Risks"),
        _doc(
            37,
            "Supplementary Guidance – Authorisation of Digital Investment Management (Robo-advisory) "
            "Activities",
        ),
        _doc(
            38,
            "Supplementary Guidance – Regulatory Framework for Authorised Persons dealing in OTC Leveraged "
            "Products "
            "for Retail Clients",
        ),
        _doc(39, "Supplementary Guidance – Sustainable Finance Regulatory Framework"),
        _doc(40, "Guidance Notes for the Common Reporting Standard (CRS) United Arab Emirates"),
    )
}

_TITLE_ID = re.compile(r"^[A-Z][A-Z ]+(?:REGULATIONS|RULES)\s+\d{4}$")


def document_title(document_id: str, first_passage_id: str = "") -> str:
    """The document's title: from the table, else a title-like first PassageID, else `ADGM document N`."""
    if document_id in ADGM_DOCUMENTS:
        return ADGM_DOCUMENTS[document_id].title
    first = " ".join(first_passage_id.split())
    if _TITLE_ID.match(first):
        return first.title()
    return f"ADGM document {document_id}"


def name_index(documents: Mapping[str, AdgmDocument] = ADGM_DOCUMENTS) -> dict[str, str]:
    """Citing name (as printed, any case) -> DocumentID; names shared by two documents are left out."""
    out: dict[str, str] = {}
    clash: set[str] = set()
    for doc in documents.values():
        for name in doc.names:
            key = name.casefold()
            if key in out and out[key] != doc.document_id:
                clash.add(key)
            out[key] = doc.document_id
    return {k: v for k, v in out.items() if k not in clash}
