"""Small real and simulated data sets shipped with synthguard.

=================  =====================================================================
name               what
=================  =====================================================================
``penguins``       Palmer penguins (Horst, Hill & Gorman 2020; data CC0), 344 rows, 8
                   columns, with its missing values: species, island, bill_length_mm,
                   bill_depth_mm, flipper_length_mm, body_mass_g, sex, year.
``ce``             Consumer Expenditure Surveys, 2019 Q1 sample of J. Hu's data
                   confidentiality course, n = 5133 (BLS public-use microdata, US public
                   domain). Columns named as the course does: UrbanRural (1 urban, 2 rural;
                   categorical), Income, Race (1 White, 2 Black, 3 Native American, 4 Asian,
                   5 Pacific Islander, 6 Multi-race; categorical), Expenditure, KidsCount.
``nb_mixture``     The simulation of Hu, Savitsky & Williams, section 2.4.1: n = 1000 counts
                   y ~ 0.7 NB(mean 100, phi 20) + 0.3 NB(mean 100, phi 5), where NB(mu, phi)
                   has variance mu + mu^2/phi. Generated from ``random_state``.
``small_businesses`` The DP chapter's simulation (Urban Institute course, exercise 3): small
                   businesses in Texas (100,010) and Vermont (403): state, employees ~
                   Poisson(10) capped at 20, income ~ lognormal(10, 2). Generated from
                   ``random_state`` (numpy, so values differ from the course's R draws).
=================  =====================================================================
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from synthguard._random import RandomState, check_random_state
from synthguard.errors import ParameterError

__all__ = ["DATASETS", "list_datasets", "load_dataset"]

DATASETS: dict[str, dict[str, str]] = {
    "penguins": {
        "description": "Palmer penguins: species, island, bill, flipper, body mass, sex, year",
        "source": "palmerpenguins 0.1.6 (Horst, Hill & Gorman 2020)",
        "licence": "CC0",
    },
    "ce": {
        "description": "Consumer Expenditure 2019 Q1 sample: UrbanRural, Income, Race, Expenditure, KidsCount",
        "source": "BLS CE public-use microdata, sample of J. Hu's course",
        "licence": "US public domain",
    },
    "nb_mixture": {
        "description": "simulated counts: 0.7 NB(100, phi 20) + 0.3 NB(100, phi 5), n = 1000",
        "source": "Hu, Savitsky & Williams, section 2.4.1",
        "licence": "simulated",
    },
    "small_businesses": {
        "description": "simulated small businesses in Texas and Vermont: state, employees, income",
        "source": "Urban Institute data privacy course, DP chapter exercise 3",
        "licence": "simulated",
    },
}

_NB_MIXTURE_SEED = 20220301
_SMALL_BUSINESSES_SEED = 20220509


def _read_bundled(filename: str) -> pd.DataFrame:
    ref = resources.files("synthguard.data").joinpath("_files", filename)
    with resources.as_file(ref) as path:
        return pd.read_csv(path)


def _penguins() -> pd.DataFrame:
    return _read_bundled("penguins.csv")


def _ce() -> pd.DataFrame:
    df = _read_bundled("ce.csv")
    df["UrbanRural"] = pd.Categorical(df["UrbanRural"], categories=[1, 2])
    df["Race"] = pd.Categorical(df["Race"], categories=[1, 2, 3, 4, 5, 6])
    df["Income"] = df["Income"].astype(float)
    return df


def _nb(rng: np.random.Generator, mu: float, phi: float, size: int) -> np.ndarray:
    # NB with mean mu and overdispersion phi: numpy's (n, p) with n = phi, p = phi / (phi + mu)
    return rng.negative_binomial(phi, phi / (phi + mu), size=size)


def _nb_mixture(rng: np.random.Generator, n: int = 1000) -> pd.DataFrame:
    comp = rng.random(n) < 0.7
    y = np.where(comp, _nb(rng, 100.0, 20.0, n), _nb(rng, 100.0, 5.0, n))
    return pd.DataFrame({"y": y.astype(np.int64)})


def _small_businesses(rng: np.random.Generator) -> pd.DataFrame:
    parts = []
    for state, n in (("Texas", 100_010), ("Vermont", 403)):
        parts.append(
            pd.DataFrame(
                {
                    "state": state,
                    "employees": np.minimum(rng.poisson(10, size=n), 20).astype(np.int64),
                    "income": rng.lognormal(mean=10.0, sigma=2.0, size=n),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def load_dataset(name: str, *, random_state: RandomState = None) -> pd.DataFrame:
    """Load a bundled data set by name (see the module docstring for sources and licences).

    Parameters
    ----------
    name : one of :func:`list_datasets`'s names.
    random_state : for the simulated data sets only; ``None`` uses the data set's documented
        default seed (20220301 for ``nb_mixture``, 20220509 for ``small_businesses``), so the
        bundled data are the same everywhere.

    Examples
    --------
    >>> df = load_dataset("penguins")
    >>> df.shape
    (344, 8)
    """
    if name == "penguins":
        return _penguins()
    if name == "ce":
        return _ce()
    if name == "nb_mixture":
        seed = _NB_MIXTURE_SEED if random_state is None else random_state
        return _nb_mixture(check_random_state(seed))
    if name == "small_businesses":
        seed = _SMALL_BUSINESSES_SEED if random_state is None else random_state
        return _small_businesses(check_random_state(seed))
    raise ParameterError(
        f"unknown data set '{name}'; available: {', '.join(DATASETS)}"
    )


def list_datasets() -> pd.DataFrame:
    """The bundled data sets: name, description, source, licence."""
    return pd.DataFrame.from_dict(DATASETS, orient="index").rename_axis("name")
