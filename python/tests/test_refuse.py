"""sipsim.open refuses what is not a finished sipsim run file with one clear error."""

import shutil

import h5py
import pytest

import sipsim


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such run file"):
        sipsim.open(tmp_path / "nothing.h5")


def test_not_hdf5(tmp_path):
    p = tmp_path / "notes.h5"
    p.write_text("not HDF5\n")
    with pytest.raises(sipsim.NotARunError, match=r"notes\.h5 is not a finished sipsim run file: not an HDF5"):
        sipsim.open(p)


def test_other_hdf5(tmp_path):
    p = tmp_path / "other.h5"
    with h5py.File(p, "w") as f:
        f.attrs["format"] = "netcdf"
    with pytest.raises(sipsim.NotARunError, match="format is 'netcdf', not 'sipsim'"):
        sipsim.open(p)
    with h5py.File(p, "w") as f:
        f["x"] = [1, 2]
    with pytest.raises(sipsim.NotARunError, match="no / attribute format"):
        sipsim.open(p)


def test_uncommitted(tmp_path):
    # What a crashed run leaves: / attributes written at create, no /meta.
    p = tmp_path / "run.h5"
    with h5py.File(p, "w") as f:
        f.attrs["format"] = "sipsim"
        f.attrs["format_version"] = 2
    with pytest.raises(sipsim.NotARunError, match="no /meta"):
        sipsim.open(p)
    with h5py.File(p, "a") as f:
        f.create_group("meta").attrs["ranks"] = 1
    with pytest.raises(sipsim.NotARunError, match="/meta lacks run_id, end_time_ps, committed_events"):
        sipsim.open(p)


def test_partial_name(collectives_run, tmp_path):
    path, _ = collectives_run
    partial = tmp_path / "coll.h5.host.123.0123456789abcdef.partial"
    shutil.copy(path, partial)
    with pytest.raises(sipsim.NotARunError, match=r"\.partial"):
        sipsim.open(partial)
    assert isinstance(sipsim.open(path), sipsim.Run)


def test_errors_share_a_base_class():
    assert issubclass(sipsim.NotARunError, sipsim.SipsimError)
    assert issubclass(sipsim.MissingDataError, sipsim.SipsimError)


def test_older_format_version(tmp_path):
    # A run file of format_version 1 (tflops_per_gpu, no period) is refused by name.
    p = tmp_path / "old.h5"
    with h5py.File(p, "w") as f:
        f.attrs["format"] = "sipsim"
        f.attrs["format_version"] = 1
    with pytest.raises(sipsim.NotARunError, match="format_version is 1, this reader reads 2"):
        sipsim.open(p)
