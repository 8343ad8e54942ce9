"""Read sipsim's outputs as pandas DataFrames.

    import sipsim
    run = sipsim.open("quickstart.h5")     # one run file (docs/output.md)
    run.iterations()                         # times in seconds, units in the column names
    table = sipsim.study("study-dir")        # the table `sipsim collect` wrote

docs/python.md describes every column.
"""

from .errors import MissingDataError, NotARunError, RunFileNotFound, SipsimError
from .run import Run, open  # noqa: A004 - sipsim.open is the package's entry point
from .study import study

__all__ = ["open", "study", "Run", "SipsimError", "NotARunError", "MissingDataError",
           "RunFileNotFound"]
__version__ = "0.1.0"
