"""docs/cli.md is the CLI's own `--help` of every subcommand, regenerated, never hand-edited."""
import re

from cli_shared import REPO


def test_docs_cli_md_is_generated_from_the_option_definitions(run):
    p = run("--cli-reference")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (REPO / "docs" / "cli.md").read_text(encoding="utf-8"), \
        "docs/cli.md is stale: regenerate with `ragmeter --cli-reference > docs/cli.md`"


def test_every_subcommand_has_its_help_verbatim(run):
    reference = run("--cli-reference").stdout
    listed = re.findall(r"^## ragmeter (\w+)$", reference, re.M)
    top = run("--help").stdout
    subcommands = re.findall(r"^  (\w+) {2,}", top.split("Subcommands:")[1], re.M)
    assert listed == subcommands and len(listed) >= 8
    for name in listed:
        help_text = run(name, "--help").stdout
        assert f"## ragmeter {name}\n\n```text\n{help_text}```\n" in reference, name
