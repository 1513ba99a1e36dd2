"""``cart``: a classification or regression tree; synthetic values are drawn from leaf donors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from synthguard._random import check_random_state
from synthguard.errors import ParameterError
from synthguard.synthesis.methods._systematic import systematic_positions
from synthguard.synthesis.methods._tree import NOMINAL, NUMERIC, ORDINAL, Tree, grow_tree
from synthguard.synthesis.methods._within import WithinSlopes
from synthguard.synthesis.methods.base import SynthesisMethod, check_weights
from synthguard.synthesis.methods.sample import _check_draw_data, _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = ["CartMethod"]


def _leaf_quantile(values: np.ndarray, start: np.ndarray, size: np.ndarray, q: float) -> np.ndarray:
    """Per-leaf sample quantile (R type 7, numpy "linear") of values sorted within each leaf."""
    pos = q * (size - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, size - 1)
    frac = pos - lo
    return values[start + lo] * (1 - frac) + values[start + hi] * frac


def _silverman(sd: np.ndarray, iqr: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Silverman's (1986, eq. 3.31) rule ``0.9 min(sd, IQR / 1.34) n^(-1/5)``; 0 if undefined.

    As R's ``bw.nrd0``, when ``min(sd, IQR / 1.34)`` is zero but ``sd`` is not, ``sd`` is used.
    """
    lo = np.minimum(sd, iqr / 1.34)
    lo = np.where(lo > 0, lo, sd)
    return 0.9 * lo * np.power(size.astype(float), -0.2)


