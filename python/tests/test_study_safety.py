"""sipsim.study refuses ragged or unreadable tables with a SipsimError naming the file and
line, and undoes the apostrophe `sipsim collect` puts before cells a spreadsheet would run."""

import os
import re

import numpy as np
import pytest

import sipsim

HEADER = "run,label.fabric,status,iteration_s,delta_s\n"

# The encoder `sipsim collect` and `sipsim sweep` apply (docs/python.md): an apostrophe before
# a cell that starts with = + - @ tab CR or ', unless the cell is a plain decimal number.
DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def escape(cell):
    if cell[:1] in ("=", "+", "-", "@", "\t", "\r", "'") and not DECIMAL.match(cell):
        return "'" + cell
    return cell


def test_unescape_cell():
    from sipsim.study import unescape_cell

    cases = {"'=1+1": "=1+1", "''x": "'x", "'@SUM(A1)": "@SUM(A1)", "'-inf": "-inf",
             "'\t": "\t", "'": "", "-5": "-5", "+1.5e3": "+1.5e3", "ramp": "ramp", "x'": "x'",
             "": ""}
    for written, read in cases.items():
        assert unescape_cell(written) == read, written
    for cell in ("=1+1", "'x", "''", "-5", "+1.5e3", "-x", "@a", "\tb", "\rc", "plain", "-.5",
                 "+-1", "1e5", "=", "'"):
        assert unescape_cell(escape(cell)) == cell, cell


def test_escaped_cells_and_names_read_back_as_written(tmp_path):
    cells = [escape(c) for c in ("run", "=HYPERLINK(x)", "status", "iteration_s", "-delta_s")]
    rows = [["0000", escape("=1+1"), "done", "0.5", "-5"],
            ["0001", escape("'x"), "done", "+1.5e3", escape("-inf")],
            ["0002", escape("@cmd"), "failed", "", ""]]
    text = ",".join(cells) + "\n" + "".join(",".join(r) + "\n" for r in rows)
    assert "'=HYPERLINK(x)" in text and "''x" in text and ",-5" in text and "'-inf" in text
    (tmp_path / "results.csv").write_text(text)
    df = sipsim.study(tmp_path)
    assert list(df.columns) == ["run", "=HYPERLINK(x)", "status", "iteration_s", "-delta_s"]
    assert df.attrs["axes"] == ["=HYPERLINK(x)"]
    assert list(df["=HYPERLINK(x)"]) == ["=1+1", "'x", "@cmd"]
    assert list(df["run"]) == ["0000", "0001", "0002"]
    # Numbers stay numbers: -5 was written as is, -inf with an apostrophe.
    assert df["iteration_s"].dtype == np.float64 and df["-delta_s"].dtype == np.float64
    assert df["iteration_s"].tolist()[:2] == [0.5, 1500.0]
    assert df["-delta_s"].tolist()[:2] == [-5.0, -np.inf] and np.isnan(df["-delta_s"][2])


@pytest.mark.parametrize("body,line,fields", [
    ("0000,ramp,done,0.5,1,extra\n0001,ramp,done,0.6,2\n", 2, 6),  # pandas made `run` the index
    ("0000,ramp,done,0.5,1\n0001,ramp,done\n", 3, 3),  # pandas filled NaN
    ('0000,ramp,done,0.5,1\n\n0001,"ramp,\nx",done,0.6\n', 5, 4),  # a quoted newline: line 5
])
def test_ragged_rows_are_refused_with_their_line(tmp_path, body, line, fields):
    (tmp_path / "results.csv").write_text(HEADER + body)
    with pytest.raises(sipsim.SipsimError, match=rf"results\.csv:{line}: {fields} fields where "
                                                 rf"the header has 5"):
        sipsim.study(tmp_path)


def test_unreadable_tables_are_sipsim_errors_naming_the_file(tmp_path):
    p = tmp_path / "results.csv"
    p.write_bytes(HEADER.encode() + b"0000,r\xe9amp,done,0.5,1\n")
    with pytest.raises(sipsim.SipsimError, match=r"results\.csv:2: not UTF-8 text \(byte 0xe9\)"):
        sipsim.study(tmp_path)
    p.write_bytes(b"")
    with pytest.raises(sipsim.SipsimError, match=r"results\.csv is empty"):
        sipsim.study(tmp_path)
    p.write_bytes(HEADER.encode() + b'0000,"ramp,done,0.5,1\n0001,ramp,done,0.5,1\n')  # unclosed "
    with pytest.raises(sipsim.SipsimError, match=r"results\.csv:3: 2 fields where the header"):
        sipsim.study(tmp_path)
    p.write_bytes(b"\xef\xbb\xbf" + HEADER.encode() + b"0000,ramp,done,0.5,1\n")  # a BOM is fine
    assert list(sipsim.study(tmp_path)["run"]) == ["0000"]


def test_a_fifo_or_directory_as_the_table_is_refused_unopened(tmp_path):
    os.mkfifo(tmp_path / "results.csv")  # opening it would block
    with pytest.raises(sipsim.SipsimError, match=r"results\.csv is a FIFO, not a regular file"):
        sipsim.study(tmp_path)
    (tmp_path / "results-iteration.csv").mkdir()
    with pytest.raises(sipsim.SipsimError, match=r"results-iteration\.csv is a directory"):
        sipsim.study(tmp_path, level="iteration")
    os.mkfifo(tmp_path / "named.csv")
    with pytest.raises(sipsim.SipsimError, match=r"named\.csv is a FIFO"):
        sipsim.study(tmp_path / "named.csv")
