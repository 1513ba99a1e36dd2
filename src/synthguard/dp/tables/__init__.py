"""DP tables and statistics: noisy tables from one budget, TopDown consistency, intervals.

* :func:`dp_tables` — noisy counts (and clamped sums) of several cross-tables from one
  budget split, each answer with its exact interval and a reliability flag;
* :func:`topdown` — a hierarchy (nation → state → county, or code prefixes) measured with
  noise at every level, then post-processed top down into consistent non-negative integers
  with exact invariants and structural zeros (Abowd et al. 2022);
* :func:`percent_change` — change against a noisy baseline with a propagated interval;
* :func:`reconstruction_attack` — the share of records an attacker rebuilds from the
  released tables by integer programming, against the exact tables and a random guess;
* :func:`tables_accuracy`, :func:`topdown_accuracy` — MAE, RMSE, MAPE, CV and total absolute error of shares of a DP
  table against the confidential one (for the data steward only: not covered by the ledger).
"""

from synthguard.dp.tables.accuracy import accuracy_metrics, tables_accuracy, topdown_accuracy
from synthguard.dp.tables.allocation import Allocation, allocate
from synthguard.dp.tables.change import percent_change
from synthguard.dp.tables.measure import dp_tables
from synthguard.dp.tables.noise import NoiseModel
from synthguard.dp.tables.periods import dp_tables_by_period, period_changes
from synthguard.dp.tables.reconstruction import (
    ReconstructionResult,
    reconstruct_table,
    reconstruction_attack,
)
from synthguard.dp.tables.reliability import ReliabilityRule
from synthguard.dp.tables.result import DPTable, DPTables
from synthguard.dp.tables.rounding import controlled_round, least_squares_fit
from synthguard.dp.tables.spec import TableSpec, parse_table
from synthguard.dp.tables.topdown import TopDownLevel, TopDownResult, topdown

__all__ = [
    "Allocation",
    "DPTable",
    "DPTables",
    "NoiseModel",
    "ReconstructionResult",
    "ReliabilityRule",
    "TableSpec",
    "TopDownLevel",
    "TopDownResult",
    "accuracy_metrics",
    "allocate",
    "controlled_round",
    "dp_tables",
    "dp_tables_by_period",
    "least_squares_fit",
    "parse_table",
    "percent_change",
    "period_changes",
    "reconstruct_table",
    "reconstruction_attack",
    "tables_accuracy",
    "topdown",
    "topdown_accuracy",
]
