"""loom.etl.maintenance._step (stand-in): MaintenanceStep."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from loom.etl.maintenance._protocol import OperationDeclaration

ParamsT = TypeVar("ParamsT")


class MaintenanceStep(Generic[ParamsT]):
    operations: ClassVar[list] = []

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        ops = cls.__dict__.get("operations", cls.operations)
        if not isinstance(ops, list):
            raise TypeError(f"{cls.__qualname__}: 'operations' must be a list")
        for idx, op in enumerate(ops):
            if not isinstance(op, OperationDeclaration):
                raise TypeError(f"{cls.__qualname__}: operations[{idx}] must implement "
                                f"OperationDeclaration")

    def operations_for(self, params):
        return type(self).operations
