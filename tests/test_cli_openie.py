"""``pathfinding hipporag openie`` against a replayed endpoint: a run, a rerun from the cache, a killed
process resumed, a dead endpoint."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from replay_server import ReplayServer

from pathfinding.cli.openie import add_openie_command
from pathfinding.hipporag.io import load_openie
from tests.conftest import SUBSET

ROOT = Path(__file__).resolve().parents[1]


def test_cli_process_killed_then_resumed(released, tmp_path):
    """Kill the command itself (SIGKILL) mid-run; the same command then pays only for what was in flight."""
    ids = SUBSET[:40]
    corpus_path = tmp_path / "corpus.json"
    corpus_path.write_text(
        json.dumps([{"title": released["corpus"][j].title, "text": released["corpus"][j].text} for j in ids])
    )
    out = tmp_path / "openie.json"
    script = (
        "import argparse, sys\n"
        "from pathfinding.cli.openie import add_openie_command\n"
        "p = argparse.ArgumentParser()\n"
        "add_openie_command(p.add_subparsers(dest='command', required=True))\n"
        "a = p.parse_args(sys.argv[1:])\n"
        "sys.exit(a.func(a))\n"
    )
    with ReplayServer(released["raw"], delay=0.05) as srv:
        cmd = [
            sys.executable,
            "-c",
            script,
            "openie",
            str(corpus_path),
            "--base-url",
            srv.base_url,
            "--model",
            "gpt-replay",
            "-o",
            str(out),
            "--concurrency",
            "1",
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while len(srv.log) < 30 and time.time() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        n_before = len(srv.log)
        before = srv.succeeded_keys()
        assert 30 <= n_before < 2 * len(ids) and not out.exists()
        # The same command again (in this process: the import of a second interpreter costs seconds).
        assert _cli_main(cmd[3:]) == 0
        n_repeat = sum(1 for e in srv.log[n_before:] if e["key"] in before)
        # Concurrency 1: at most the one request in flight at the kill was answered but not stored.
        assert n_repeat <= 1
        assert len(srv.log) - n_before == 2 * len(ids) - len(before) + n_repeat
    docs, _ = load_openie(out)
    assert [d.triples for d in docs] == [released["docs"][j].triples for j in ids]


def _cli_main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="pathfinding hipporag")
    add_openie_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_round_trip_and_rerun(released, tmp_path, capsys, monkeypatch):
    ids = SUBSET[:12]
    corpus_path = tmp_path / "corpus.json"
    corpus_path.write_text(
        json.dumps([{"title": released["corpus"][j].title, "text": released["corpus"][j].text} for j in ids])
    )
    out = tmp_path / "openie.json.gz"
    with ReplayServer(released["raw"]) as srv:
        argv = [
            "openie",
            str(corpus_path),
            "--base-url",
            srv.base_url,
            "--model",
            "gpt-replay",
            "-o",
            str(out),
        ]
        assert _cli_main(argv) == 0
        text = capsys.readouterr().out
        assert f"{len(ids)} of {len(ids)} passages extracted" in text and f"{2 * len(ids)} sent" in text
        docs, _ = load_openie(out)
        assert [d.triples for d in docs] == [released["docs"][j].triples for j in ids]
        assert _cli_main(argv + ["--json"]) == 0
        cap = capsys.readouterr()  # with --json, stdout is the JSON object alone and the prose is on stderr
        assert "requests: 0 sent" in cap.err and f"{2 * len(ids)} answered from the cache" in cap.err
        assert json.loads(cap.out)["stats"]["cache_hits"] == 2 * len(ids)
        monkeypatch.delenv("PF_TEST_KEY", raising=False)
        assert _cli_main(argv + ["--api-key-env", "PF_TEST_KEY"]) == 2
        assert "PF_TEST_KEY is not set" in capsys.readouterr().err


def test_openie_against_a_dead_endpoint_reports_each_retry_and_ends_in_time(tmp_path, capsys):
    """``pathfinding hipporag openie`` with --timeout 0.2 --retries 1 --backoff 0.01 against a server
    that never answers: one retry line on stderr, the passage reported as failed (status 1), and the
    run ends within the bound of its flags."""
    from scripted_server import SilentServer

    from pathfinding.cli import main

    (tmp_path / "c.json").write_text(json.dumps([{"title": "Ed Wood", "text": "Ed Wood directed Plan 9."}]))
    with SilentServer() as srv:
        argv = ["hipporag", "openie", str(tmp_path / "c.json"), "--base-url", srv.base_url, "--model", "m"]
        argv += ["-o", str(tmp_path / "o.json"), "--timeout", "0.2", "--retries", "1", "--backoff", "0.01"]
        t0 = time.monotonic()
        code = main(argv)
        elapsed = time.monotonic() - t0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("chat: ")]
    assert code == 1 and len(lines) == 1, err
    assert lines[0].startswith("chat: attempt 1/2 failed (no answer within 0.2 s); retrying in 0.0")
    assert 0.4 <= elapsed <= 0.4 + 0.02 + 5.0  # two timeouts and one wait; 5 s for the rest


def test_an_endpoint_answering_nonsense_fails_the_command_in_one_last_line_and_is_asked_again(
    tmp_path, capsys
):
    """Status 200 with nonsense for every request: no triple, status 1, the last line counts the
    passages and says the answers were not kept; the rerun sends every request again. A readable
    answer with no triple is unusable too: more than --max-unusable of them fails the command."""
    from scripted_server import ScriptedServer

    from pathfinding.cli import main
    from tests.test_llm import _completion

    docs = [{"title": "Ed Wood", "text": "Ed Wood directed Plan 9."}, {"title": "Bela", "text": "He acted."}]
    (tmp_path / "c.json").write_text(json.dumps(docs))
    reply = {"content": "Sorry, I cannot help with that."}
    with ScriptedServer(lambda n, p, h, b: (200, _completion(reply["content"]), [])) as srv:
        argv = ["hipporag", "openie", str(tmp_path / "c.json"), "--base-url", srv.base_url, "--model", "m"]
        argv += ["-o", str(tmp_path / "o.json")]
        assert main(argv) == 1
        err = capsys.readouterr().err.splitlines()
        assert err[-1] == (
            "pathfinding hipporag openie: error: nothing usable from 2 of 2 passages (100%, more than the "
            "10% allowed): 2 with an unreadable answer (never cached: the rerun asks again)"
        )
        assert len(srv.log) == 2  # each passage's first answer was unreadable: no triple request
        assert main(argv) == 1 and len(srv.log) == 4  # asked again, not read from the cache
        capsys.readouterr()
        reply["content"] = '{"named_entities": ["Ed Wood"], "triples": []}'  # readable, no triple
        assert main(argv) == 1 and len(srv.log) == 8
        assert capsys.readouterr().err.splitlines()[-1].endswith("2 with no triple in a readable answer")
        assert main([*argv, "--max-unusable", "1"]) == 0 and len(srv.log) == 8  # now from the cache
        assert capsys.readouterr().err.splitlines()[-1] == (
            "pathfinding hipporag openie: nothing usable from 2 of 2 passages (100%, within the 100% "
            "allowed): 2 with no triple in a readable answer"
        )
