"""loom.etl.maintenance._builder (stand-in): MaintainTable, MaintainSchema."""

from __future__ import annotations

from loom.etl.maintenance._ops import CompactSpec, MaintenanceSpec, VacuumSpec, ZOrderSpec


def _assert_no_conflicting_ops(ops, owner):
    if any(isinstance(o, CompactSpec) for o in ops) and any(isinstance(o, ZOrderSpec) for o in ops):
        raise TypeError(f"{owner}: compact() and z_order_by() are mutually exclusive")


def _expand_for_schemas(routes, schemas, ops):
    prefixes = tuple(f"{s}." for s in schemas)
    return [MaintenanceSpec(table_ref=r.name, ops=ops) for r in routes
            if not prefixes or any(r.name.startswith(p) for p in prefixes)]


class MaintainTable:
    def __init__(self, table_ref: str) -> None:
        if not table_ref.strip():
            raise ValueError("MaintainTable: table_ref must be a non-empty string")
        self._table_ref = table_ref
        self._ops = []

    def vacuum(self, retention_hours=None, *, dry_run=True):
        self._ops.append(VacuumSpec(retention_hours=retention_hours, dry_run=dry_run))
        return self

    def compact(self, target_size=None):
        self._ops.append(CompactSpec(target_size=target_size))
        return self

    def z_order_by(self, columns, target_size=None):
        if not columns:
            raise ValueError(f"MaintainTable({self._table_ref!r}): z_order_by requires at least one column")
        self._ops.append(ZOrderSpec(columns=list(columns), target_size=target_size))
        return self

    def resolve(self, config):
        _assert_no_conflicting_ops(self._ops, f"MaintainTable({self._table_ref!r})")
        return [MaintenanceSpec(table_ref=self._table_ref, ops=tuple(self._ops))]


class MaintainSchema:
    def __init__(self, schema_prefix: str) -> None:
        if not schema_prefix.strip():
            raise ValueError("MaintainSchema: schema_prefix must be a non-empty string")
        self._schema_prefix = schema_prefix.strip()
        self._ops = []

    def vacuum(self, retention_hours=None, *, dry_run=True):
        self._ops.append(VacuumSpec(retention_hours=retention_hours, dry_run=dry_run))
        return self

    def compact(self, target_size=None):
        self._ops.append(CompactSpec(target_size=target_size))
        return self

    def z_order_by(self, columns, target_size=None):
        if not columns:
            raise ValueError(f"MaintainSchema({self._schema_prefix!r}): z_order_by requires at least one column")
        self._ops.append(ZOrderSpec(columns=list(columns), target_size=target_size))
        return self

    def resolve(self, config):
        _assert_no_conflicting_ops(self._ops, f"MaintainSchema({self._schema_prefix!r})")
        return _expand_for_schemas(config.tables, (self._schema_prefix,), tuple(self._ops))
