"""The paper's figures as typed (bench/paper.py)."""

import statistics

import pytest

from slitherlink.bench import paper


def test_paper_averages_match_their_rows():
    """The typed rows of Tables 8 and 9 reproduce the paper's own average rows."""
    hw = [row[3] for row in paper.TABLE8]
    smt = [row[2] for row in paper.TABLE8]
    assert len(paper.TABLE8) == 9
    assert statistics.fmean(hw) == pytest.approx(paper.TABLE8_AVERAGE["hardware"], abs=1e-4)  # 0.157856, printed 0.1578
    assert statistics.fmean(smt) == pytest.approx(paper.TABLE8_AVERAGE["smt"], abs=5e-4)
    for size, (average, _) in paper.TABLE9_AVERAGE.items():
        rows = [row[3] for row in paper.TABLE9 if row[2] == size]
        if size == "20x36":  # the paper averages No. 15 and 16 only
            rows = [row[3] for row in paper.TABLE9 if row[0] in (15, 16)]
        assert statistics.fmean(rows) == pytest.approx(average, abs=5e-4), size
    assert paper.hardware_average_10x10()["cycles_at_50mhz"] == 7_890_000
    assert [fig["seconds"] for fig in paper.figures_for_size("10x10")][:1] == [0.1578]
    assert paper.figures_for_size("7x7") == []
    assert all("Table 9" in fig["citation"] for fig in paper.figures_for_size("20x36"))
