#!/usr/bin/env python3
"""Checks what README.md and docs/*.md quote from the build against the build, so that the docs
cannot drift from it (ctest `tools.docs_check`, label unit; needs no GPU).

    tools/docs-check.py BUILD_DIR/tools/gemmtune [SOURCE_DIR]

- Quoted output: a fenced block right after the line `<!-- docs-check: output -->` starts with
  `$ gemmtune ...`; the command is run (with a scratch database path) and its output must be the
  rest of the block, line for line.
- Options: every `--option` after `gemmtune <command>` in inline code or a code block, and every
  option in the first column of docs/sweep.md's tables, is one that the command's --help lists;
  every option `sweep --help` lists is in docs/sweep.md. Old spellings (still parsed, hidden from
  --help) count as wrong, so the docs use the current ones.
- Exit statuses: docs/cli.md's table lists the statuses of tools/cli/commands.hpp; a status quoted
  in the docs as "N no GPU", "N interrupted" or "N bad command line" is the right one; without a
  GPU, `sweep` exits with the no-GPU status.
- Sizes: a preset's number of shapes where the docs give it ("the 15-problem suite", "`users`
  (34 shapes", "the quick preset: 4 shapes", ...) is its table's in tuner/src/problems.cpp; the
  shard split docs/cluster.md quotes is what a dry run prints.
- Defaults and versions: an option's default that the docs state ("`--hang-timeout` seconds
  (default 10)") is the one its --help shows; the CMake and CUDA Toolkit versions README.md
  requires are the ones CMakeLists.txt asks for; the fuzzing time a target the docs give is
  tools/fuzz.sh's.
- Replay: docs/sweep.md's table of strategies replayed on the recorded H200 sweep is what `gemmtune
  db replay` gives on the fixture the build unpacked (build/tests/fixtures/h200-exhaustive.db).
- Python: every option of `gemmtune.configure()` and every value its precision and db_access
  accept appear in docs/python.md's example of it.
Prints one line per problem (file:line: what is wrong) and exits 1 if there is any.
"""

import ast
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
MARKER = "<!-- docs-check: output -->"

problems = []


def problem(where, message):
    problems.append(f"{where}: {message}")


def run(cli, args, env_extra=None, cwd=None):
    env = dict(os.environ)
    env.pop("GEMMTUNE_DB", None)
    env.update(env_extra or {})
    return subprocess.run([os.path.abspath(cli), *args], capture_output=True, text=True, env=env, timeout=600,
                          cwd=cwd)


class Cli:
    """The command line's subcommands and the options of each, read from --help."""

    def __init__(self, path):
        self.path = path
        self.options = {}  # ("db", "best") -> {"--db", ...}
        self._read(())

    def _read(self, words):
        text = run(self.path, [*words, "--help"]).stdout
        section, subcommands, options = None, [], set()
        for line in text.splitlines():
            if not line.strip():
                section = None
            elif re.match(r"^[A-Z][a-z]+:", line):
                section = line.split(":")[0]
            elif section == "Options" and line.startswith("  "):
                names = re.match(r"^\s+(\S.*?)(?:\s{2,}|$)", line).group(1)  # before the description
                options.update(OPTION.findall(names))
            elif section == "Subcommands" and line.startswith("  "):
                subcommands.append(line.split()[0])
        self.options[words] = options
        for sub in subcommands:
            self._read((*words, sub))

    def command_of(self, words):
        """The longest known command that `words` start with, and the words after it."""
        command = ()
        for word in words:
            if (*command, word) in self.options:
                command = (*command, word)
            else:
                break
        return command, words[len(command):]


def check_command_line(cli, where, text):
    """`text` is a gemmtune command line as the docs show it (possibly with [--a|--b] and ...)."""
    text = re.split(r"\s(?:\||&&|;|#|>)\s", text)[0]
    words = text.replace("[", " ").replace("]", " ").replace("\\|", " ").replace("|", " ").split()
    if not words or words[0] != "gemmtune":
        return
    command, rest = cli.command_of(words[1:])
    if not command:
        return
    known = cli.options[command]
    for option in OPTION.findall(" ".join(rest)):
        if option not in known:
            problem(where, f"`gemmtune {' '.join(command)}` has no {option} "
                           f"(its --help lists {', '.join(sorted(known))})")


