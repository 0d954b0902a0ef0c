"""One pack per jurisdiction (`us_cfr/`, `adgm/`): see `base.Jurisdiction`; look packs up through
`registry`."""
