"""panelbot: ask the 'Agents at Scale' panel anything, answered in the panelists' own words."""

__version__ = "0.1.0"
