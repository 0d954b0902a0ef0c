"""LightGBM model text evaluated with numpy, so answering with a trained ranker does not import
lightgbm (whose import pulls in scikit-learn and pandas: about a second and 75 MB per process).

Covers what Bifrost's rankers are: one tree per iteration, numerical splits, no linear trees; the
decision rule and the summation order are LightGBM's (`Tree::NumericalDecision`, trees added one
by one in double precision), so scores are bit-identical to `Booster.predict`
(tests/unit/retrieval/ltr/test_trees.py). Any other model text gives None and LightGBM is used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold (a float compared as a double)
_MISSING_ZERO, _MISSING_NAN = 1, 2


@dataclass(frozen=True)
class _Tree:
    feature: np.ndarray
    threshold: np.ndarray
    default_left: np.ndarray
    missing: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf_value: np.ndarray

    def leaves(self, x: np.ndarray) -> np.ndarray:
        """The leaf index each row of ``x`` reaches."""
        n = len(x)
        if len(self.feature) == 0:
            return np.zeros(n, dtype=np.int64)
        node = np.zeros(n, dtype=np.int64)
        active = np.ones(n, dtype=bool)
        while active.any():
            rows = np.nonzero(active)[0]
            nd = node[rows]
            f = x[rows, self.feature[nd]]
            miss = self.missing[nd]
            f = np.where(np.isnan(f) & (miss != _MISSING_NAN), 0.0, f)
            to_default = ((miss == _MISSING_ZERO) & (f >= -_ZERO) & (f <= _ZERO)) | ((miss == _MISSING_NAN) & np.isnan(f))
            go_left = np.where(to_default, self.default_left[nd], f <= self.threshold[nd])
            nxt = np.where(go_left, self.left[nd], self.right[nd])
            node[rows] = nxt
            active[rows] = nxt >= 0
        return ~node  # a leaf is stored as ~index


class TreeEnsemble:
    """The trees of a LightGBM model text; `predict` matches `lightgbm.Booster.predict`."""

    def __init__(self, text: str, trees: list[_Tree], n_features: int) -> None:
        self.text, self.trees, self.n_features = text, trees, n_features

    @classmethod
    def parse(cls, text: str) -> TreeEnsemble | None:
        """The ensemble of a model text, or None for anything this evaluator does not reproduce."""
        header, _, body = text.partition("\nTree=")
        head = dict(line.split("=", 1) for line in header.splitlines() if "=" in line)
        if (head.get("num_class") != "1" or head.get("num_tree_per_iteration") != "1" or "average_output" in header
                or head.get("objective", "").split(" ")[0] not in ("lambdarank", "rank_xendcg", "regression")):
            return None
        trees = []
        for block in ("Tree=" + body).split("\nTree="):
            block = block.split("end of trees")[0]
            kv = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
            if "leaf_value" not in kv:
                continue
            if kv.get("num_cat", "0") != "0" or kv.get("is_linear", "0") != "0":
                return None
            try:
                trees.append(cls._tree(kv))
            except (KeyError, ValueError):  # a categorical split or a malformed tree: leave it to LightGBM
                return None
        return cls(text, trees, int(head["max_feature_idx"]) + 1) if trees else None

    @staticmethod
    def _tree(kv: dict[str, str]) -> _Tree:
        def ints(key: str) -> np.ndarray:
            return np.array(kv[key].split(), dtype=np.int64) if kv.get(key) else np.zeros(0, dtype=np.int64)

        decision = ints("decision_type")
        if np.any(decision & 1):
            raise ValueError("categorical split")
        return _Tree(
            feature=ints("split_feature"),
            threshold=np.array([float(v) for v in kv.get("threshold", "").split()], dtype=np.float64),
            default_left=(decision & 2) != 0, missing=(decision >> 2) & 3,
            left=ints("left_child"), right=ints("right_child"),
            leaf_value=np.array([float(v) for v in kv["leaf_value"].split()], dtype=np.float64),
        )

    def num_feature(self) -> int:
        return self.n_features

    def model_to_string(self) -> str:
        return self.text

    def predict(self, rows: np.ndarray, num_threads: int = 1) -> np.ndarray:  # noqa: ARG002 - Booster's signature
        """The sum of every tree's leaf value per row, tree after tree, in double precision."""
        x = np.asarray(rows, dtype=np.float64)
        total = np.zeros(len(x), dtype=np.float64)
        for tree in self.trees:
            total += tree.leaf_value[tree.leaves(x)]
        return total
