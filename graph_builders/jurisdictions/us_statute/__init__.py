"""US statutes read as a rulebook: the Occupational Safety and Health Act of 1970 (corpus ``osh-act``), one
JSON object of sections ("SEC. 5. Duties": its text), cited as "section 5(a)(1)", "SEC. 11(c)", "subsection
(c) of section 10"; ids ``5``, ``5(a)``, ``5(a)(1)``."""

from bifrost.graph_builders.jurisdictions.us_statute.pack import UsStatute

PACK = UsStatute()
