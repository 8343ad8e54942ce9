"""The package's exceptions: one base class, so callers can catch them all."""


class SipsimError(Exception):
    """Any error reading a sipsim file or study."""


class NotARunError(SipsimError, ValueError):
    """The file is not a finished sipsim run file."""


class MissingDataError(SipsimError, LookupError):
    """The run file lacks a table (e.g. /iterations in a collectives run)."""


class RunFileNotFound(SipsimError, FileNotFoundError):
    """No file at the path given to sipsim.open (also a FileNotFoundError, as it was before)."""
