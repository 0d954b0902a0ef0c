"""The US Code of Federal Regulations (29 CFR 1926 and any other part): eCFR sources, `1926.502(b)(15)`
citations."""

from bifrost.graph_builders.jurisdictions.us_cfr.pack import UsCfr

PACK = UsCfr()
