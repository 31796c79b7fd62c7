"""fixing stage of asynccfg_lint (see docs/design.md)."""
