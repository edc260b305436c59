"""The command line: help, the instance and rank commands, and clear errors."""

import argparse
import subprocess
import sys

import pytest

from pathfinding.cli import main
from pathfinding.cli.entry import build_parser


def test_module_help_runs():
    proc = subprocess.run([sys.executable, "-m", "pathfinding", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "instance" in proc.stdout and "rank" in proc.stdout


def _subcommands(parser, prefix=("pathfinding",)):
    """(command words, parser) of every subcommand below ``parser``, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from _subcommands(sub, (*prefix, name))


def test_every_subcommand_help_has_a_description():
    """`--help` of every command opens with what it does, not only its usage and options."""
    found = dict(_subcommands(build_parser()))
    assert ("pathfinding", "data", "list") in found and ("pathfinding", "hipporag", "eval") in found
    missing = [" ".join(words) for words, p in found.items() if not (p.description or "").strip()]
    assert missing == []
    text = " ".join(found[("pathfinding", "data", "list")].format_help().split())
    assert "corrupt (its checksum differs from the registry's)" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["instance", "--hops", "0"], "--hops: expected a whole number >= 1, got 0"),
        (["instance", "--seeds", "1"], "--seeds: expected a whole number >= 2, got 1"),
        (["rank", "--distractors", "-1"], "--distractors: expected a whole number >= 0, got -1"),
        (["instance", "--seed", "-3"], "--seed: expected a whole number >= 0, got -3"),
        (["instance", "--seeds", "two"], "--seeds: expected a whole number, got 'two'"),
    ],
)
def test_bad_values_are_refused_at_parse_time(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_a_value_refused_by_the_library_is_one_line(capsys):
    assert main(["instance", "--hops", "2000000"]) == 2
    err = capsys.readouterr().err
    assert err == "pathfinding instance: error: hops must be in [1, 1000000], got 2000000\n"


def test_a_file_the_command_cannot_open_is_one_line_and_status_2(monkeypatch, capsys):
    """An OSError that names a path (missing, a directory, no permission) is the user's bad path,
    not a success: one line naming the file and the reason, status 2."""

    def missing(*args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory", "corpus.json")

    monkeypatch.setattr("pathfinding.synthetic.instances.make_instance", missing)
    assert main(["instance"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "pathfinding instance: error: corpus.json: No such file or directory\n"
    assert captured.out == ""


def test_an_internal_bug_keeps_its_traceback(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("a bug, not bad input")

    monkeypatch.setattr("pathfinding.synthetic.instances.make_instance", broken)
    with pytest.raises(ValueError, match="a bug, not bad input"):
        main(["instance"])


def test_a_closed_pipe_ends_quietly():
    # 12,004 passages: far more than the pipe buffer, so the writer meets the closed pipe
    proc = subprocess.Popen(
        [sys.executable, "-m", "pathfinding", "instance", "--distractors", "3000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does after one line
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert first.startswith(b"Path-finding instance:")
    assert err == b""


def test_building_the_command_line_loads_no_numerical_library():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from pathfinding.cli import build_parser\n"
        "build_parser()\n"
        "print(sorted(m for m in ('numpy', 'scipy', 'numba', 'sklearn', 'matplotlib') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_ctrl_c_after_the_command_finished_keeps_its_status(monkeypatch):
    """The program ignores SIGINT once ``main`` has returned: a Ctrl-C while the interpreter shuts
    down (here sent from the exit itself) leaves the command's own status, not 130."""
    import os
    import signal

    from pathfinding.cli import entry

    def exit_after_a_ctrl_c(status):
        # checked first, so a regression fails this test instead of interrupting the whole run
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGINT)  # delivered before the next bytecode: ignored
        raise SystemExit(status)

    monkeypatch.setattr(entry, "main", lambda: 0)
    monkeypatch.setattr(entry.sys, "exit", exit_after_a_ctrl_c)
    before = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as stop:
            entry.console()
        assert stop.value.code == 0
    finally:
        signal.signal(signal.SIGINT, before)


def test_an_interrupt_noticed_in_compiled_code_ends_as_ctrl_c(monkeypatch, capsys):
    from pathfinding.cli import entry

    def interrupted(args):
        raise SystemError("CPUDispatcher(<function f>) returned a result with an exception set") from (
            KeyboardInterrupt()
        )

    monkeypatch.setattr(entry, "_run", interrupted)
    assert main(["instance"]) == entry.INTERRUPTED_STATUS
    assert capsys.readouterr().err == "pathfinding instance: interrupted\n"

    def bug(args):
        raise SystemError("a bug")

    monkeypatch.setattr(entry, "_run", bug)
    with pytest.raises(SystemError, match="a bug"):
        main(["instance"])
