"""The panel as a panel: a moderated discussion of a subject, grounded in what each panelist said.

``pairing`` decides, by measured features, when two quotes of two panelists are about the same thing and
whether they agree; ``stage`` builds a discussion of a subject and the map of the whole talk. Plain Python.
"""
