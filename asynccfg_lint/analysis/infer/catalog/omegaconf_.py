"""omegaconf (measured with omegaconf 2.3): ``OmegaConf.create``/``load`` give a ``DictConfig`` or a
``ListConfig``, neither a dict nor a list subclass, so JAX's default hook rejects both;
``OmegaConf.to_container`` gives plain dicts and lists, but of whatever the config holds (Enum
members and paths too), so it has no row: its result stays unknown.
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import CallRow, TypeRow

IMPORTS = "import io, omegaconf; from omegaconf import OmegaConf, DictConfig, ListConfig"

_REMEDY = "use OmegaConf.to_container(x, resolve=True)"

ROWS = (
    TypeRow("omegaconf.DictConfig", T.rejected("omegaconf.DictConfig", _REMEDY), "omegaconf.dictconfig.DictConfig",
            "OmegaConf.create({'a': 1})", "a DictConfig is not a dict: the default hook rejects it",
            annotation=("omegaconf.DictConfig", "omegaconf.dictconfig.DictConfig")),
    TypeRow("omegaconf.ListConfig", T.rejected("omegaconf.ListConfig", _REMEDY), "omegaconf.listconfig.ListConfig",
            "OmegaConf.create([1])", "a ListConfig is not a list: the default hook rejects it",
            annotation=("omegaconf.ListConfig", "omegaconf.listconfig.ListConfig")),
    CallRow("omegaconf.OmegaConf.create", "omegaconf.DictConfig|omegaconf.ListConfig",
            "OmegaConf.create(...) is a DictConfig (a mapping) or a ListConfig (a sequence)", "OmegaConf.create({'a': 1})"),
    CallRow("omegaconf.OmegaConf.load", "omegaconf.DictConfig|omegaconf.ListConfig",
            "OmegaConf.load(file) is a DictConfig or a ListConfig", "OmegaConf.load(io.StringIO('a: 1'))"),
    CallRow("omegaconf.OmegaConf.merge", "omegaconf.DictConfig|omegaconf.ListConfig",
            "OmegaConf.merge(...) is a DictConfig or a ListConfig", "OmegaConf.merge({'a': 1}, {'b': 2})"),
    CallRow("omegaconf.OmegaConf.to_yaml", "builtins.str", "OmegaConf.to_yaml(cfg) is a str",
            "OmegaConf.to_yaml(OmegaConf.create({'a': 1}))"),
)
