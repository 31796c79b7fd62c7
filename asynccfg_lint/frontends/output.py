"""Output formats of ``asynccfg-lint check``: text, json, grouped, github, sarif, and ``--statistics``.

Every format prints the same :class:`~asynccfg_lint.diagnostics.Diagnostic` data; positions
are 1-based lines and 1-based character columns throughout (SARIF's ``columnKind`` says so).
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

from asynccfg_lint import __version__
from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.rules import RULES, RULES_BY_CODE

FORMATS = ("text", "json", "grouped", "github", "sarif")
#: formats ``--statistics`` can print in (as ruff: a table, or JSON)
STATISTICS_FORMATS = ("text", "json")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: where each rule's page (``docs/rules/<CODE>.md``) is published; SARIF's ``helpUri`` must be absolute
RULE_DOCS_URL = "https://github.com/asynccfg-lint/asynccfg-lint/blob/main/docs/rules/{code}.md"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

#: path -> the file's source (bytes as read, or text), for ``--show-source``
Sources = Mapping[str, "bytes | str"]
_NO_SOURCES: Sources = MappingProxyType({})


def rule_docs_url(code: str) -> str:
    """The absolute URL of the rule page of ``code``."""
    return RULE_DOCS_URL.format(code=code)


def level(code: str) -> str:
    """The severity a code is reported with: ``warning`` for the opt-in ACC2xx rules, else ``error``."""
    return "warning" if code.startswith("ACC2") else "error"


def source_lines(source: bytes | str) -> list[str]:
    """Split a file's source into physical lines as Python's tokenizer does (a form feed is no break).

    Bytes are decoded as Python decodes source (BOM, PEP 263 cookie, else UTF-8); undecodable
    bytes become U+FFFD.
    """
    if isinstance(source, bytes):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        except SyntaxError:
            encoding = "utf-8"
        try:
            text = source.decode(encoding, errors="replace")
        except LookupError:
            text = source.decode("utf-8", errors="replace")
        text = text.removeprefix("\ufeff")
    else:
        text = source
    return _LINE_BREAK.split(text)


def _source_excerpt(diagnostic: Diagnostic, sources: Sources, indent: str = "") -> list[str]:
    """The diagnostic's first line of source and a caret under its column (flake8's ``--show-source``)."""
    source = sources.get(diagnostic.path)
    if source is None:
        return []
    lines = source_lines(source)
    if not 1 <= diagnostic.line <= len(lines):
        return []
    line = lines[diagnostic.line - 1]
    # keep tabs, so the caret lines up however the terminal expands them
    padding = "".join(c if c.isspace() else " " for c in line[: diagnostic.column - 1])
    return [indent + line, indent + padding + "^"]


def render_text(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False) -> str:
    """flake8's ``path:line:col: CODE message``, each followed by its source line and a caret with ``show_source``."""
    out: list[str] = []
    for diagnostic in diagnostics:
        out.append(diagnostic.to_text())
        if show_source:
            out.extend(_source_excerpt(diagnostic, sources))
    return "".join(line + "\n" for line in out)


def render_json(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False) -> str:
    """A JSON list of :meth:`Diagnostic.to_json` objects."""
    return json.dumps([d.to_json() for d in diagnostics], indent=2) + "\n"


def render_grouped(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False) -> str:
    """ruff's ``grouped`` format: a ``path:`` header, then ``  line:col CODE message`` rows, then a blank line.

    ``diagnostics`` must be sorted by path. Line numbers are right-aligned and columns padded
    within a file, as ruff aligns them.
    """
    out: list[str] = []
    for path, group in itertools.groupby(diagnostics, key=lambda d: d.path):
        rows = list(group)
        line_width = max(len(str(d.line)) for d in rows)
        column_width = max(len(str(d.column)) for d in rows)
        out.append(f"{path}:")
        for d in rows:
            out.append(f"  {d.line:>{line_width}}:{d.column:<{column_width}} {d.code} {d.message}")
            if show_source:
                out.extend(_source_excerpt(d, sources, indent="    "))
        out.append("")
    return "".join(line + "\n" for line in out)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False) -> str:
    """GitHub Actions workflow commands, one annotation per diagnostic.

    ``::error file=PATH,line=L,col=C,endLine=EL,endColumn=EC,title=ACC101::MESSAGE``
    (``::warning`` for the opt-in ACC2xx rules), escaped as the workflow-command syntax requires.
    """
    out = []
    for d in diagnostics:
        properties = ",".join(f"{key}={_escape_property(str(value))}" for key, value in (
            ("file", d.path), ("line", d.line), ("col", d.column), ("endLine", d.end_line),
            ("endColumn", d.end_column), ("title", d.code),
        ))
        out.append(f"::{level(d.code)} {properties}::{_escape_data(d.message)}\n")
    return "".join(out)


