"""The catalog: one table per library, assembled into one :class:`~asynccfg_lint.analysis.infer.model.Catalog`.

Each table module has ``ROWS`` (its rows) and ``IMPORTS`` (the statement the verification test runs
before the rows' probes). Users add rows for their own libraries in ``pyproject.toml``::

    [tool.asynccfg-lint.types]
    "mypkg.io.cache_root" = "pathlib.Path"     # calling it gives a value of that catalog type

(see :func:`extended`); the type must be one the catalog defines.
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

from asynccfg_lint.analysis.infer.catalog import attrs_, builtins_stdlib, enum_, jax_, ml_dtypes_, numpy_, omegaconf_, torch_
from asynccfg_lint.analysis.infer.model import Catalog, CatalogError, CallRow

#: the tables, by library
TABLES: dict[str, ModuleType] = {
    "builtins and stdlib": builtins_stdlib,
    "numpy": numpy_,
    "jax": jax_,
    "ml_dtypes": ml_dtypes_,
    "omegaconf": omegaconf_,
    "attrs": attrs_,
    "enum": enum_,
    "torch": torch_,
}

CATALOG = Catalog(tuple(row for table in TABLES.values() for row in table.ROWS))

#: how a user row is declared in ``sanitizers``-style settings: ``QUALNAME=TYPE``
USER_ROW_SEPARATOR = "="


def user_row(qualname: str, type_name: str) -> CallRow:
    """A row from ``[tool.asynccfg-lint.types]``: calling ``qualname`` gives a ``type_name`` value.

    Raises:
        CatalogError: ``type_name`` is not a type of the catalog.
    """
    if type_name not in CATALOG.types:
        raise CatalogError(f"{type_name!r} is not a catalog type (e.g. \"pathlib.Path\", \"jax.Device\", \"numpy.dtype\")")
    return CallRow(qualname, type_name, "declared in [tool.asynccfg-lint.types]", "")


@lru_cache(maxsize=32)
def extended(declared: frozenset[str]) -> Catalog:
    """The catalog with the user's rows: each ``QUALNAME=TYPE`` entry of ``declared`` (other entries are ignored).

    The user's row replaces a built-in row of the same qualified name.
    """
    rows = [user_row(*entry.split(USER_ROW_SEPARATOR, 1)) for entry in sorted(declared) if USER_ROW_SEPARATOR in entry]
    if not rows:
        return CATALOG
    names = {row.qualname for row in rows}
    kept = tuple(row for row in CATALOG.rows if not (isinstance(row, CallRow) and row.qualname in names))
    # (a user's row applies to any argument: the built-in rows for particular arguments give way too)
    return Catalog(kept + tuple(rows))


__all__ = ["CATALOG", "TABLES", "CatalogError", "extended", "user_row"]
