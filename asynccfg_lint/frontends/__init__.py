"""Front ends: thin printers over :func:`asynccfg_lint.analysis.checker.check_source`."""
