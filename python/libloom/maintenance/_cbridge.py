"""The bridge between the seed's Python objects and the C runner.

A run builds one C step from the step's declarations:

* a MaintainTable / MaintainSchema becomes a C declaration, resolved by C;
  its built-in ops (VacuumSpec, CompactSpec, ZOrderSpec) become C ops when
  the maintainer is loom's own (no Python runs for them);
* any other op -- a custom OpSpec, or a built-in one for a Python
  maintainer -- becomes a C op whose execute calls ``op.execute(maintainer,
  uri, location)`` back in Python;
* a custom declaration becomes a C declaration whose resolve calls
  ``decl.resolve(config)`` back in Python.

Callbacks run on the runner's worker threads; ctypes takes the GIL for
them. The C trampolines are created once (module level) and find their
Python object through an integer payload in :data:`_registry`.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from ctypes import byref
from typing import Any

from .. import _capi, native
from .._capi import lib
from ..errors import LoomError, check, last_error
from ..location import CLocation, TableRef, location_from_c

# ---- the payload registry ------------------------------------------------------------

_registry: dict[int, Any] = {}
_next_id = 0
_lock = threading.Lock()


def _register(obj: Any) -> int:
    global _next_id
    with _lock:
        _next_id += 1
        _registry[_next_id] = obj
        return _next_id


def _free_payload_py(payload: int | None) -> None:
    if payload:
        _registry.pop(payload, None)


_free_payload = _capi.FREE_PAYLOAD_FN(_free_payload_py)


def _fail(exc: BaseException, code: int | None = None) -> int:
    """Record a Python exception as the C thread's error; return its code."""
    klass = _capi.LOOM_ERRCLASS_USER
    if isinstance(exc, LoomError):   # loom's own error, passed through: keep its class
        rc = exc.code if exc.code < 0 else _capi.LOOM_EUSER
        message = exc.message
        klass = exc.klass or klass
    else:
        rc = code if code is not None else _capi.LOOM_EUSER
        message = f"{type(exc).__name__}: {exc}"
    return int(lib.loom_error_set(rc, klass, _capi.cstr(message)))


# ---- C objects ------------------------------------------------------------------------


def new_decl(ctor: Callable[..., int], target: str) -> int:
    d = _capi.loom_decl_p()
    check(ctor(byref(d), _capi.cstr(target)))
    return _capi.handle(d)


def free_decl(d: int | None) -> None:
    lib.loom_decl_free(d)


def free_op(op: int | None) -> None:
    lib.loom_op_free(op)


def builtin_op(spec: Any) -> int:
    """A C op for a VacuumSpec / CompactSpec / ZOrderSpec; the library
    checks the options (LoomValueError with its message)."""
    from ._specs import AnalyzeSpec, AutoSpec, CompactSpec, PurgeSpec, VacuumSpec, ZOrderSpec
    op = _capi.loom_op_p()
    if isinstance(spec, AutoSpec):
        a, keep = auto_opts(spec)
        check(lib.loom_op_auto(byref(op), byref(a)))   # copies what `keep` holds
        del keep
    elif isinstance(spec, VacuumSpec):
        o = native.vacuum_opts(spec.retention_hours, spec.dry_run, spec.full, spec.retention_check)
        check(lib.loom_op_vacuum(byref(op), byref(o)))
    elif isinstance(spec, CompactSpec):
        c = native.compact_opts(spec.target_size)
        check(lib.loom_op_compact(byref(op), byref(c)))
    elif isinstance(spec, ZOrderSpec):
        cols = native.CStrings(native.column_list(spec.columns))
        tmp = _capi.cstr(spec.temp_dir) if spec.temp_dir is not None else None
        z = native.zorder_opts(cols, spec.target_size, spec.curve, spec.memory, tmp,
                               spec.spill_limit, spec.full)
        check(lib.loom_op_zorder(byref(op), byref(z)))   # copies columns and temp_dir
    elif isinstance(spec, PurgeSpec):
        filters = native.CStrings(native.column_list(spec.partition_filters, "purge"))
        p = native.purge_opts(spec.target_size, spec.dry_run, filters)
        check(lib.loom_op_purge(byref(op), byref(p)))   # copies the filters
    elif isinstance(spec, AnalyzeSpec):
        cols = native.CStrings(native.column_list(spec.columns, "analyze"))
        a = native.analyze_opts(cols, spec.all, spec.dry_run)
        check(lib.loom_op_analyze(byref(op), byref(a)))   # copies the columns
    else:
        raise TypeError(f"not a built-in operation: {type(spec).__name__}")
    return _capi.handle(op)


