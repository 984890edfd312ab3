"""pytest set-up shared by test/python: the hypothesis profile (see test/fuzz/profiles.py)."""

from test.fuzz import profiles

profiles.load()
