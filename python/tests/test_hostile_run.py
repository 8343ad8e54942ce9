"""sipsim.open refuses crafted run files with a SipsimError naming the file, never hangs, and
never raises anything else (docs/python.md, "What the package refuses")."""

import os
import shutil
import socket
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

from conftest import ROOT
from hostile import COLLECTIVES, TRACE, collectives, minimal_run, s

import sipsim


@pytest.fixture
def run_file(tmp_path):
    return minimal_run(tmp_path / "run.h5")


def test_a_minimal_run_reads(run_file):
    run = sipsim.open(run_file)
    assert run.tables == ["/collectives", "/iterations", "/breakdown", "/memory", "/trace/events",
                          "/gpu_energy"]
    assert len(run.collectives()) == 2 and len(run.iterations()) == 1
    assert list(run.breakdown().columns) == ["iteration", "gpu", "forward_s", "backward_s",
                                             "idle_s"]
    assert len(run.breakdown(form="long")) == 6 and len(run.trace()) == 3
    assert len(run.memory()) == 2 and len(run.gpu_energy()) == 2
    assert run.fabric["type"] == "elect-flat" and run.end_time_s == 1e-3


# -- what the path names -----------------------------------------------------------------------

def test_missing_file_is_a_sipsim_error_and_a_file_not_found_error(tmp_path):
    for p in (tmp_path / "nothing.h5", tmp_path / "no-dir" / "x.h5"):
        with pytest.raises(sipsim.RunFileNotFound, match=r"nothing\.h5|x\.h5") as e:
            sipsim.open(p)
        assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, sipsim.SipsimError)
    (tmp_path / "dangling.h5").symlink_to(tmp_path / "gone.h5")
    with pytest.raises(sipsim.RunFileNotFound, match="dangling"):
        sipsim.open(tmp_path / "dangling.h5")


def test_directory_device_and_socket_are_refused_unopened(tmp_path):
    (tmp_path / "dir.h5").mkdir()
    (tmp_path / "null.h5").symlink_to("/dev/null")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock.h5"))
    try:
        for name, what in (("dir.h5", "a directory"), ("null.h5", "a character device"),
                           ("sock.h5", "a socket")):
            with pytest.raises(sipsim.NotARunError, match=rf"{name} .*it is {what}, not a regular"):
                sipsim.open(tmp_path / name)
        with pytest.raises(sipsim.NotARunError, match="a character device"):
            sipsim.open("/dev/null")
    finally:
        sock.close()


def test_a_symlink_to_a_run_file_opens(run_file, tmp_path):
    (tmp_path / "link.h5").symlink_to(run_file)
    assert len(sipsim.open(tmp_path / "link.h5").collectives()) == 2