def auto_opts(spec: Any) -> tuple[Any, list[Any]]:
    """``loom_auto_opts`` for an AutoSpec, and the objects its pointers
    reach (kept alive by the caller for the call)."""
    from ..health import policy_struct
    a = _capi.loom_auto_opts()
    a.version = _capi.LOOM_AUTO_OPTS_VERSION
    a.policy = policy_struct(spec.policy)
    keep: list[Any] = []
    if spec.vacuum is not None:
        v = spec.vacuum
        vo = native.vacuum_opts(v.retention_hours, v.dry_run, v.full, v.retention_check)
        keep.append(vo)
        a.vacuum = ctypes.pointer(vo)
    if spec.compact is not None:
        co = native.compact_opts(spec.compact.target_size)
        keep.append(co)
        a.compact = ctypes.pointer(co)
    if spec.z_order is not None:
        z = spec.z_order
        cols = native.CStrings(native.column_list(z.columns))
        tmp = _capi.cstr(z.temp_dir) if z.temp_dir is not None else None
        zo = native.zorder_opts(cols, z.target_size, z.curve, z.memory, tmp, z.spill_limit,
                                z.full)
        keep += [cols, tmp, zo]
        a.zorder = ctypes.pointer(zo)
    return a, keep


def _noop(out: Any, m: Any, uri: Any, loc: Any, cancel: Any, payload: Any) -> int:
    return 0


_NOOP = _capi.OP_EXECUTE_FN(_noop)


def schema_members(config: Any, prefix: str) -> list[str]:
    """The refs a schema prefix expands to, by the C library's rule. (A
    placeholder op satisfies the rule that a declaration has operations.)"""
    d = new_decl(lib.loom_maintain_schema, prefix)
    op = _capi.loom_op_p()
    specs = _capi.loom_spec_list_p()
    try:
        check(lib.loom_op_new(byref(op), b"resolve", _NOOP, None,
                              _capi.null_fn(_capi.FREE_PAYLOAD_FN)))
        rc = lib.loom_decl_add_op(d, op)
        op = _capi.loom_op_p()   # the declaration took it over, added or not
        check(rc)
        check(lib.loom_spec_list_new(byref(specs)))
        check(lib.loom_decl_resolve(specs, d, config.handle))
        return [_capi.text(lib.loom_spec_table_ref(lib.loom_spec_list_at(specs, i))) or ""
                for i in range(lib.loom_spec_list_count(specs))]
    finally:
        lib.loom_spec_list_free(specs)
        lib.loom_op_free(op)
        lib.loom_decl_free(d)


# ---- the trampolines --------------------------------------------------------------------


def _op_execute_py(out: Any, maintainer: Any, uri: bytes, loc: Any, cancel: int | None,
                   payload: int | None) -> int:
    try:
        run, spec = _registry[payload or 0]
        return int(run.execute_op(spec, out, _capi.text(uri) or "", loc, cancel))
    except BaseException as exc:
        return _fail(exc)


def _decl_resolve_py(out: int | None, cfg: int | None, payload: int | None) -> int:
    try:
        run, decl = _registry[payload or 0]
        return int(run.resolve_decl(decl, out))
    except BaseException as exc:
        return _fail(exc)


def _locate_py(out: Any, ref: bytes, payload: int | None) -> int:
    try:
        return int(_registry[payload or 0].locate(out, _capi.text(ref) or ""))
    except BaseException as exc:
        return _fail(exc, _capi.LOOM_ENOTFOUND)


def _release_py(loc: Any, payload: int | None) -> None:
    run = _registry.get(payload or 0)
    if run is not None:
        run.release(loc)


def _progress_py(p: Any, payload: int | None) -> None:
    run = _registry.get(payload or 0)
    if run is not None:
        run.progress(p.contents)


# The C trampolines, made once: the library may call them as long as the
# process lives.
_op_execute = _capi.OP_EXECUTE_FN(_op_execute_py)
_decl_resolve = _capi.DECL_RESOLVE_FN(_decl_resolve_py)
_locate = _capi.LOCATE_FN(_locate_py)
_release = _capi.LOCATION_RELEASE_FN(_release_py)
_progress = _capi.PROGRESS_FN(_progress_py)


# ---- one run ------------------------------------------------------------------------------