def code_spans(line):
    return re.findall(r"`([^`]+)`", line)


def check_doc(cli, path, root):
    lines = path.read_text().splitlines()
    rel = path.relative_to(root)
    in_block, block_start, block, checked_output = False, 0, [], False
    for number, line in enumerate(lines, 1):
        where = f"{rel}:{number}"
        if line.startswith("```"):
            if in_block:
                if checked_output:
                    check_output(cli, f"{rel}:{block_start}", block)
                in_block, checked_output = False, False
            else:
                in_block, block_start, block = True, number, []
                checked_output = number > 1 and lines[number - 2].strip() == MARKER
            continue
        if in_block:
            block.append(line)
            command = line[2:] if line.startswith("$ ") else line
            if command.startswith("gemmtune ") and not checked_output:
                check_command_line(cli, where, command.split("  #")[0])
            elif checked_output and line.startswith("$ gemmtune "):
                check_command_line(cli, where, line[2:])
            continue
        for span in code_spans(line):
            if span.startswith("gemmtune "):
                check_command_line(cli, where, span)


def check_output(cli, where, block):
    if not block or not block[0].startswith("$ gemmtune "):
        problem(where, f"a block after {MARKER} must start with `$ gemmtune ...`")
        return
    args = shlex.split(block[0][len("$ gemmtune "):])
    # In a scratch folder (the relative paths the docs name), with no GPU visible: a dry run plans
    # for --arch and --sms only without one.
    with tempfile.TemporaryDirectory() as scratch:
        env = {"XDG_CACHE_HOME": scratch, "HOME": scratch, "CUDA_VISIBLE_DEVICES": ""}
        result = run(cli.path, args, env, cwd=scratch)
    got = [l.rstrip() for l in result.stdout.splitlines()]
    want = [l.rstrip() for l in block[1:]]
    if result.returncode != 0:
        problem(where, f"`{block[0][2:]}` exited {result.returncode}: {result.stderr.strip()}")
    elif got != want:
        diff = next(i for i in range(max(len(got), len(want)))
                    if i >= len(got) or i >= len(want) or got[i] != want[i])
        problem(where, f"`{block[0][2:]}` prints, at line {diff + 1} of its output:\n    "
                       f"{got[diff] if diff < len(got) else '(nothing)'}\n  the docs say:\n    "
                       f"{want[diff] if diff < len(want) else '(nothing)'}")


def check_sweep_options(cli, root):
    path = root / "docs/sweep.md"
    text = path.read_text()
    known = cli.options[("sweep",)]
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("| `--"):
            for option in OPTION.findall(line.split("|")[1]):
                if option not in known:
                    problem(f"docs/sweep.md:{number}", f"`gemmtune sweep` has no {option}")
    documented = set(OPTION.findall(text))
    for option in sorted(known - documented - {"--help"}):
        problem("docs/sweep.md", f"`gemmtune sweep --help` lists {option}, which this page never mentions")


