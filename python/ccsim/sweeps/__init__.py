"""Sweeps: plans, executors (local processes, Dask), a Parquet results store, statistics and an
HTML report. ``ccsim.sweep(plan)`` is the entry point; ``docs/sweeps.md`` is the manual."""

from .driver import SweepOutcome, run_sweep, sweep, tasks_of
from .dask_cluster import DaskExecutor
from .executors import ExecutorError, NoWorkers, WorkerDied, make_executor
from .interrupts import SweepInterrupted
from .local_pool import LocalExecutor
from .metrics import Metric, parse_metric
from .plan import Axis, Plan, PlanError, load_plan, parse_plan
from .runner import run_task, run_to_precision
from .stats import (Estimate, StopReport, StopRule, batch_means_ci, mser5, replication_ci, run_until_precise,
                    sequential_batch_means)
from .store import Store, StoreError, load
from .summary import summarize

__all__ = [
    "sweep", "run_sweep", "SweepOutcome", "tasks_of", "LocalExecutor", "DaskExecutor", "make_executor",
    "ExecutorError", "WorkerDied", "NoWorkers", "SweepInterrupted",
    "Metric", "parse_metric", "Plan", "Axis", "PlanError", "parse_plan", "load_plan", "run_task",
    "run_to_precision", "Estimate", "StopRule", "StopReport", "batch_means_ci", "mser5", "replication_ci",
    "run_until_precise", "sequential_batch_means", "Store", "StoreError", "load", "summarize",
]