def _child(code, *args):
    """Runs `code` in a child Python that imports this tree's sipsim, with a timeout: a
    regression that blocks on a FIFO fails the test instead of hanging the suite."""
    script = f"import sys\nsys.path.insert(0, {str(ROOT / 'python')!r})\n" + textwrap.dedent(code)
    try:
        done = subprocess.run([sys.executable, "-c", script, *map(str, args)],
                              capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("sipsim blocked on a FIFO")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_fifos_never_block(tmp_path):
    """A FIFO as the run file, behind a symbolic link, behind an external link, or as a
    dataset's external storage: each refused at once (a regression would block, so the
    opens run in a child with a timeout)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "to-fifo.h5").symlink_to(fifo)
    meta = minimal_run(tmp_path / "meta-link.h5")
    with h5py.File(meta, "a") as f:
        del f["meta"]
        f["meta"] = h5py.ExternalLink(str(fifo), "/meta")
    stored = minimal_run(tmp_path / "external-storage.h5")
    with h5py.File(stored, "a") as f:
        f.create_dataset("lp/digest", shape=(4,), dtype="u8",
                         external=[(str(fifo), 0, h5py.h5f.UNLIMITED)])
    lines = _child("""
        import sipsim
        for p in sys.argv[1:]:
            try:
                sipsim.open(p)
                print("opened", p)
            except sipsim.SipsimError as e:
                print(type(e).__name__, e)
        """, fifo, tmp_path / "to-fifo.h5", meta, stored)
    assert len(lines) == 4, lines
    assert "NotARunError" in lines[0] and "it is a FIFO, not a regular file" in lines[0]
    assert "to-fifo.h5" in lines[1] and "it is a FIFO" in lines[1]
    assert "meta-link.h5" in lines[2] and "/meta is an external link to" in lines[2]
    assert "external-storage.h5" in lines[3] and "/lp/digest keeps its data in external files" \
        in lines[3]


# -- links and layouts ---------------------------------------------------------------------------

def test_an_external_link_to_another_run_is_refused(tmp_path):
    other = minimal_run(tmp_path / "other.h5")
    with h5py.File(other, "a") as f:
        del f["collectives"]
        f["collectives"] = collectives(5)
    p = minimal_run(tmp_path / "run.h5")
    with h5py.File(p, "a") as f:
        del f["collectives"]
        f["collectives"] = h5py.ExternalLink(str(other), "/collectives")
    with pytest.raises(sipsim.NotARunError, match=r"run\.h5 .*/collectives is an external link "
                                                  r"to .*other\.h5:/collectives"):
        sipsim.open(p)


def test_soft_links_are_refused(run_file):
    with h5py.File(run_file, "a") as f:
        f.move("iterations", "hidden")
        f["iterations"] = h5py.SoftLink("/hidden")
    with pytest.raises(sipsim.NotARunError, match="/iterations is a soft link to /hidden"):
        sipsim.open(run_file)


def test_user_defined_links_are_refused(run_file, tmp_path):
    # h5py cannot make one: an external link's type byte (64) is patched to 65 (the object
    # header h5py writes by default has no checksum).
    with h5py.File(run_file, "a") as f:  # in /fabric: the root's links are in a checksummed heap
        f["fabric/extra"] = h5py.ExternalLink("zzzzqqqq.h5", "/x")
    data = bytearray(run_file.read_bytes())
    at = data.find(b"\x08\x40\x05extra")
    assert at > 0
    data[at + 1] = 65
    run_file.write_bytes(bytes(data))
    with pytest.raises(sipsim.NotARunError,
                       match=r"/fabric/extra is a user-defined link \(type 65\)"):
        sipsim.open(run_file)


def test_virtual_datasets_are_refused(run_file, tmp_path):
    source = minimal_run(tmp_path / "source.h5")
    with h5py.File(run_file, "a") as f:
        del f["collectives"]
        layout = h5py.VirtualLayout(shape=(2,), dtype=COLLECTIVES)
        layout[:] = h5py.VirtualSource(str(source), "/collectives", shape=(2,))
        f.create_virtual_dataset("collectives", layout)
    with pytest.raises(sipsim.NotARunError, match="/collectives is a virtual dataset"):
        sipsim.open(run_file)


def test_hard_link_cycles_end_and_too_many_links_are_refused(run_file, monkeypatch):
    from sipsim import checks

    with h5py.File(run_file, "a") as f:
        f["fabric/loop"] = f["/"]
        f["lp/again"] = f["lp"]
    assert sipsim.open(run_file).has("fabric")
    monkeypatch.setattr(checks, "MAX_LINKS", 5)
    with pytest.raises(sipsim.NotARunError, match="more than 5 links"):
        sipsim.open(run_file)


# -- shapes, types and sizes --------------------------------------------------------------------

def _replace(f, name, data, **attrs):
    del f[name]
    f[name] = data
    for k, v in attrs.items():
        f[name].attrs[k] = v


def _no_start(f):
    _replace(f, "collectives", collectives()[[n for n in COLLECTIVES.names if n != "start_ps"]])


def _float_start(f):
    dt = np.dtype([(n, "<f8" if n == "start_ps" else COLLECTIVES[n]) for n in COLLECTIVES.names])
    _replace(f, "collectives", collectives().astype(dt))


def _vlen_op(f):
    dt = np.dtype([(n, h5py.string_dtype() if n == "op" else COLLECTIVES[n])
                   for n in COLLECTIVES.names])
    rows = np.zeros(2, dt)
    rows["op"] = "all-reduce"
    _replace(f, "collectives", rows)


def _subarray_step(f):
    dt = np.dtype([(n, ("<i4", (3,)) if n == "step" else TRACE[n]) for n in TRACE.names])
    _replace(f, "trace/events", np.zeros(3, dt))


def _inflated(f):  # 2^40 rows of unwritten chunks in a ~20 KB file
    del f["collectives"]
    f.create_dataset("collectives", shape=(1 << 40,), chunks=(1024,), dtype=COLLECTIVES)


def _inflated_gzip(f):
    del f["gpu_energy"]
    f.create_dataset("gpu_energy", shape=(1 << 30, 1 << 10), chunks=(64, 64), dtype="f8",
                     compression="gzip")


def _plans(**columns):
    def change(f):
        for k in ("time_ps", "src", "dst", "units"):
            f[f"fabric/plans/{k}"] = columns.get(k, np.zeros(3, np.uint32))
    return change


def _meta(key, value):
    return lambda f: f["meta"].attrs.__setitem__(key, value)


HOSTILE = [
    ("collectives 2-D", lambda f: _replace(f, "collectives", collectives(4).reshape(2, 2)),
     "/collectives is .* of shape \\(2, 2\\), not a table"),
    ("collectives without start_ps", _no_start, "/collectives lacks the column start_ps"),
    ("start_ps a float", _float_start, "/collectives column start_ps is float64, not integer"),
    ("op a variable-length string", _vlen_op, "/collectives column op is object"),
    ("iterations not compound", lambda f: _replace(f, "iterations", np.zeros(3)),
     "/iterations is float64 of shape \\(3,\\), not a table"),
    ("trace column with a sub-array", _subarray_step, "/trace/events column step is"),
    ("breakdown 2-D", lambda f: _replace(f, "breakdown", np.zeros((2, 3)), categories=s("a,b,c")),
     "/breakdown is float64 of shape \\(2, 3\\), not a 3-D float array"),
    ("breakdown integers", lambda f: _replace(f, "breakdown", np.zeros((1, 2, 3), "u8"),
                                              categories=s("a,b,c")),
     "/breakdown is uint64 of shape \\(1, 2, 3\\), not a 3-D float array"),
    ("categories one short", lambda f: f["breakdown"].attrs.__setitem__("categories", s("a,b")),
     "/breakdown has 3 columns but its categories attribute names 2"),
    ("categories repeated", lambda f: f["breakdown"].attrs.__setitem__("categories", s("a,a,b")),
     "/breakdown has 3 columns but its categories attribute names 3 \\('a,a,b'\\); it must "
     "name each once"),
    ("categories an integer", lambda f: f["breakdown"].attrs.__setitem__("categories", 3),
     "/breakdown attribute categories is not a string"),
    ("categories a bytes array",
     lambda f: f["breakdown"].attrs.__setitem__("categories", np.array([b"\xff", b"a", b"b"])),
     "/breakdown attribute categories is not a string"),
    ("memory columns one short", lambda f: f["memory"].attrs.__setitem__("columns", s("a,b")),
     "/memory has 6 columns but its columns attribute names 2"),
    ("gpu_energy 3-D", lambda f: _replace(f, "gpu_energy", np.zeros((1, 2, 2))),
     "/gpu_energy is float64 of shape \\(1, 2, 2\\), not a 2-D float array"),
    ("collectives a group", lambda f: (f.__delitem__("collectives"), f.create_group("collectives")),
     "/collectives is a group, not a table"),
    ("end_time_ps a string", _meta("end_time_ps", s("soon")),
     "/meta attribute end_time_ps is 'soon', not an integer"),
    ("ranks an array", _meta("ranks", np.arange(3)), "/meta attribute ranks is array"),
    ("format an array", lambda f: f.attrs.__setitem__("format", np.array([b"sipsim", b"x"])),
     "its / attribute format is array"),
    ("fabric type an array", lambda f: f["fabric"].attrs.__setitem__("type", np.arange(2)),
     "/fabric attribute type is array"),
    ("plans of two lengths", _plans(src=np.zeros(2, np.uint32)),
     "the columns of /fabric/plans differ in length \\(3, 2, 3, 3\\)"),
    ("plans times as floats", _plans(time_ps=np.zeros(3)),
     "/fabric/plans/time_ps is float64 of shape \\(3,\\), not a 1-D integer column"),
    ("2^40 declared rows", _inflated, f"/collectives declares {(1 << 40) * COLLECTIVES.itemsize:,} "
                                      f"bytes of data, more than the [0-9,]+-byte file can hold"),
    ("compressed and inflated", _inflated_gzip, "/gpu_energy declares 8,796,093,022,208 bytes"),
]


@pytest.mark.parametrize("change,reason", [(c, r) for _, c, r in HOSTILE],
                         ids=[i for i, _, _ in HOSTILE])
def test_crafted_tables_and_attributes_are_refused_at_open(run_file, change, reason):
    with h5py.File(run_file, "a") as f:
        change(f)
    with pytest.raises(sipsim.NotARunError, match=rf"run\.h5 is not a finished sipsim run file: "
                                                  rf"{reason}"):
        sipsim.open(run_file)


def test_strings_that_are_not_utf8_are_decoded_with_replacements(run_file):
    with h5py.File(run_file, "a") as f:
        f["meta"].attrs["overrides"] = np.array([b"a=1", b"b=\xff"])  # fixed-length array
        f["meta"].attrs.create("scenario_name", b"t\xffny", dtype=h5py.string_dtype())  # vlen
        f["breakdown"].attrs["categories"] = s(b"forw\xffrd,backward,idle")
        rows = collectives()
        rows["op"] = b"all-\xfeduce"
        f["collectives"][...] = rows
    run = sipsim.open(run_file)
    assert list(run.meta["overrides"]) == ["a=1", "b=\ufffd"]
    assert run.meta["scenario_name"] == "t\ufffdny"
    run.meta["scenario_name"].encode("utf-8")  # no lone surrogates left
    assert "forw\ufffdrd_s" in run.breakdown().columns
    assert set(run.collectives()["op"]) == {"all-\ufffdduce"}


# -- reading -----------------------------------------------------------------------------------

def test_a_table_larger_than_the_cap_is_refused_before_reading(run_file, monkeypatch):
    run = sipsim.open(run_file)
    monkeypatch.setattr(sipsim.run, "MAX_TABLE_BYTES", 100)
    size = 2 * COLLECTIVES.itemsize
    with pytest.raises(sipsim.SipsimError, match=rf"run\.h5: /collectives holds {size} bytes, "
                                                 rf"more than sipsim reads \(100: "
                                                 rf"sipsim\.run\.MAX_TABLE"):
        run.collectives()
    assert len(run.gpu_energy()) == 2  # 16 bytes


def test_a_damaged_chunk_is_a_sipsim_error_naming_the_table(run_file):
    with h5py.File(run_file, "a") as f:
        del f["gpu_energy"]
        ds = f.create_dataset("gpu_energy", data=np.zeros((64, 64)), chunks=(64, 64),
                              compression="gzip")
        info = ds.id.get_chunk_info(0)
    run = sipsim.open(run_file)
    with open(run_file, "r+b") as fh:
        fh.seek(info.byte_offset)
        fh.write(b"\xde\xad" * (info.size // 2))
    with pytest.raises(sipsim.SipsimError, match=r"run\.h5: cannot read /gpu_energy: "):
        run.gpu_energy()


@pytest.mark.parametrize("error", [MemoryError, OSError, KeyError, RuntimeError, ValueError,
                                   TypeError])
def test_whatever_h5py_raises_reading_is_a_sipsim_error(run_file, monkeypatch, error):
    run = sipsim.open(run_file)

    def fail(self, key):
        raise error("boom")

    monkeypatch.setattr(h5py.Dataset, "__getitem__", fail)
    with pytest.raises(sipsim.SipsimError, match=r"run\.h5: .* /iterations") as e:
        run.iterations()
    assert isinstance(e.value.__cause__, error)


def test_a_file_replaced_by_a_fifo_after_open_is_refused(run_file):
    lines = _child("""
        import os, sipsim
        run = sipsim.open(sys.argv[1])
        os.remove(sys.argv[1])
        os.mkfifo(sys.argv[1])  # reading a FIFO would block: each read checks the path again
        try:
            run.collectives()
        except sipsim.SipsimError as e:
            print(type(e).__name__, e)
        """, run_file)
    assert lines and "NotARunError" in lines[0] and "it is a FIFO" in lines[0], lines


def test_the_traffic_plot_refuses_plans_naming_absurd_gpus(run_file):
    from sipsim import plot

    with h5py.File(run_file, "a") as f:
        _plans(src=np.array([0, 1, 1 << 31], np.uint32))(f)
    with pytest.raises(sipsim.SipsimError, match=r"run\.h5: /fabric/plans names GPUs 0 to "
                                                 r"2147483648: the traffic plot draws GPUs 0 "
                                                 r"to 4095"):
        plot.traffic(run_file)  # a 2^31 x 2^31 matrix before


def test_an_empty_plan_log_is_no_rows_not_damage(run_file):
    """A circuit fabric whose plan log has no row writes /fabric/plans as an empty group."""
    with h5py.File(run_file, "a") as f:
        f.create_group("fabric/plans")
    p = sipsim.open(run_file)._plans()
    assert p is not None and len(p) == 0 and list(p.columns) == list(sipsim.checks.PLANS)


def test_a_real_run_file_passes_every_check(training_run, tmp_path):
    path = shutil.copy(training_run[0], tmp_path / "copy.h5")
    run = sipsim.open(path)
    assert {"/iterations", "/breakdown", "/trace/events"} <= set(run.tables)
    for read in (run.iterations, run.breakdown, run.trace, run.memory, run.gpu_energy):
        assert len(read()) > 0