def check_exit_statuses(cli, root):
    constants = dict(re.findall(r"inline constexpr int (kExit\w+) =\s*(\d+);", (root / "tools/cli/commands.hpp").read_text()))
    statuses = sorted(int(v) for v in constants.values())
    cli_md = (root / "docs/cli.md").read_text().splitlines()
    table = sorted(int(m.group(1)) for line in cli_md if (m := re.match(r"^\| (\d+) \|", line)))
    if table != statuses:
        problem("docs/cli.md", f"the exit status table lists {table}; tools/cli/commands.hpp has {statuses}")
    meanings = [(r"(\d+)\s+(?:no CUDA device|no GPU)", "kExitNoGpu"),
                (r"(\d+)\s+interrupted", "kExitInterrupted"),
                (r"(\d+)\s+(?:bad command line|usage)", "kExitUsage")]
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        if path.name == "PERFORMANCE.md":
            continue  # a dated log: it quotes what was true when written
        number = 1
        for paragraph in path.read_text().split("\n\n"):
            text = " ".join(paragraph.split())
            for pattern, name in meanings:
                for m in re.finditer(r"(?:[Ee]xit|status)[^|]{0,160}?\b" + pattern, text):
                    if m.group(1) != constants[name]:
                        problem(f"{path.relative_to(root)}:{number}",
                                f"says {m.group(1)} where the status is {constants[name]} ({name})")
            number += paragraph.count("\n") + 2
    info = run(cli.path, ["info"]).stdout
    if "no CUDA device" in info:  # on a GPU machine this would tune: checked only without one
        with tempfile.TemporaryDirectory() as scratch:
            status = run(cli.path, ["sweep", "--shape", "8x8x8", "--db", f"{scratch}/t.db"]).returncode
        if str(status) != constants["kExitNoGpu"]:
            problem("gemmtune sweep", f"exits {status} without a GPU; kExitNoGpu is {constants['kExitNoGpu']}")


NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12}


def as_number(text):
    return NUMBER_WORDS.get(text.lower(), int(text) if text.isdigit() else None)


