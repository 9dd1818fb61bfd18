"""libloom: Delta Lake table maintenance (VACUUM, OPTIMIZE, Z-ORDER,
checkpoints) on loom's native C engine.

* :mod:`libloom.maintenance` -- the declarative API (MaintainTable,
  MaintainSchema, MaintenanceStep, MaintenanceRunner, ...), and
  NativeMaintainer, a drop-in backend for loom's Python ETL (loom-py);
* :class:`DeltaTable` -- one table, with delta-rs's maintenance method names;
* :mod:`libloom.native` -- one function per C operation, cancel tokens;
* :class:`StorageConfig` -- the loom ``storage:`` YAML;
* :func:`table_health` / :func:`advise` -- what a table needs, from its log.

The C library is found through ``LIBLOOM_LIBRARY``, a copy bundled in the
package, or the system (``libloom.so.1``).
"""

from ._capi import library_path
from .config import StorageConfig
from .errors import (
    LoomCancelled,
    LoomConflict,
    LoomCorrupt,
    LoomError,
    LoomExists,
    LoomIOError,
    LoomMemoryError,
    LoomNotFound,
    LoomPermissionError,
    LoomTransient,
    LoomUnsupported,
    LoomValueError,
    MissingTableError,
)
from .health import Advice, HealthPolicy, TableHealth, advise, table_health
from .location import TableLocation, TableRef
from .native import CancelToken, format_size, parse_size
from .native import version as library_version
from .table import DeltaTable

__version__ = "1.0.0"

__all__ = [
    "Advice",
    "CancelToken",
    "DeltaTable",
    "HealthPolicy",
    "LoomCancelled",
    "LoomConflict",
    "LoomCorrupt",
    "LoomError",
    "LoomExists",
    "LoomIOError",
    "LoomMemoryError",
    "LoomNotFound",
    "LoomPermissionError",
    "LoomTransient",
    "LoomUnsupported",
    "LoomValueError",
    "MissingTableError",
    "StorageConfig",
    "TableHealth",
    "TableLocation",
    "TableRef",
    "advise",
    "format_size",
    "library_path",
    "library_version",
    "parse_size",
    "table_health",
]
