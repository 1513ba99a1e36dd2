"""The data layer: schema (column kinds), validation, file readers and bundled data sets."""

from synthguard.data.datasets import list_datasets, load_dataset
from synthguard.data.implicates import as_implicates
from synthguard.data.io import read_table, write_table
from synthguard.data.manifest import ReleaseManifest, read_manifest, write_manifest
from synthguard.data.schema import (
    ColumnSchema,
    Kind,
    Schema,
    id_like_columns,
    infer_schema,
    validate_frame,
)

__all__ = [
    "ColumnSchema",
    "Kind",
    "ReleaseManifest",
    "Schema",
    "as_implicates",
    "id_like_columns",
    "infer_schema",
    "list_datasets",
    "load_dataset",
    "read_manifest",
    "read_table",
    "validate_frame",
    "write_manifest",
    "write_table",
]
