"""sipsim.plot shows text taken from study data as written: `$5 vs $10` is not mathtext,
`$\\badcmd{$` does not fail the plot, and no text goes through TeX."""

import matplotlib
import pandas as pd
import pytest

from sipsim import plot

LABELS = ["$5 vs $10", r"$\badcmd{$"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plot.plt.close("all")


def _as_written(text):
    """Whether matplotlib draws `text` (a Text) literally: no mathtext, no TeX."""
    return text._preprocess_math(text.get_text())[1] is False


def _results(tmp_path):
    d = tmp_path / "study"
    d.mkdir()
    rows = ["run,label.money,label.n,status,iteration_s"]
    rows += [f'{i:04d},"{lab}",{n},done,{0.1 * (i + 1)}'
             for i, (lab, n) in enumerate((l, n) for l in LABELS for n in (1, 2))]
    (d / "results.csv").write_text("\n".join(rows) + "\n")
    return d


def test_lines_labels_are_literal_on_the_command_line_and_in_python(tmp_path, capsys):
    d = _results(tmp_path)
    out = tmp_path / "lines.png"
    assert plot.main(["lines", str(d), "--x", "label.n", "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
    fig = plot.lines(str(d), x="label.n", output=tmp_path / "lines.svg")
    legend = fig.axes[0].get_legend()
    texts = legend.get_texts()
    assert [t.get_text() for t in texts] == LABELS
    assert all(_as_written(t) for t in texts)
    assert _as_written(legend.get_title()) and legend.get_title().get_text() == "label.money"
    assert _as_written(fig.axes[0].title)


def test_tick_labels_and_titles_from_data_are_literal_and_numbers_keep_mathtext(tmp_path):
    df = pd.DataFrame({"run": ["0", "1"], "label.fabric": LABELS, "status": "done",
                       "op": ["$op$", "$op$"], "bytes": 1 << 20, "warmup": 0,
                       "time_s": [1e-3, 2e-3], "busbw_GBps": 1.0})
    df.attrs["axes"] = ["label.fabric"]
    fig = plot.completion(df, ops=["$op$"], baseline=LABELS[1], output=tmp_path / "c.png")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == LABELS
    assert all(_as_written(t) for t in ax.get_legend().get_texts())
    assert "$op$" in ax.title.get_text() and _as_written(ax.title)
    ticks = ax.get_xticklabels()
    assert [t.get_text() for t in ticks] == ["1 MiB"] and all(_as_written(t) for t in ticks)
    # The log axis's numbers (10^0, ...) are still drawn as mathtext.
    logs = [t for t in ax.get_yticklabels() if t.get_text()]
    assert logs and all(not _as_written(t) for t in logs if "$" in t.get_text())
    study = pd.DataFrame({"run": ["0", "1"], "label.x": LABELS, "status": "done",
                          "forward_s": [0.1, 0.2], "idle_s": [0.0, 0.1]})
    study.attrs["axes"] = ["label.x"]
    ax = plot.breakdown(study, output=tmp_path / "b.png").axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == LABELS
    assert all(_as_written(t) for t in ax.get_xticklabels())


def test_usetex_is_off_for_the_plot_and_the_users_settings_are_kept(tmp_path):
    d = _results(tmp_path)
    with matplotlib.rc_context({"text.usetex": True, "text.parse_math": True}):
        fig = plot.lines(str(d), x="label.n", output=tmp_path / "tex.png")  # no TeX here
        assert matplotlib.rcParams["text.usetex"] is True
    assert (tmp_path / "tex.png").stat().st_size > 10_000
    assert not any(t.get_usetex() for t in fig.findobj(matplotlib.text.Text))
