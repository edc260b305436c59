"""`pathfinding hipporag ...`: index -> query -> add -> delete -> query, errors, and a pipe into head."""

import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from pathfinding.cli import main
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.persistence import load_index, save_index
from pathfinding.hipporag.io import load_openie, vendored
from tests.test_hipporag_maintenance import assert_same_index

QUESTION = "Who founded the Journal of Psychotherapy Integration?"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    corpus = json.loads(gzip.decompress(vendored("corpus").read_bytes()))
    openie = json.loads(gzip.decompress(vendored("openie").read_bytes()))
    (d / "c1.json").write_text(json.dumps(corpus[:30]))
    (d / "c2.json").write_text(json.dumps(corpus[30:36]))
    (d / "openie.json").write_text(json.dumps({"docs": openie["docs"][:36]}))
    return d


def _run(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_round_trip(files, capsys):
    idx, oie = str(files / "i.hippo"), str(files / "openie.json")
    code, out, err = _run(capsys, ["hipporag", "index", str(files / "c1.json"), "--openie", oie, "-o", idx])
    assert code == 0 and "30 passages" in out and f"wrote {idx}" in out
    assert "6 records of" in err and "were not used" in err  # extra OpenIE records are reported

    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION, "-k", "3", "--json"])
    first = json.loads(out)
    assert code == 0 and len(first["passages"]) == 3 and not first["fell_back"]
    assert first["links"][0]["phrase"] == "journal of psychotherapy integration"
    assert first["passages"][0]["text"].startswith("Journal of Psychotherapy Integration\n")
    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION, "-k", "3"])
    assert "-> node" in out and out.count("\n  1. [") + out.count("\n  2. [") == 2
    # lower-cased, the question is read through the corpus: the same name, from the corpus
    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION.lower(), "-k", "3", "--json"])
    lower = json.loads(out)
    assert lower["reading"]["read_as"] == "who founded the Journal of Psychotherapy Integration?"
    assert lower["reading"]["writer_capitals_count"] is False and lower["walk_weight"] == 0.85
    (change,) = lower["reading"]["changes"]
    assert change["typed"] == "journal of psychotherapy integration" and change["origin"] == "corpus"
    (entity,) = lower["reading"]["entities"]
    assert entity["entity"] == "Journal of Psychotherapy Integration" and entity["origin"] == "corpus"
    assert entity["why"].startswith("the corpus writes 'Journal of Psychotherapy Integration' as a name")
    assert [p["id"] for p in lower["passages"]][:1] == [p["id"] for p in first["passages"]][:1]
    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION.upper(), "-k", "3"])
    assert "read as:  who founded the Journal of Psychotherapy Integration?" in out

    code, out, _ = _run(
        capsys, ["hipporag", "add", idx, "--corpus", str(files / "c2.json"), "--openie", oie, "--json"]
    )
    res = json.loads(out)
    assert code == 0 and res["added_ids"] == list(range(30, 36)) and res["stats"]["n_passages"] == 36

    top = first["passages"][0]["id"]
    code, out, _ = _run(capsys, ["hipporag", "delete", idx, "0", str(top), "--json"])
    res = json.loads(out)
    assert code == 0 and res["stats"]["n_passages"] == 34 and res["old_to_new"][top] == -1

    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION, "-k", "3", "--json"])
    after = json.loads(out)
    moved = res["old_to_new"]
    assert [p["text"] for p in after["passages"]][:1] != [first["passages"][0]["text"]]
    for p in first["passages"][1:]:  # survivors that were ranked are found under their new ids
        assert moved[p["id"]] >= 0

    # The file after index + add + delete equals a fresh build over the same passages with the
    # encoder the first `index` fitted (updates keep it).
    corpus = json.loads((files / "c1.json").read_text()) + json.loads((files / "c2.json").read_text())
    keep = [j for j in range(36) if j not in (0, top)]
    parsed, _ = load_openie(oie)
    assert [d.title for d in parsed] == [c["title"] for c in corpus]
    updated = load_index(idx)
    fresh = build_index(
        [parsed[j].triples for j in keep],
        passages=[corpus[j]["title"] + "\n" + corpus[j]["text"] for j in keep],
        encoder=updated.encoder,
        fit_encoder=False,
    )
    assert_same_index(updated, fresh)


def test_errors_are_one_line(files, capsys):
    code, _, err = _run(capsys, ["hipporag", "index", str(files / "c1.json"), "-o", str(files / "x.hippo")])
    assert code == 2 and "error: no triples for the corpus: pass --openie FILE" in err
    bad = files / "bad.hippo"
    bad.write_bytes(b"PFHIPIDX" + b"\0" * 40)
    code, _, err = _run(capsys, ["hipporag", "query", str(bad), QUESTION])
    assert code == 2 and "bad.hippo: index format version 0" in err
    good = files / "good.hippo"
    save_index(build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["x"]), good)
    raw = bytearray(good.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    bad.write_bytes(bytes(raw))
    code, _, err = _run(capsys, ["hipporag", "query", str(bad), QUESTION])
    assert code == 2 and "checksum mismatch: the file is corrupted" in err and "Traceback" not in err
    code, _, err = _run(capsys, ["hipporag", "delete", str(good), "5"])
    assert code == 2 and "passage id 5 is out of range: the index has 1 passages" in err


def test_pipe_into_head_is_quiet(tmp_path):
    # More than a pipe buffer (64 KiB) of lines, so the writer meets the pipe that head closed.
    n = 600
    texts = [f"Passage {j} about Ed Wood. " + "x" * 400 for j in range(n)]
    idx = build_index([[("Ed Wood", "wrote", f"Book {j}")] for j in range(n)], passages=texts)
    path = tmp_path / "p.hippo"
    save_index(idx, path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    query = f'hipporag query "{path}" "Who is Ed Wood?" -k {n}'
    cmd = f'"{sys.executable}" -m pathfinding {query} | head -n 3; exit ${{PIPESTATUS[0]}}'
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env)
    assert proc.stdout.startswith("question: Who is Ed Wood?") and proc.stdout.count("\n") == 3
    assert proc.stderr == "" and proc.returncode == 141


def test_existing_commands_still_registered(capsys):
    with pytest.raises(SystemExit):
        main(["realtext-bench", "--help"])
    assert "--builds" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["hipporag", "--help"])
    out = capsys.readouterr().out
    assert all(c in out for c in ("index", "query", "add", "delete", "bench-add"))


def test_add_keeps_the_encoder_unless_refit(files, capsys):
    idx, oie = str(files / "f.hippo"), str(files / "openie.json")
    argv = ["hipporag", "index", str(files / "c2.json"), "--openie", oie, "-o", idx, "--json"]
    code, out, _ = _run(capsys, argv)
    assert code == 0 and json.loads(out)["settings"]["fit_encoder"] is True
    built = load_index(idx)
    add = ["hipporag", "add", idx, "--corpus", str(files / "c1.json"), "--openie", oie]
    code, out, _ = _run(capsys, add)
    grown = load_index(idx)
    assert code == 0 and grown.n_passages == 36 and grown.settings["fit_encoder"] is False
    (_, grams, idf), (_, grams0, idf0) = grown.encoder.get_state(), built.encoder.get_state()
    assert grams == grams0 and np.array_equal(idf, idf0)  # the encoder did not change
    code, out, _ = _run(capsys, ["hipporag", "delete", idx, "0", "--refit"])
    refit = load_index(idx)
    assert code == 0 and refit.settings["fit_encoder"] is True
    assert refit.encoder.get_state()[1] != built.encoder.get_state()[1]  # refit on the new phrase set
