"""The model-level benchmark of the deduction engine (bench/band_model.py)."""

from slitherlink.bench import band_model


def _column(capsys, argv, row, head):
    """The cell under ``head`` of the table row that starts with ``row``."""
    assert band_model.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    heads = next(line for line in lines if line.startswith("| size class |")).split("|")
    cells = next(line for line in lines if line.startswith(f"| {row} |")).split("|")
    return cells[heads.index(f" {head} ")]


def test_band_model_beside_and_after_the_floods(capsys):
    """One puzzle of the 10x10 class: every answer right (exit status 0), the search's
    figures the reference model's, and the band-1 median with the label stage beside the
    floods (the engine's) below the one with the label stage after them
    (``--labels-after-floods``, the sequence before), the search being the same."""
    argv = ["--names", "janko_0047", "--quiet", "--bands", "1"]

    def median(cell):
        return int(cell.split("/")[0].replace(",", ""))
    beside = _column(capsys, argv, "10x10 build", "band 1 med / max")
    after = _column(capsys, argv + ["--labels-after-floods"], "10x10 build", "band 1 med / max")
    assert 0 < median(beside) < median(after)
    assert [_column(capsys, argv, "all", head) for head in ("puzzles", "wrong", "limit")] \
        == [" 1 ", " 0 ", " 0 "]
    decisions = _column(capsys, argv + ["--labels-after-floods"], "all", "decisions med / max")
    assert decisions == _column(capsys, argv, "all", "decisions med / max")
