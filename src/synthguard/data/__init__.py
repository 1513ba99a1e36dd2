"""The data layer: schema (column kinds), validation, file readers and bundled data sets."""

from synthguard.data.datasets import list_datasets, load_dataset
from synthguard.data.implicates import as_implicates
from synthguard.data.io import read_table, write_table
from synthguard.data.schema import ColumnSchema, Kind, Schema, infer_schema, validate_frame

__all__ = [
    "ColumnSchema",
    "Kind",
    "Schema",
    "as_implicates",
    "infer_schema",
    "list_datasets",
    "load_dataset",
    "read_table",
    "validate_frame",
    "write_table",
]
