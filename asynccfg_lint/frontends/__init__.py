"""Front ends: thin printers over :func:`asynccfg_lint.checker.check_source`."""
