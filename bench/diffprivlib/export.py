"""Export the head-to-head tables, their splits and their public bounds to npz files, from the
main environment (where dplit and the data packages are installed), so that the diffprivlib
environment reads identical data and identical splits.

Usage (from the repository root): .venv/bin/python bench/diffprivlib/export.py
Writes bench/diffprivlib/data/<table>.npz (not committed: regenerate them with this script).
"""
import os
import numpy as np
from dplit.recipes import HEAD_TO_HEAD_TABLES, head_to_head_splits, schema_bounds

here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "data"), exist_ok=True)
for name, (task, loader, role) in HEAD_TO_HEAD_TABLES.items():
    X, y = loader()
    sp = head_to_head_splits(len(y), name)
    np.savez_compressed(
        os.path.join(here, "data", f"{name}.npz"), X=X, y=y, task=task, role=role,
        train=np.array([tr for tr, _ in sp]), test=np.array([te for _, te in sp]),
        x_minmax=np.column_stack([X.min(axis=0), X.max(axis=0)]),
        y_minmax=np.array([y.min(), y.max()], dtype=np.float64),
        x_schema=schema_bounds(X), y_schema=schema_bounds(y[:, None])[0])
    print(name, task, role, X.shape)