def scratch_run(cli, args):
    """`gemmtune ARGS` in a scratch folder with no GPU visible (as check_output runs them)."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {"XDG_CACHE_HOME": scratch, "HOME": scratch, "CUDA_VISIBLE_DEVICES": ""}
        return run(cli.path, [*args, "--db", f"{scratch}/t.db"], env, cwd=scratch)


def docs_paragraphs(root):
    """(file, first line number, the paragraph on one line) of README.md and docs/*.md but the log."""
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        if path.name == "PERFORMANCE.md":
            continue
        number = 1
        for paragraph in path.read_text().split("\n\n"):
            yield path.relative_to(root), number, " ".join(paragraph.split())
            number += paragraph.count("\n") + 2


def preset_sizes(root):
    """{preset: its number of shapes}, counted in the preset table of tuner/src/problems.cpp (a
    dry run plans fewer problems where shapes share the form the dispatcher runs them in)."""
    source = (root / "tuner/src/problems.cpp").read_text()
    table = source[source.index("presets() {"):source.index("preset_names()")]
    parts = re.split(r'\{"(\w+)",', table)
    return {name: len(re.findall(r"\{\d+, \d+, \d+", body)) for name, body in zip(parts[1::2], parts[2::2])}


def check_preset_sizes(root):
    sizes = preset_sizes(root)
    tune = re.search(r"--tune\).*?--preset (\w+)", (root / "tools/setup.sh").read_text(), re.S)
    N = r"(\d+|[a-z]+)"
    patterns = [(r"the " + N + r"[- ]problem suite\b", "suite"),
                (r"the " + N + r" problems of the suite preset", "suite"),
                (N + r" shapes as users meet them \(`users` preset\)", "users"),
                (r"the (\w+) preset: " + N + r" shapes", None),
                (r"`(\w+)` \([^()`]{0,40}?\b" + N + r" shapes", None)]
    if tune:
        patterns.append((r"setup\.sh --tune[^|]*?tunes " + N + r" shapes", tune.group(1)))
    for rel, number, text in docs_paragraphs(root):
        for pattern, preset in patterns:
            for m in re.finditer(pattern, text):
                name = preset or m.group(1)
                count = as_number(m.group(m.lastindex))
                if count is not None and name in sizes and sizes[name] != count:
                    problem(f"{rel}:{number}", f"says the {name} preset has {count} shapes; "
                                               f"tuner/src/problems.cpp gives it {sizes[name]}")


def check_cluster_shards(cli, root):
    path = root / "docs/cluster.md"
    text = " ".join(path.read_text().split())
    quoted = re.search(r"`(shard 1/(\d+): [^`]+)`; the other two tasks get (\d+) problems \((\d+) s\) and "
                       r"(\d+) \((\d+) s\)", text)
    if not quoted:
        problem("docs/cluster.md", "no quoted `shard 1/3: ...` line to check")
        return
    tasks = int(quoted.group(2))
    lines = []
    for task in range(tasks):  # tasks count from 0: the one quoted is 1, the other two 0 and 2
        out = scratch_run(cli, ["sweep", "--dry-run", "--preset", "suite", "--shard", f"{task}/{tasks}"])
        lines.append(next((l for l in out.stdout.splitlines() if l.startswith("shard ")), "(nothing)"))
    if lines[1] != quoted.group(1):
        problem("docs/cluster.md", f"quotes `{quoted.group(1)}`; the dry run prints `{lines[1]}`")
    others = [re.search(r": (\d+) of \d+ problems, an estimated (\d+) of", l) for l in (lines[0], lines[2])]
    said = [(quoted.group(3), quoted.group(4)), (quoted.group(5), quoted.group(6))]
    if [m.groups() if m else None for m in others] != said:
        problem("docs/cluster.md", f"says the other tasks get {said} (problems, s); the dry run prints "
                                   f"{lines[0]!r} and {lines[2]!r}")


def help_default(cli, words, option):
    """The default --help shows for `option` of `gemmtune WORDS`, or None."""
    for line in run(cli.path, [*words, "--help"]).stdout.splitlines():
        names = re.match(r"^\s+(\S.*?)(?:\s{2,}|$)", line)
        if names and option in OPTION.findall(names.group(1)):  # "--sms INT:INT in [1 - 1024]=132"
            m = re.search(r"=([^\s=]+)$", names.group(1))
            return m.group(1) if m else None
    return None


def check_defaults_and_versions(cli, root):
    stated = [("docs/sweep.md", r"`--hang-timeout` seconds \(default (\w+)\)", ("sweep",), "--hang-timeout"),
              ("docs/sweep.md", r"--first-round N`.*?default (\w+)\)", ("db", "replay"), "--first-round"),
              ("docs/cli.md", r"configurations \((\d+) of them unless `--max`\)", ("space",), "--max"),
              ("docs/cluster.md", r"`--sms` \(default `(\w+)`, (\d+) SMs\)", ("sweep",), ("--arch", "--sms"))]
    for rel, pattern, words, options in stated:
        text = " ".join((root / rel).read_text().split())
        m = re.search(pattern, text)
        if not m:
            problem(rel, f"the default of `gemmtune {' '.join(words)} {options}` is no longer stated as expected")
            continue
        for value, option in zip(m.groups(), options if isinstance(options, tuple) else (options,)):
            got = help_default(cli, words, option)
            if got != value:
                problem(rel, f"says `gemmtune {' '.join(words)} {option}` defaults to {value}; --help shows {got}")
    cmake = (root / "CMakeLists.txt").read_text()
    readme = " ".join((root / "README.md").read_text().split())
    wanted = {"CMake": re.search(r"cmake_minimum_required\(VERSION ([\d.]+)\)", cmake).group(1),
              "CUDA Toolkit": re.search(r"find_package\(CUDAToolkit ([\d.]+)", cmake).group(1)}
    for name, version in wanted.items():
        for m in re.finditer(re.escape(name) + r" \(?(\d+(?:\.\d+)*)", readme):
            if m.group(1) != version:
                problem("README.md", f"requires {name} {m.group(1)}; CMakeLists.txt asks for {version}")
    fuzz = re.search(r"FUZZ_SECONDS:-(\d+)", (root / "tools/fuzz.sh").read_text()).group(1)
    for rel, number, text in docs_paragraphs(root):
        for m in re.finditer(r"\b(\d+) s (?:a|per) target", text):
            if m.group(1) != fuzz:
                problem(f"{rel}:{number}", f"says {m.group(1)} s a fuzz target; tools/fuzz.sh runs {fuzz}")


def check_replay_table(cli, root):
    """docs/sweep.md's table of strategies replayed on the recorded H200 sweep: each row is what
    `gemmtune db replay` prints on the fixture this build unpacked (skipped without it)."""
    fixture = Path(cli.path).resolve().parent.parent / "tests/fixtures/h200-exhaustive.db"
    if not fixture.is_file():
        print(f"docs-check: {fixture} missing: docs/sweep.md's replay table not checked")
        return
    rows = {"model": [], "model, uncalibrated": ["--uncalibrated"], "halving": ["--strategy", "halving"]}
    lines = (root / "docs/sweep.md").read_text().splitlines()
    for name, args in rows.items():
        number, row = next(((i, l) for i, l in enumerate(lines, 1) if l.startswith(f"| {name} |")), (0, None))
        if row is None:
            problem("docs/sweep.md", f"no replay table row for {name}")
            continue
        said = [c.strip().replace(",", "") for c in row.strip("|").split("|")[1:]]
        out = run(cli.path, ["db", "replay", "--db", str(fixture), *args]).stdout.splitlines()
        m = re.search(r"(\d+) measurements .*?, ([\d.]+) s simulated, worst ratio ([\d.]+), mean model rho ([\d.-]+)",
                      out[-1] if out else "")
        if not m:
            problem(f"docs/sweep.md:{number}", f"`gemmtune db replay {' '.join(args)}` printed no summary")
            continue
        got = [m.group(1), float(m.group(2)), m.group(3), m.group(4)]
        wrong = (said[0] != got[0] or abs(float(said[1]) - got[1]) > 0.5 or said[2] != got[2] or
                 (said[3] != "-" and said[3] != got[3]))
        if wrong:
            problem(f"docs/sweep.md:{number}", f"the {name} row says {said}; the replay gives "
                                               f"{got[0]} measurements, {got[1]} s, worst {got[2]}, rho {got[3]}")


def check_python_configure(root):
    package = root / "python/gemmtune"
    modules = {path.name: ast.parse(path.read_text()) for path in sorted(package.glob("*.py"))}

    def allowed_values(parameter):  # PRECISIONS for precision, DB_ACCESS for db_access, ...
        names = {parameter.upper(), parameter.upper() + "S"}
        for tree in modules.values():
            for node in tree.body:
                if isinstance(node, ast.Assign) and any(getattr(t, "id", None) in names for t in node.targets):
                    return list(ast.literal_eval(node.value))
        return []

    configure = next(n for n in ast.walk(modules["runtime.py"]) if isinstance(n, ast.FunctionDef)
                     and n.name == "configure")
    parameters = [a.arg for a in configure.args.kwonlyargs]
    doc = (root / "docs/python.md").read_text().splitlines()
    start = next((i for i, l in enumerate(doc) if l.startswith("gemmtune.configure(")), None)
    if start is None:
        problem("docs/python.md", "no example of gemmtune.configure(...)")
        return
    example = [doc[start]]
    for line in doc[start + 1:]:
        if not line.lstrip().startswith("#"):
            break
        example.append(line)
    text = "\n".join(example)
    where = f"docs/python.md:{start + 1}"
    for name in parameters:
        if f"{name}=" not in text:
            problem(where, f"configure()'s option {name} is missing from its example")
        for value in allowed_values(name):
            if f'"{value}"' not in text:
                problem(where, f'configure({name}="{value}") is missing from its example')


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n\n")[1])
    cli = Cli(sys.argv[1])
    root = Path(sys.argv[2] if len(sys.argv) == 3 else Path(__file__).resolve().parent.parent)
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        if path.name != "PERFORMANCE.md":
            check_doc(cli, path, root)
    check_sweep_options(cli, root)
    check_exit_statuses(cli, root)
    check_preset_sizes(root)
    check_cluster_shards(cli, root)
    check_defaults_and_versions(cli, root)
    check_replay_table(cli, root)
    check_python_configure(root)
    for line in problems:
        print(line)
    if problems:
        print(f"docs-check: {len(problems)} problems")
        sys.exit(1)
    print("docs-check: README.md and docs/ agree with the build")


if __name__ == "__main__":
    main()
