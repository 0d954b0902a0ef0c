"""LightGBM model text evaluated with numpy, so answering with a trained ranker does not import
lightgbm (whose import pulls in scikit-learn and pandas: about a second and 75 MB per process).

Covers what Bifrost's rankers and classifiers are (a binary classifier's raw margin, as
``predict(raw_score=True)``): one tree per iteration, numerical splits, no linear trees; the
decision rule and the summation order are LightGBM's (`Tree::NumericalDecision`, trees added one
by one in double precision), so scores are bit-identical to `Booster.predict`
(tests/unit/retrieval/ranking/ltr/test_trees.py). Any other model text gives None and LightGBM is used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold (a float compared as a double)
_MISSING_ZERO, _MISSING_NAN = 1, 2


@dataclass(frozen=True)
class _Tree:
    """One tree's split table as LightGBM writes it (a child < 0 is leaf ~child)."""

    feature: np.ndarray
    threshold: np.ndarray
    default_left: np.ndarray
    missing: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf_value: np.ndarray


class TreeEnsemble:
    """The trees of a LightGBM model text; `predict` matches `lightgbm.Booster.predict`."""

    def __init__(self, text: str, trees: list[_Tree], n_features: int) -> None:
        self.text, self.trees, self.n_features = text, trees, n_features
        self._forest = _Forest.of(trees)

    @classmethod
    def parse(cls, text: str) -> TreeEnsemble | None:
        """The ensemble of a model text, or None for anything this evaluator does not reproduce."""
        header, _, body = text.partition("\nTree=")
        head = dict(line.split("=", 1) for line in header.splitlines() if "=" in line)
        if (
            head.get("num_class") != "1"
            or head.get("num_tree_per_iteration") != "1"
            or "average_output" in header
            or head.get("objective", "").split(" ")[0]
            not in ("lambdarank", "rank_xendcg", "regression", "binary")
        ):
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
            default_left=(decision & 2) != 0,
            missing=(decision >> 2) & 3,
            left=ints("left_child"),
            right=ints("right_child"),
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
        if len(x) == 0:
            return total
        for values in self._forest.leaf_values(x):  # one row per tree, added in LightGBM's order
            total += values
        return total


@dataclass(frozen=True)
class _Forest:
    """Every tree's nodes in one padded table, so all (tree, row) paths descend together: a few numpy
    calls per tree level instead of per tree and level (about 10x faster for 300 trees)."""

    width: int  # padded node count per tree
    feature: np.ndarray  # flat [tree * width + node]
    threshold: np.ndarray
    default_left: np.ndarray
    missing: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaves: np.ndarray  # [tree, padded leaf count]
    root: np.ndarray  # 0, or ~0 for a tree that is one leaf

    @classmethod
    def of(cls, trees: list[_Tree]) -> _Forest:
        width = max([len(t.feature) for t in trees] + [1])
        n_leaves = max(len(t.leaf_value) for t in trees) if trees else 1

        def pad(arrays: list[np.ndarray], size: int, dtype) -> np.ndarray:
            out = np.zeros((len(arrays), size), dtype=dtype)
            for i, a in enumerate(arrays):
                out[i, : len(a)] = a
            return out

        flat = {
            name: pad([getattr(t, name) for t in trees], width, dtype).ravel()
            for name, dtype in (
                ("feature", np.int64),
                ("threshold", np.float64),
                ("default_left", bool),
                ("missing", np.int64),
                ("left", np.int64),
                ("right", np.int64),
            )
        }
        root = np.array([0 if len(t.feature) else -1 for t in trees], dtype=np.int64)
        return cls(width, leaves=pad([t.leaf_value for t in trees], n_leaves, np.float64), root=root, **flat)

    def leaf_values(self, x: np.ndarray) -> np.ndarray:
        """[tree, row]: the value of the leaf each row reaches in each tree (`Tree::NumericalDecision`)."""
        n_trees, n_rows = len(self.root), len(x)
        node = np.repeat(self.root, n_rows)  # flat [tree * n_rows + row]
        base = np.repeat(np.arange(n_trees, dtype=np.int64) * self.width, n_rows)
        row = np.tile(np.arange(n_rows, dtype=np.int64), n_trees)
        live = np.nonzero(node >= 0)[0]
        while live.size:
            at = base[live] + node[live]
            f = x[row[live], self.feature[at]]
            miss = self.missing[at]
            f = np.where(np.isnan(f) & (miss != _MISSING_NAN), 0.0, f)
            to_default = ((miss == _MISSING_ZERO) & (f >= -_ZERO) & (f <= _ZERO)) | (
                (miss == _MISSING_NAN) & np.isnan(f)
            )
            go_left = np.where(to_default, self.default_left[at], f <= self.threshold[at])
            nxt = np.where(go_left, self.left[at], self.right[at])
            node[live] = nxt
            live = live[nxt >= 0]
        leaf = (~node).reshape(n_trees, n_rows)
        return np.take_along_axis(self.leaves, leaf, axis=1)