def _artifact_location(path: str, base: str) -> dict[str, Any]:
    """A SARIF ``artifactLocation``: relative to ``%SRCROOT%`` (the current directory) when the file is inside it."""
    if path == "-":
        return {"uri": "stdin"}
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, base)
    if relative == ".." or relative.startswith(".." + os.sep) or os.path.isabs(relative):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(relative.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def sarif_log(diagnostics: Sequence[Diagnostic], base: str | None = None) -> dict[str, Any]:
    """Return a SARIF 2.1.0 log of ``diagnostics``, as GitHub code scanning accepts it.

    One run; ``tool.driver.rules`` lists every rule of :data:`~asynccfg_lint.rules.RULES` (id,
    name, short and full description, help text, ``helpUri`` to its rule page, default level);
    each result names its rule by ``ruleId`` and ``ruleIndex`` and its place as a region with
    1-based lines and 1-based code-point columns (``endColumn`` exclusive), with the file's URI
    relative to ``%SRCROOT%`` (``base``, default: the current directory). A diagnostic with a fix
    carries it as a SARIF ``fix`` (a replacement of the edited region); one whose message names
    another place (``Diagnostic.related``) lists it under ``relatedLocations``.
    """
    base = os.path.abspath(base or os.getcwd())
    index = {rule.code: number for number, rule in enumerate(RULES)}
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.failure},
            "help": {
                "text": f"{rule.summary}\n\n{rule.failure}\n\nSee {rule_docs_url(rule.code)}",
                "markdown": f"{rule.summary}\n\n{rule.failure}\n\n[{rule.code}: {rule.name}]({rule_docs_url(rule.code)})",
            },
            "helpUri": rule_docs_url(rule.code),
            "defaultConfiguration": {"level": level(rule.code), "enabled": rule.default_enabled},
        }
        for rule in RULES
    ]
    results = []
    for d in diagnostics:
        location = _artifact_location(d.path, base)
        result: dict[str, Any] = {"ruleId": d.code}
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        result |= {
            "level": level(d.code),
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": location,
                "region": _region(d.line, d.column, d.end_line, d.end_column),
            }}],
        }
        if d.related:  # where the value is written (another module) or used (a registered lowering rule)
            result["relatedLocations"] = [{
                "id": number,
                "message": {"text": "where the value is written" if role == "written"
                            else "where the registered lowering rule uses the value"},
                "physicalLocation": {"artifactLocation": _artifact_location(path, base), "region": {"startLine": line}},
            } for number, (role, path, line) in enumerate(d.related)]
        if d.fix is not None:
            result["fixes"] = [{
                "description": {"text": f"{d.fix.description} ({d.fix.safety} fix)"},
                "artifactChanges": [{
                    "artifactLocation": location,
                    "replacements": [{
                        "deletedRegion": _region(d.fix.line, d.fix.column, d.fix.end_line, d.fix.end_column),
                        "insertedContent": {"text": d.fix.replacement},
                    }],
                }],
            }]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "asynccfg-lint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": rules,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(base).as_uri().rstrip("/") + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render_sarif(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False) -> str:
    """The SARIF 2.1.0 log of :func:`sarif_log` as indented JSON."""
    return json.dumps(sarif_log(diagnostics), indent=2) + "\n"


RENDERERS: dict[str, Callable[[Sequence[Diagnostic], Sources, bool], str]] = {
    "text": render_text,
    "json": render_json,
    "grouped": render_grouped,
    "github": render_github,
    "sarif": render_sarif,
}


def render(diagnostics: Sequence[Diagnostic], output_format: str, sources: Sources = _NO_SOURCES, show_source: bool = False) -> str:
    """Render sorted ``diagnostics`` in ``output_format`` (one of :data:`FORMATS`)."""
    return RENDERERS[output_format](diagnostics, sources, show_source)


def statistics(diagnostics: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    """Count diagnostics per code: ``{"code", "name", "count", "fixable"}`` rows, most frequent first.

    ``fixable`` is true when some diagnostic of the code has a safe fix (what ``fix`` applies
    without ``--unsafe-fixes``).
    """
    counts = Counter(d.code for d in diagnostics)
    fixable = {d.code for d in diagnostics if d.fix is not None and d.fix.safety == "safe"}
    return [
        {"code": code, "name": RULES_BY_CODE[code].name if code in RULES_BY_CODE else "", "count": count,
         "fixable": code in fixable}
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def render_statistics(diagnostics: Sequence[Diagnostic], output_format: str) -> str:
    """``--statistics``: ruff's table (``count<TAB>code<TAB>[*] name``; ``[*]`` marks codes with safe fixes) or JSON.

    Raises:
        ValueError: for a format other than :data:`STATISTICS_FORMATS`.
    """
    rows = statistics(diagnostics)
    if output_format == "json":
        return json.dumps(rows, indent=2) + "\n"
    if output_format != "text":
        raise ValueError(f"--statistics cannot be printed as {output_format}; use text or json")
    if not rows:
        return ""
    count_width = max(len(str(row["count"])) for row in rows)
    code_width = max(len(row["code"]) for row in rows)
    any_fixable = any(row["fixable"] for row in rows)
    out = []
    for row in rows:
        marker = ("[*] " if row["fixable"] else "[ ] ") if any_fixable else ""
        out.append(f"{row['count']:>{count_width}}\t{row['code']:<{code_width}}\t{marker}{row['name']}\n")
    return "".join(out)
