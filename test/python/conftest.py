"""pytest set-up shared by test/python: the hypothesis profile (see test/fuzz/profiles.py)."""

from test.fuzz import STATS, profiles

profiles.load()


def pytest_terminal_summary(terminalreporter):
    if STATS["checked"] or STATS["mismatches"]:
        terminalreporter.write_line(
            f"differential fuzzer: {STATS['checked']} graph x pipeline checks passed, "
            f"{STATS['mismatches']} mismatches")
