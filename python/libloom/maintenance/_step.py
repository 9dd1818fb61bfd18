"""MaintenanceStep: the base class of declarative maintenance steps."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

ParamsT = TypeVar("ParamsT")


class MaintenanceStep(Generic[ParamsT]):
    """Base class for Delta table maintenance steps.

    Subclass and declare ``operations`` as a list of MaintainTable and/or
    MaintainSchema instances (or any OperationDeclaration).

    Example::

        class NightlyMaintenance(MaintenanceStep[None]):
            operations = [
                MaintainSchema("raw").vacuum(retention_hours=168, dry_run=False).compact(),
                MaintainTable("staging.orders")
                    .vacuum(dry_run=False)
                    .z_order_by(["run_date", "_id"]),
            ]

    The step is executed via MaintenanceRunner::

        runner = MaintenanceRunner.from_config(config)
        report = runner.run(NightlyMaintenance)
        report.raise_if_errors()

    A subclass whose ``operations`` is not a list, or lists something
    without a ``resolve(config)`` method, is a TypeError at class
    definition.
    """

    operations: ClassVar[list[Any]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ops = cls.__dict__.get("operations", cls.operations)
        if not isinstance(ops, list):
            raise TypeError(f"{cls.__qualname__}: 'operations' must be a list, "
                            f"got {type(ops).__name__}")
        for idx, op in enumerate(ops):
            if not callable(getattr(op, "resolve", None)):
                raise TypeError(f"{cls.__qualname__}: operations[{idx}] must implement "
                                f"OperationDeclaration (MaintainTable or MaintainSchema), "
                                f"got {type(op).__name__}")

    def operations_for(self, params: ParamsT) -> list[Any]:
        """Return the list of operations to execute for this run.

        Override to build the list dynamically from `params` -- useful when
        operations are driven by Prefect deployment parameters instead of
        being hardcoded at class-definition time. The default returns the
        class-level ``operations`` list.
        """
        return list(type(self).operations)
