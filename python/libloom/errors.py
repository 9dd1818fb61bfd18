"""Exceptions carrying loom's error record: the message (what failed and
where), the code (``EINVAL``, ``ECORRUPT``, ...) and the class (which part
of loom raised it: ``config``, ``parquet``, ``delta``, ``ops``, ...).

Each code has its own subclass, and the subclasses also derive from the
Python exception a caller would reach for: invalid arguments and
configuration are ``ValueError`` s, missing tables ``LookupError`` s, out of
memory ``MemoryError``.
"""

from __future__ import annotations

from typing import Any

from . import _capi
from ._capi import lib


class LoomError(Exception):
    """An error reported by libloom.

    Attributes:
        code: the negative ``LOOM_E*`` code (``include/loom/errors.h``).
        code_name: its constant name without the prefix, e.g. ``"ECORRUPT"``.
        error_class: the part of loom that raised it, e.g. ``"config"``.
        message: the library's message (secrets masked where a config is known).
    """

    klass = 0   # the numeric class (loom_error_class), when known

    def __init__(self, message: str, code: int = _capi.LOOM_ERROR,
                 error_class: str = "none") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.code_name = _capi.text(lib.loom_error_code_name(code)) or "UNKNOWN"
        self.error_class = error_class

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.message!r}, code={self.code_name}, "
                f"class={self.error_class})")

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled whole (Dask and multiprocessing send errors between
        # processes): Exception's default would keep only the message
        return type(self), (self.message, self.code, self.error_class), dict(self.__dict__)


class LoomValueError(LoomError, ValueError):
    """EINVAL: a bad argument, option or configuration."""


class LoomNotFound(LoomError, LookupError):
    """ENOTFOUND: a table, version, file, column or key does not exist."""


class MissingTableError(LoomNotFound):
    """A table the config does not cover, or that has no ``_delta_log`` yet,
    under ``missing_table_policy="error"``."""


class LoomExists(LoomError):
    """EEXISTS: the object already exists (e.g. converting a Delta table)."""


class LoomConflict(LoomError):
    """ECONFLICT: a concurrent commit conflicts; the table is unchanged."""


class LoomUnsupported(LoomError):
    """EUNSUPPORTED: a protocol, feature or format loom will not handle."""


class LoomCorrupt(LoomError):
    """ECORRUPT: damaged log, checkpoint, Parquet or deletion-vector data."""


class LoomCancelled(LoomError):
    """ECANCELLED: the work was cancelled; the table is as it was."""


class LoomMemoryError(LoomError, MemoryError):
    """ENOMEM: allocation failed or a memory limit was hit."""


class LoomIOError(LoomError, OSError):
    """EIO: the operating system or the object store failed (an OSError, so
    ``except OSError`` catches it as it does any I/O failure)."""


class LoomPermissionError(LoomError, PermissionError):
    """EPERM: access denied (missing permission, bad or expired credentials)."""


class LoomTransient(LoomError):
    """ETRANSIENT: a timeout, reset connection, throttling or 5xx that may
    pass if the same call is made again later."""


_BY_CODE: dict[int, type[LoomError]] = {
    _capi.LOOM_EINVAL: LoomValueError,
    _capi.LOOM_ENOTFOUND: LoomNotFound,
    _capi.LOOM_EEXISTS: LoomExists,
    _capi.LOOM_ECONFLICT: LoomConflict,
    _capi.LOOM_EUNSUPPORTED: LoomUnsupported,
    _capi.LOOM_ECORRUPT: LoomCorrupt,
    _capi.LOOM_ECANCELLED: LoomCancelled,
    _capi.LOOM_ENOMEM: LoomMemoryError,
    _capi.LOOM_EIO: LoomIOError,
    _capi.LOOM_EPERM: LoomPermissionError,
    _capi.LOOM_ETRANSIENT: LoomTransient,
}


def class_name(klass: int) -> str:
    return _capi.text(lib.loom_error_class_name(klass)) or "unknown"


def error_for(code: int, message: str, klass: int,
              cls: type[LoomError] | None = None) -> LoomError:
    """The exception for a code, message and class."""
    if cls is None:
        cls = _BY_CODE.get(code, LoomError)
    err = cls(message, code, class_name(klass))
    err.klass = klass
    return err


def last_error(code: int, context: str = "") -> LoomError:
    """The exception for a call that just returned `code` on this thread
    (the library's thread-local record holds the detail)."""
    rec = lib.loom_error_last()
    if rec:
        message = rec.contents.message.decode("utf-8", "replace")
        klass = rec.contents.klass
    else:
        message, klass = f"failed ({_capi.text(lib.loom_error_code_name(code))})", 0
    if context:
        message = f"{context}: {message}"
    return error_for(code, message, klass)


def check(rc: int, context: str = "") -> int:
    """Raise the loom error for a negative status, else return it."""
    if rc < 0:
        raise last_error(rc, context)
    return rc
