"""asynccfg_lint: find config values that JAX's async collectives cannot serialize, before the code runs."""

__version__ = "0.1.0"
