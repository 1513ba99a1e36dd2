"""The data layer: schema (column kinds), validation, file readers and bundled data sets, and
synthpop's data-preparation helpers (codebook, grouping numbers, merging small levels)."""

from synthguard.data.codebook import Codebook, codebook
from synthguard.data.datasets import list_datasets, load_dataset
from synthguard.data.implicates import as_implicates
from synthguard.data.io import read_table, write_table
from synthguard.data.manifest import ReleaseManifest, read_manifest, write_manifest
from synthguard.data.merge_levels import merge_levels
from synthguard.data.numtocat import NumToCat, numtocat
from synthguard.data.schema import (
    ColumnSchema,
    Kind,
    Schema,
    id_like_columns,
    infer_schema,
    validate_frame,
)

__all__ = [
    "Codebook",
    "ColumnSchema",
    "Kind",
    "NumToCat",
    "ReleaseManifest",
    "Schema",
    "as_implicates",
    "codebook",
    "id_like_columns",
    "infer_schema",
    "list_datasets",
    "load_dataset",
    "merge_levels",
    "numtocat",
    "read_manifest",
    "read_table",
    "validate_frame",
    "write_manifest",
    "write_table",
]
