"""Abu Dhabi Global Market rulebooks and guidance, as ObliQA passages: `6.1.1.(b)` citations within a
document."""

from bifrost.graph_builders.jurisdictions.adgm.pack import Adgm

PACK = Adgm()