def _bin_edges(x: np.ndarray, max_bins: int) -> np.ndarray | None:
    """Cut points giving at most ``max_bins`` quantile bins of ``x``; None if ``x`` has fewer values."""
    s = np.sort(x)
    if 1 + np.count_nonzero(s[1:] != s[:-1]) <= max_bins:
        return None
    return np.unique(s[(np.arange(1, max_bins) * len(s)) // max_bins])


def _decimals(values: np.ndarray, max_decimals: int = 8) -> int:
    """Fewest decimals (0..``max_decimals``) that hold every value of ``values``."""
    v = values[np.isfinite(values)]
    for d in range(max_decimals):
        scaled = v * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6 * np.maximum(1.0, np.abs(scaled)) * 1e-3):
            return d
    return max_decimals


def _leaf_scale(donors: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Each leaf's standard deviation of the donors (grouped by leaf from ``start``); 0 for a
    leaf of identical values or of one donor (it does not move)."""
    size = np.diff(np.r_[start, len(donors)])
    leaf = np.repeat(np.arange(len(start)), size)
    d = donors.astype(np.float64)
    mean = np.bincount(leaf, weights=d) / size
    ss = np.bincount(leaf, weights=(d - mean[leaf]) ** 2)
    return np.sqrt(ss / np.maximum(size - 1, 1))


_KINDS = {"numeric": NUMERIC, "ordinal": ORDINAL, "nominal": NOMINAL}


def _kind_codes(name: str, kinds: Sequence[str] | None, p: int, X: np.ndarray) -> np.ndarray:
    """Kinds of the design's columns as ``_tree`` codes; checks codes of level columns."""
    if kinds is None:
        return np.zeros(p, dtype=np.int64)
    if len(kinds) != p or any(k not in _KINDS for k in kinds):
        raise ParameterError(
            f"method '{name}': parameter 'kinds' must give one of 'numeric', 'ordinal', "
            f"'nominal' for each of the {p} predictor column(s)"
        )
    codes = np.array([_KINDS[k] for k in kinds], dtype=np.int64)
    for j in np.flatnonzero(codes != NUMERIC):
        col = X[:, j]
        if np.any(col < 0) or np.any(col != np.round(col)):
            raise ParameterError(
                f"method '{name}': predictor column {j} is declared '{kinds[int(j)]}' but does "
                "not hold level codes 0, 1, 2, ...; pass integer codes or declare it 'numeric'"
            )
    return codes


@register_method("cart")
class CartMethod(SynthesisMethod):
    """Classification or regression tree; each synthetic value is a donor from its leaf.

    A tree (CART; Breiman et al. 1984) of the target on its predictors is grown on the
    confidential data: a regression tree (squared error) for numeric targets, a
    classification tree (Gini) for categorical ones. To synthesize a row, its predictors are
    dropped down the tree and one confidential target value is drawn uniformly at random
    from the leaf they reach (Reiter 2005; synthpop's ``syn.cart``, Nowok, Raab & Dibben
    2016). Draws are vectorised: in ``fit`` the confidential values are sorted by leaf once;
    in ``draw`` row ``i`` in leaf ``l`` takes ``donors[start_l + floor(u_i * size_l)]``.

    The tree is grown and pruned as rpart's (which synthpop uses; see
    ``synthguard.synthesis.methods._tree``): at least ``min_samples_leaf`` records per leaf
    (synthpop's ``minbucket = 5``), a node needs ``min_samples_split`` records to be split
    (rpart's ``minsplit``, by default ``3 * minbucket``), splits maximise the decrease of the
    squared error (``n * Gini`` for a categorical target), and the grown tree is cut back by
    cost-complexity pruning at ``alpha = cp * R(root)`` (rpart's risk ``R``: squared error,
    or misclassified records): the smallest subtree minimising ``R(T) + alpha |leaves|``. The synthesizer
    gives this method a design of *codes* (``design_layout = "codes"``): each categorical
    predictor is one column, split on subsets of its levels (levels ordered at each node by
    the mean response, Breiman et al. 1984, Thm 4.5; for three or more target classes by a
    principal-component score, Coppersmith, Hong & Hosking 1999), each ordinal predictor on
    its order. (With 0/1 dummies, the design other methods get, a level could only be split
    off one dummy at a time and the first, dropped level not at all: on diamonds a release's
    ``price ~ carat + cut + color + clarity`` lost about 800 on every clarity effect, since
    clarity I1, the dropped level, was priced like its neighbours.)

    With ``smoothing="density"`` (or ``True``; numeric targets only, categorical targets are
    never smoothed) each drawn value that is not a point mass gets Gaussian noise with its
    leaf's bandwidth, i.e. it is drawn from a Gaussian kernel density estimate of the leaf's
    values, as synthpop's ``syn.smooth(smoothing = "density")`` (Nowok, Raab & Dibben 2016),
    with these rules, each one a lesson of synthpop's own:

    * **bandwidth**: Silverman's rule ``0.9 min(sd, IQR / 1.34) size^(-1/5)`` (Silverman 1986,
      eq. 3.31; R's ``bw.nrd0``) of the leaf's values that are not point masses; where the
      leaf has fewer than two such values or the rule gives 0, the rule on the whole target's
      non-point-mass values. (synthpop 1.9 smooths the whole synthetic column with one
      Sheather-Jones bandwidth, ``density(width = "SJ")``; a per-leaf bandwidth follows the
      tree's local spread, so a narrow leaf is not blurred by a wide one.)
    * **point masses stay exact**: a value held by at least ``point_mass`` (default 1%) of the
      confidential values, and a minimum or maximum held by at least ten times as many records
      as the next value (a bottom or top code such as 99,999), are drawn unchanged. synthpop
      excludes a value holding more than 70% of the column and top codes; without this the
      zeros of Adult's ``capital_gain`` (92% of the records) were smeared over negative and
      positive values, halving their share;
    * **range**: smoothed values are reflected at the confidential minimum and maximum (or
      the schema's public bounds, which the synthesizer applies afterwards) and clipped, so
      they stay inside the observed range (synthpop clips; reflection keeps the density near
      the edges without piling values on them);
    * **precision**: smoothed values are rounded to the decimals of the confidential values
      (at most 8), so an integer column stays integer, as synthpop rounds to
      ``decimalplaces``.

    With ``adjust="within"`` (numeric targets with predictors) a donor drawn for a record is
    moved along the within-leaf least-squares slopes of the target on the predictors,
    ``y* = y_d + b_w' (d(x*) - d(x_d))`` (see :mod:`synthguard.synthesis.methods._within`),
    so the part of a predictor's effect that the leaf did not split on is kept: inside a leaf
    the donors differ from the record in the predictors, and a plain donor draw pulls every
    such effect towards zero (on diamonds, ``price ~ carat + cut + color + clarity`` lost
    about 3 standard errors of every ``cut`` effect even with the confidential predictors).
    Point masses are drawn unchanged; adjusted values are reflected into the confidential
    range and rounded to its precision, as smoothed ones; with ``smoothing`` too, the adjusted
    value is then smoothed. A record in its donor's place (same predictors) gets the donor's
    value. ``adjust="scaled"`` measures the slopes in units of each leaf's standard deviation
    ``s_l``: ``b_w`` is fit to ``y / s_l`` and the record moves by ``s_l b_w' (d(x*) -
    d(x_d))``, so a leaf of narrow spread (cheap diamonds) moves little and a wide one much
    (heteroscedastic leaves; a leaf of identical values does not move).

    ``adjust="auto"`` is ``"scaled"`` for a target whose point masses hold at most half the
    records (diamonds' ``price``, Adult's ``fnlwgt``) and no adjustment for zero-inflated or
    heaped targets (``capital_gain``, ``hours_per_week``), where the leaf spread mixes the
    point mass with the rest (adjusting them raised Adult's CART pMSE ratio from 0.84 to
    1.22, seed 1). With ``draws="systematic"`` it kept diamonds' ``price ~ carat + cut +
    color + clarity`` at a mean CI overlap of 0.81 (3 seeds; synthpop's release 0.76). It is
    the default. Adjusted values are new values, which a ``passive`` lookup of the column
    (``passive:of=``) could not read: the synthesizer turns ``"auto"`` off for a column such a
    lookup reads, and refuses ``"within"``/``"scaled"`` (or smoothing) on it. synthpop's draw
    is ``--method price=cart:adjust=false:draws=random``.

    ``draws="systematic"`` balances the donors drawn in one leaf: the ``m``
    rows that reach a leaf of ``s`` donors, taken in random order ``r = 0 .. m - 1``, get
    the donors at ranks ``floor((r + u) s / m)`` of the leaf's sorted values, one ``u ~ U(0,
    1)`` per leaf (systematic sampling; Cochran 1977, ch. 8). Each row's donor is still
    uniform over its leaf, as synthpop's independent draw (``draws="random"``), so the
    release has the same expected distribution; the draws of a leaf together reproduce its
    distribution (class shares, quantiles) up to the spacing ``s / m`` instead of with a
    bootstrap's noise, so fewer release-to-release differences in analyses (on diamonds the
    regression's CI overlap sd over seeds fell from 0.16 to 0.04).

    ``draw_from_leaves(leaf, rng, smooth=True)`` smooths one draw even when ``smoothing`` is
    off: the synthesizer uses it to redraw records that replicate a confidential unique.

    A draw from a leaf whose confidential values are all identical reproduces a real value:
    :meth:`leaf_diagnostics` lists those leaves (the course's IRS case study).

    Parameters
    ----------
    min_samples_leaf : int, default 5
        Minimum number of confidential records in a leaf (synthpop's ``minbucket``).
    min_samples_split : int or None, default None
        Minimum records in a node for it to be split; None means ``3 * min_samples_leaf``
        (rpart's default relation).
    max_depth : int or None, default None
        Maximum depth of the tree (rpart caps it at 30; None means no cap).
    cp : float, default 1e-8
        Complexity parameter (synthpop's default): subtrees that lower the risk by at most
        ``cp * R(root)`` per extra leaf are pruned, as rpart's ``cp``.
    smoothing : {False, "density", True}, default False
        Kernel-smooth numeric draws within leaves (``True`` means ``"density"``).
        Command line and plans: ``--method income=cart:smoothing=density``.
    point_mass : float, default 0.01
        Share of the confidential values a value must hold to be a point mass, drawn
        unsmoothed. Values above 1 turn the share rule off.
    exact_min_samples : int or None, default None
        Nodes of at least this many records are split by the exact search (levels re-ordered
        at each node); a smaller node is grown by scikit-learn with the levels' order taken
        at that node (fast). None means ``max(5000, n // 64)``; 0 makes every split exact
        (slow on large files).
    max_bins : int or None, default None
        If given, each numeric predictor with more than ``max_bins`` distinct values is replaced by
        its quantile-bin number (at most ``max_bins`` bins, cut points at the confidential
        quantiles) before the tree is grown, so splits can only fall on those cut points
        (the histogram idea of LightGBM, Ke et al. 2017). About twice as fast on large
        files (1M rows); None grows the exact tree, as synthpop does.
    adjust : {False, "auto", "within", "scaled"}, default "auto"
        ``"within"`` moves each donor drawn for a numeric target along the within-leaf
        slopes, ``"scaled"`` along slopes in units of the leaf's spread (see above); False
        draws the donor's value unchanged, as synthpop's ``syn.cart``; ``"auto"`` is
        ``"scaled"`` when the target's point masses hold at most half the records, else
        False. Command line and plans: ``--method price=cart:adjust=within``.
    draws : {"random", "systematic"}, default "systematic"
        How the donors of one leaf are drawn: balanced (see above) or independently
        (``"random"``, synthpop's ``syn.cart``).

    Attributes
    ----------
    tree_ : synthguard.synthesis.methods._tree.Tree or None
        The fitted, pruned tree (None without predictors: a single leaf holds every record).
    layout_ : {"codes", "dummies"}
        The design the method was fitted on (``"codes"`` when ``kinds`` were given).
    n_leaves_ : int
        Number of leaves.
    donors_ : ndarray
        The confidential target values sorted by leaf (and by value within a leaf);
        confidential: a fitted method holds real data.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import CartMethod
    >>> x = np.repeat([0.0, 1.0], 10)[:, None]
    >>> y = np.r_[np.full(10, 5.0), np.arange(10.0)]
    >>> m = CartMethod().fit(x, y)
    >>> m.leaf_diagnostics()[["size", "n_distinct", "all_identical"]].values.tolist()
    [[10, 1, True], [10, 10, False]]
    >>> m.draw(np.array([[0.0], [0.0]]), np.random.default_rng(0)).tolist()
    [5.0, 5.0]
    """

    supports_weights = False
    # one column per categorical predictor, holding its codes (see fit's ``kinds``)
    design_layout = "codes"
    # scikit-learn trees split on float32 values: a float32 design is what they would
    # compute anyway, at half the memory and without a copy (see methods.base).
    design_dtype = np.float32

    def __init__(
        self,
        *,
        min_samples_leaf: int = 5,
        min_samples_split: int | None = None,
        max_depth: int | None = None,
        cp: float = 1e-8,
        smoothing: bool | str = False,
        max_bins: int | None = None,
        point_mass: float = 0.01,
        exact_min_samples: int | None = None,
        adjust: bool | str = "auto",
        draws: str = "systematic",
    ) -> None:
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.cp = cp
        self.smoothing = smoothing
        self.max_bins = max_bins
        self.point_mass = point_mass
        self.exact_min_samples = exact_min_samples
        self.adjust = adjust
        self.draws = draws

    def _check_params(self) -> None:
        name = self.name
        if int(self.min_samples_leaf) < 1:
            raise ParameterError(f"method '{name}': parameter 'min_samples_leaf' must be >= 1")
        if self.min_samples_split is not None and int(self.min_samples_split) < 2:
            raise ParameterError(f"method '{name}': parameter 'min_samples_split' must be >= 2")
        if self.max_depth is not None and int(self.max_depth) < 1:
            raise ParameterError(f"method '{name}': parameter 'max_depth' must be >= 1 or None")
        if not (np.isfinite(self.cp) and self.cp >= 0):
            raise ParameterError(f"method '{name}': parameter 'cp' must be finite and >= 0")
        if self.exact_min_samples is not None and int(self.exact_min_samples) < 0:
            raise ParameterError(
                f"method '{name}': parameter 'exact_min_samples' must be >= 0 or None"
            )
        if self.max_bins is not None and int(self.max_bins) < 2:
            raise ParameterError(f"method '{name}': parameter 'max_bins' must be >= 2 or None")
        if self.smoothing not in (False, True, "density", "", None, "none"):
            raise ParameterError(
                f"method '{name}': parameter 'smoothing' must be 'density' or False"
            )
        if self.adjust not in (False, True, "within", "scaled", "auto", "", None, "none", "false"):
            raise ParameterError(
                f"method '{name}': parameter 'adjust' must be 'auto', 'within', 'scaled' or False"
            )
        if self.draws not in ("systematic", "random"):
            raise ParameterError(
                f"method '{name}': parameter 'draws' must be 'systematic' or 'random'"
            )
        if not (isinstance(self.point_mass, int | float) and self.point_mass > 0):
            raise ParameterError(f"method '{name}': parameter 'point_mass' must be > 0")

    def _design(self, X: np.ndarray, fortran: bool = False) -> np.ndarray:
        """The tree's input: ``X`` (float32, from the checks), predictors binned if ``max_bins``
        is set.

        Without binning ``X`` itself is used: no copy. The synthesizer builds it in float32
        (``design_dtype``) and in Fortran order, which makes the splitter's per-feature scans
        cache-friendly (about 15% faster on 1M x 9); ``fortran=True`` (growing) converts
        other orders. Binning writes the bin numbers into a copy.
        """
        out = np.asfortranarray(X) if fortran else X
        if any(edges is not None for edges in getattr(self, "bin_edges_", ())):
            out = out.copy(order="K")
            for j, edges in enumerate(self.bin_edges_):
                if edges is not None:
                    out[:, j] = np.searchsorted(edges, X[:, j], side="right")
        return out

    def fit(
        self,
        X: np.ndarray,
        y: np.ndarray,
        weights: np.ndarray | None = None,
        *,
        rng: np.random.Generator | None = None,
        kinds: Sequence[str] | None = None,
    ) -> CartMethod:
        """Grow and prune the tree and group the confidential values by leaf (``rng`` is
        not used: the tree is deterministic).

        ``kinds`` (one per column of ``X``): ``"numeric"``, ``"ordinal"`` (integer codes in
        the levels' order) or ``"nominal"`` (integer codes of unordered levels, split on
        subsets). The synthesizer passes them with a design of codes (``design_layout =
        "codes"``); without them every column is numeric (e.g. 0/1 dummies).
        """
        self._check_params()
        X, y, categorical = _check_fit_data(self, X, y)
        check_weights(self.name, weights, len(y), self.supports_weights)
        n, p = X.shape
        self.categorical_ = categorical
        self.n_predictors_ = p
        kind_codes = _kind_codes(self.name, kinds, p, X)
        self.kinds_ = kind_codes
        self.layout_ = "dummies" if kinds is None else "codes"
        leaf_size = int(self.min_samples_leaf)
        split = 3 * leaf_size if self.min_samples_split is None else int(self.min_samples_split)
        self.bin_edges_: list[np.ndarray | None] = [
            None if self.max_bins is None or kind_codes[j] != NUMERIC
            else _bin_edges(X[:, j], int(self.max_bins))
            for j in range(p)
        ]
        tree: Tree | None = None
        if p > 0:
            exact = self.exact_min_samples
            design = self._design(X, fortran=True)
            tree, node = grow_tree(
                design, y, kind_codes,
                n_classes=int(y.max()) + 1 if categorical else 0,
                min_leaf=leaf_size, min_split=max(split, 2),
                max_depth=None if self.max_depth is None else int(self.max_depth),
                cp=float(self.cp),
                exact_min=max(5000, n // 64) if exact is None else int(exact),
            )
            del design
            n_nodes = tree.node_count
        else:
            node = np.zeros(n, dtype=np.int64)
            n_nodes = 1
        self.tree_ = tree
        # Sort records by leaf, and by value within a leaf (for quantiles and diagnostics).
        # (row-length temporaries are released as soon as they are used: on large files
        # they sit next to the caller's design)
        order = np.lexsort((y, node))
        node_sorted = node[order]
        del node
        # categorical donors are codes: held in the smallest integer type (int8 for up to 127
        # levels), as the synthesizer's working form, since a fitted model keeps them
        held = y if not categorical else y.astype(np.min_scalar_type(-int(y.max()) - 1))
        self.donors_ = held[order]
        del held
        start = np.flatnonzero(np.r_[True, node_sorted[1:] != node_sorted[:-1]])
        self.slopes_: WithinSlopes | None = None
        self.donor_fit_: np.ndarray | None = None
        self.leaf_scale_: np.ndarray | None = None
        adjust = self._resolved_adjust(y, categorical) if p > 0 else None
        if adjust is not None:
            target = self.donors_
            if adjust == "scaled":
                self.leaf_scale_ = _leaf_scale(self.donors_, start)
                size = np.diff(np.r_[start, n])
                # (a leaf of identical values: deviations 0 whatever the divisor)
                target = self.donors_ / np.repeat(
                    np.where(self.leaf_scale_ > 0, self.leaf_scale_, 1.0), size)
            slopes = WithinSlopes(kind_codes).fit(X, target, start, order)
            if np.any(slopes.coef_ != 0):
                self.slopes_ = slopes
                # b_w' d(x_d) of each donor, in the donors' order (one float per donor)
                self.donor_fit_ = np.concatenate([
                    slopes.predict(X[order[lo:lo + (1 << 16)]])
                    for lo in range(0, n, 1 << 16)
                ])
        del order
        self.leaf_start_ = start
        self.leaf_size_ = np.diff(np.r_[start, n])
        self.leaf_node_ = node_sorted[start]
        del node_sorted
        self.n_leaves_ = len(start)
        lookup = np.full(n_nodes, -1, dtype=np.int64)
        lookup[self.leaf_node_] = np.arange(self.n_leaves_)
        self.node_to_leaf_ = lookup
        donors = self.donors_
        if categorical:
            changes = donors[1:] != donors[:-1]
        else:
            changes = donors[1:] > donors[:-1]
        # Distinct values per leaf: 1 + the changes between neighbours inside the leaf.
        inside = np.ones(n, dtype=bool)
        inside[start] = False
        step = np.r_[False, changes] & inside
        self.leaf_distinct_ = 1 + np.add.reduceat(step.astype(np.int32), start).astype(np.int64)
        self.smoothed_ = self.smoothing in (True, "density") and not categorical
        if not categorical:
            self._fit_smoothing(y)
        return self

    def _point_masses(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct values of a numeric target, their counts and which are point masses."""
        n = len(y)
        vals, counts = np.unique(y, return_counts=True)
        mass = counts >= self.point_mass * n
        if len(vals) > 1:
            # a bottom or top code: the extreme value held by >= 10 x the records of the next
            mass[0] |= counts[0] >= 10 * counts[1] and counts[0] > 1
            mass[-1] |= counts[-1] >= 10 * counts[-2] and counts[-1] > 1
        return vals, counts, mass

    def _resolved_adjust(self, y: np.ndarray, categorical: bool) -> str | None:
        """``"within"``, ``"scaled"`` or None (no adjustment) for this target; ``"auto"`` is
        ``"scaled"`` when at most half the records hold a point mass, else None."""
        if categorical or self.adjust in (False, None, "", "none", "false"):
            return None
        if self.adjust == "auto":
            _, counts, mass = self._point_masses(y)
            return "scaled" if counts[mass].sum() <= 0.5 * len(y) else None
        return "scaled" if self.adjust == "scaled" else "within"

    def _fit_smoothing(self, y: np.ndarray) -> None:
        """Point masses, range, precision and per-leaf bandwidths of a numeric target."""
        vals, _, mass = self._point_masses(y)
        self.point_masses_ = vals[mass]
        self.range_ = (float(vals[0]), float(vals[-1]))
        self.decimals_ = _decimals(vals)
        self.bandwidth_ = self._bandwidths()

    def _bandwidths(self) -> np.ndarray:
        """Silverman bandwidth of each leaf's non-point-mass values; the whole target's where
        a leaf has fewer than two of them or its rule gives 0."""
        donors, start, size = self.donors_, self.leaf_start_, self.leaf_size_
        free = ~np.isin(donors, self.point_masses_)
        leaf_of = np.repeat(np.arange(len(start)), size)
        # per-leaf statistics of the free donors (still sorted within each leaf)
        fd, fl = donors[free], leaf_of[free]
        fsize = np.bincount(fl, minlength=len(start))
        fstart = np.r_[0, np.cumsum(fsize)[:-1]]
        ok = fsize > 1
        bw = np.zeros(len(start))
        if ok.any():
            sums = np.bincount(fl, weights=fd, minlength=len(start))
            means = sums / np.maximum(fsize, 1)
            dev = fd - means[fl]
            ss = np.bincount(fl, weights=dev * dev, minlength=len(start))
            sd = np.sqrt(ss[ok] / (fsize[ok] - 1))
            iqr = _leaf_quantile(fd, fstart[ok], fsize[ok], 0.75) - _leaf_quantile(
                fd, fstart[ok], fsize[ok], 0.25
            )
            bw[ok] = _silverman(sd, iqr, fsize[ok])
        all_free = np.sort(fd)
        m = np.array([len(all_free)])
        whole = 0.0
        if len(all_free) > 1:
            whole = _silverman(
                np.array([all_free.std(ddof=1)]),
                _leaf_quantile(all_free, np.array([0]), m, 0.75)
                - _leaf_quantile(all_free, np.array([0]), m, 0.25),
                m,
            )[0]
        return np.where(bw > 0, bw, whole)

    def leaf_index(self, X: np.ndarray) -> np.ndarray:
        """Position (row of :meth:`leaf_diagnostics`) of the leaf each row of ``X`` falls in."""
        self._check_fitted("donors_")
        X = _check_draw_data(self, X, self.n_predictors_)
        tree = getattr(self, "tree_", None)
        if tree is None:
            # a model saved in format 1 (see synthesis.persistence) holds scikit-learn's tree
            tree = getattr(self, "tree_model_", None)
        if tree is None or X.shape[0] == 0:
            return np.zeros(X.shape[0], dtype=np.int64)
        return self.node_to_leaf_[tree.apply(self._design(X))]

    @property
    def adjusts_(self) -> bool:
        """Whether draws are moved along within-leaf slopes (``adjust``; see
        :meth:`linear_predictor`)."""
        return getattr(self, "slopes_", None) is not None

    def linear_predictor(self, X: np.ndarray) -> np.ndarray | None:
        """``b_w' d(x)`` of each row of ``X`` for :meth:`draw_from_leaves`'s ``linear``, or
        None when the method does not adjust (``adjust`` off, a categorical target, no
        slope)."""
        slopes = getattr(self, "slopes_", None)
        if slopes is None:
            return None
        return slopes.predict(_check_draw_data(self, X, self.n_predictors_))

    def leaf_diagnostics(self) -> pd.DataFrame:
        """One row per leaf: its size and whether its confidential values are all identical.

        Columns: ``leaf`` (the tree's node id), ``size`` (confidential records in the leaf),
        ``n_distinct`` (distinct confidential target values in it) and ``all_identical``
        (``n_distinct == 1``: every draw from this leaf copies a real value, unless smoothed).
        Rows are in the order of :meth:`leaf_index`. No data values are included.
        """
        self._check_fitted("donors_")
        return pd.DataFrame(
            {
                "leaf": self.leaf_node_,
                "size": self.leaf_size_,
                "n_distinct": self.leaf_distinct_,
                "all_identical": self.leaf_distinct_ == 1,
            }
        )

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """For each row, a confidential value drawn uniformly from the leaf it falls in."""
        return self.draw_from_leaves(self.leaf_index(X), rng,
                                     linear=self.linear_predictor(X))

    def draw_from_leaves(
        self, leaf: np.ndarray, rng: np.random.Generator, smooth: bool | None = None,
        linear: np.ndarray | None = None,
    ) -> np.ndarray:
        """:meth:`draw` for rows whose leaves (from :meth:`leaf_index`) are known.

        ``draw(X, rng)`` is ``draw_from_leaves(leaf_index(X), rng,
        linear=linear_predictor(X))``; as both work row by row, a caller may compute them on
        chunks of a large design (the synthesizer does) and draw once, with the same result
        and random numbers. Without ``linear`` the donors are not adjusted.
        """
        self._check_fitted("donors_")
        leaf = np.asarray(leaf, dtype=np.int64)
        rng = check_random_state(rng)
        # donor position start_l + min(floor(u * size_l), size_l - 1) (the minimum guards
        # against u * size_l rounding up to size_l), computed in place so that a large draw
        # holds at most three row-length arrays at once
        if getattr(self, "draws", "random") == "systematic":
            pick = systematic_positions(leaf, self.leaf_size_, rng)
        else:
            u = rng.random(len(leaf))
            u *= self.leaf_size_[leaf]
            pick = u.astype(np.int64)
            del u
            np.minimum(pick, self.leaf_size_[leaf] - 1, out=pick)
        pick += self.leaf_start_[leaf]
        values = self.donors_[pick]
        if self.categorical_:
            return values.astype(np.int64)  # the contract's int64 codes
        donor_fit = getattr(self, "donor_fit_", None)
        if linear is not None and donor_fit is not None:
            shift = np.asarray(linear, dtype=np.float64) - donor_fit[pick]
            scale = getattr(self, "leaf_scale_", None)
            if scale is not None:
                shift *= scale[leaf]
            values = self._adjusted(values, shift)
        del pick
        if self.smoothed_ if smooth is None else smooth:
            values = self.smooth_values(values, leaf, rng)
        return values

    def _adjusted(self, values: np.ndarray, shift: np.ndarray) -> np.ndarray:
        """Donor ``values`` moved by ``shift`` (point masses unchanged), reflected into the
        confidential range and rounded to its precision."""
        free = ~np.isin(values, self.point_masses_)
        out = values + np.where(free, shift, 0.0)
        lo, hi = self.range_
        out = np.where(out > hi, 2 * hi - out, out)
        out = np.where(out < lo, 2 * lo - out, out)
        np.clip(out, lo, hi, out=out)
        np.round(out, self.decimals_, out=out)
        return np.where(free, out, values)

    def smooth_values(
        self, values: np.ndarray, leaf: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Kernel-smooth drawn donor ``values`` of leaves ``leaf`` (see the class docstring):
        Gaussian noise with the leaf's bandwidth, point masses unchanged, reflected into the
        confidential range, rounded to the confidential precision."""
        noise = rng.standard_normal(len(leaf))
        noise *= self.bandwidth_[leaf]
        return self._adjusted(values, noise)