class Run:
    """Everything one runner.run() needs while C runs: the Python objects the
    callbacks reach, and what they leave behind (results and exceptions of
    Python ops, keyed by (table index, op name))."""

    def __init__(self, config: Any, maintainer: Any, native_engine: bool,
                 locator: Any | None, on_progress: Callable[[Any], None] | None) -> None:
        self.config = config
        self.maintainer = maintainer
        self.native_engine = native_engine
        self.locator = locator
        self.on_progress = on_progress
        self.id = _register(self)
        self.payload_ids: list[int] = [self.id]
        self.current_table: dict[int, int] = {}   # OS thread id -> table index
        self.py_results: dict[tuple[int, str], Any] = {}
        self.py_errors: dict[tuple[int, str], BaseException] = {}
        self.locate_errors: dict[str, BaseException] = {}
        self.resolve_error: BaseException | None = None
        self.progress_errors: list[BaseException] = []
        self.locations: dict[int, CLocation] = {}

    def close(self) -> None:
        for pid in self.payload_ids:
            _registry.pop(pid, None)

    # ---- building the C step -------------------------------------------------------

    def c_op(self, spec: Any) -> int:
        from ._specs import BUILTIN_SPECS, AutoSpec
        if type(spec) is AutoSpec:
            if not self.native_engine:
                raise TypeError("auto runs on loom's native engine (NativeMaintainer) only: "
                                f"this runner's maintainer is {type(self.maintainer).__name__}")
            return builtin_op(spec)
        if self.native_engine and type(spec) in BUILTIN_SPECS:
            return builtin_op(spec)
        name = getattr(spec, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"operation {type(spec).__name__} has no 'name' (a non-empty str "
                            f"class variable that keys its result)")
        if not callable(getattr(spec, "execute", None)):
            raise TypeError(f"operation {type(spec).__name__} has no execute(maintainer, uri, "
                            f"location) method")
        op = _capi.loom_op_p()
        check(lib.loom_op_new(byref(op), _capi.cstr(name), _op_execute,
                              _register((self, spec)), _free_payload))
        return _capi.handle(op)

    def add_ops(self, add: Callable[[int, int], int], target: int, specs: Any,
                free: Callable[[int], None]) -> None:
        """C ops for `specs` added to `target` (a declaration or a spec) with
        `add`; on failure `target` is released with `free`."""
        try:
            for spec in specs:
                check(add(target, self.c_op(spec)))   # `target` takes the op over
        except BaseException:
            free(target)
            raise

    def c_decl(self, decl: Any) -> int:
        from ._builder import is_builtin_declaration
        if is_builtin_declaration(decl):
            d: int = decl._new_c_decl()
            self.add_ops(lib.loom_decl_add_op, d, decl.operations, lib.loom_decl_free)
            rc = lib.loom_decl_validate(d)
            if rc < 0:
                err = last_error(rc)
                lib.loom_decl_free(d)
                raise err
            return d
        if not callable(getattr(decl, "resolve", None)):
            raise TypeError(f"{type(decl).__name__} is not an OperationDeclaration "
                            f"(no resolve(config) method)")
        d2 = _capi.loom_decl_p()
        check(lib.loom_decl_new(byref(d2), _decl_resolve, _register((self, decl)),
                                _free_payload))
        return _capi.handle(d2)

    def c_step(self, name: str, decls: list[Any]) -> int:
        step = _capi.loom_step_p()
        check(lib.loom_step_new(byref(step), _capi.cstr(name)))
        try:
            for decl in decls:
                check(lib.loom_step_add(step, self.c_decl(decl)))   # owned by the step now
        except BaseException:
            lib.loom_step_free(step)
            raise
        return _capi.handle(step)

    # ---- callbacks (worker threads, GIL held) ------------------------------------

    def resolve_decl(self, decl: Any, out: int | None) -> int:
        try:
            specs = decl.resolve(self.config)
            for s in specs:
                spec = _capi.loom_spec_p()
                check(lib.loom_spec_new(byref(spec), _capi.cstr(str(s.table_ref))))
                self.add_ops(lib.loom_spec_add_op, _capi.handle(spec), s.ops, lib.loom_spec_free)
                check(lib.loom_spec_list_add(out, spec))   # owned by the list now
            return 0
        except BaseException as exc:
            if self.resolve_error is None:
                self.resolve_error = exc
            return _fail(exc)

    def python_location(self, loc: Any) -> Any:
        held = self.locations.get(ctypes.addressof(loc.contents)) if loc else None
        if held is not None:
            return held.source
        return location_from_c(loc) if loc else None

    def execute_op(self, spec: Any, out: Any, uri: str, loc: Any, cancel: int | None) -> int:
        key = (self.current_table.get(threading.get_native_id(), -1), spec.name)
        native.set_ambient_cancel(cancel)
        try:
            result = spec.execute(self.maintainer, uri, self.python_location(loc))
            native.fill_c_result(out, result)
            self.py_results[key] = result
            return 0
        except BaseException as exc:
            self.py_errors[key] = exc
            return _fail(exc)
        finally:
            native.set_ambient_cancel(None)

    def locate(self, out: Any, ref: str) -> int:
        try:
            if self.locator is None:
                raise LookupError("no locator")
            location = self.locator.locate(TableRef(ref))
            cloc = CLocation(location)
        except BaseException as exc:
            self.locate_errors[ref] = exc
            return _fail(exc, _capi.LOOM_ENOTFOUND)
        self.locations[ctypes.addressof(cloc.struct)] = cloc
        out[0] = ctypes.pointer(cloc.struct)
        return 0

    def release(self, loc: Any) -> None:
        if loc:
            self.locations.pop(ctypes.addressof(loc.contents), None)

    def progress(self, p: Any) -> None:
        tid = threading.get_native_id()
        if p.event == _capi.LOOM_PROGRESS_TABLE_START:
            self.current_table[tid] = p.table_index
        elif p.event == _capi.LOOM_PROGRESS_TABLE_DONE:
            self.current_table.pop(tid, None)
        if self.on_progress is not None:
            try:
                self.on_progress(p)
            except Exception as exc:   # a progress display must not stop maintenance
                self.progress_errors.append(exc)
