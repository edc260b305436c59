"""``pathfinding hipporag index``, ``add`` and ``delete`` (pathfinding.cli.index), run in-process: what
each writes and says, the sources of triples it accepts, the output it refuses, and the lock held
from the read of the index to its write."""

import json

import pytest

import pathfinding.hipporag.index.persistence as persistence
from pathfinding.cli import main
from pathfinding.cli.index import _reasons
from pathfinding.hipporag.index.persistence import load_index
from tests.conftest import PASSAGES, lock_is_held

COOC = ["--extractor", "cooccurrence"]


def _run(capsys, argv):
    code = main(["hipporag", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _corpus(path, rows):
    path.write_text(json.dumps([{"title": t, "text": x} for t, x in rows]))
    return str(path)


@pytest.fixture
def d(tmp_path, capsys):
    """c1.json (the first two passages), c2.json (the other two) and i.hippo, built from c1."""
    _corpus(tmp_path / "c1.json", PASSAGES[:2])
    _corpus(tmp_path / "c2.json", PASSAGES[2:])
    code, _, _ = _run(capsys, ["index", str(tmp_path / "c1.json"), *COOC, "-o", str(tmp_path / "i.hippo")])
    assert code == 0
    return tmp_path


# --- index -------------------------------------------------------------------------------------------


def test_index_writes_the_index_and_its_query_cache(tmp_path, capsys):
    corpus = _corpus(tmp_path / "c.json", PASSAGES)
    out = str(tmp_path / "i.hippo")
    code, text, _ = _run(capsys, ["index", corpus, *COOC, "-o", out, "--json"])
    res = json.loads(text)
    assert code == 0 and res["index"] == out and res["stats"]["n_passages"] == 4
    assert res["openie"]["source"] == "cooccurrence" and res["settings"]["tau"] == 0.8
    index = load_index(out)
    assert index.passages == [f"{t}\n{x}" for t, x in PASSAGES]  # the texts, in corpus order
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json", "i.hippo", "i.hippo.query-cache"]
    code, text, _ = _run(capsys, ["index", corpus, *COOC, "-o", out, "--tau", "0.5", "--max-synonyms", "3"])
    assert code == 0 and text.splitlines()[-1].startswith(f"wrote {out} (")
    assert load_index(out).settings["tau"] == 0.5  # an index of ours is replaced


def test_index_writes_its_file_and_cache_under_the_lock(tmp_path, capsys, monkeypatch):
    import pathfinding.hipporag.retrieval.querycache as querycache

    seen = []
    write_cache = querycache.write_cache

    def spy(index, path, **kw):
        seen.append(lock_is_held(path))
        write_cache(index, path, **kw)

    monkeypatch.setattr(querycache, "write_cache", spy)
    out = str(tmp_path / "i.hippo")
    assert _run(capsys, ["index", _corpus(tmp_path / "c.json", PASSAGES), *COOC, "-o", out])[0] == 0
    assert seen == [True] and not lock_is_held(out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--openie", "{o}", *COOC], "give either --openie FILE or --extractor, not both"),
        ([], "no triples for the corpus: pass --openie FILE"),
    ],
)
def test_one_source_of_triples(tmp_path, capsys, args, message):
    corpus = _corpus(tmp_path / "c.json", PASSAGES)
    (tmp_path / "o.json").write_text('{"docs": []}')
    argv = ["index", corpus, *[a.replace("{o}", str(tmp_path / "o.json")) for a in args]]
    code, _, err = _run(capsys, [*argv, "-o", str(tmp_path / "i.hippo")])
    assert code == 2 and message in err and not (tmp_path / "i.hippo").exists()


def _openie(path, rows):
    docs = [
        {"title": t, "text": x, "passage": f"{t}\n{x}", "extracted_entities": [t],
         "extracted_triples": [[t, "is", "here"]]}
        for t, x in rows
    ]  # fmt: skip
    path.write_text(json.dumps({"docs": docs}))
    return str(path)


def test_openie_records_are_matched_to_the_corpus_by_title_and_text(tmp_path, capsys):
    corpus = _corpus(tmp_path / "c.json", PASSAGES[:2])
    out = str(tmp_path / "i.hippo")
    # the records in another order, plus one for a passage the corpus does not have
    openie = _openie(tmp_path / "o.json", [PASSAGES[1], PASSAGES[3], PASSAGES[0]])
    code, _, err = _run(capsys, ["index", corpus, "--openie", openie, "-o", out])
    assert code == 0 and f"note: 1 records of {openie} match no corpus passage" in err
    first, second = load_index(out).triples  # each passage its own record's triple
    assert first == (("ed wood", "is", "here"),) and second == (("plan 9 from outer space", "is", "here"),)
    openie = _openie(tmp_path / "o.json", [PASSAGES[0]])
    code, _, err = _run(capsys, ["index", corpus, "--openie", openie, "-o", out])
    assert code == 2 and "1 of 2 corpus passages have no record in" in err
    assert "(matched by title and text; first: [1] 'Plan 9 from Outer Space')" in err


def test_a_passage_with_two_records_takes_the_first_and_the_file_is_read_one_record_at_a_time(
    tmp_path, capsys, monkeypatch
):
    """The OpenIE file is streamed (a million passages' file is never held whole): the records are
    taken as the reader hands them over, and a passage's first record is its triples."""
    from pathfinding.hipporag.io import loaders

    corpus = _corpus(tmp_path / "c.json", PASSAGES[:2])
    openie = _openie(tmp_path / "o.json", [PASSAGES[1], PASSAGES[0], PASSAGES[1]])
    data = json.loads(open(openie).read())
    data["docs"][2]["extracted_triples"] = [["Later", "is", "ignored"]]
    open(openie, "w").write(json.dumps(data))
    monkeypatch.setattr(loaders, "read_json", lambda *a: pytest.fail("the OpenIE file was read whole"))
    out = str(tmp_path / "i.hippo")
    code, _, err = _run(capsys, ["index", corpus, "--openie", openie, "-o", out])
    assert code == 0 and "match no corpus passage" not in err
    assert load_index(out).triples[1] == (("plan 9 from outer space", "is", "here"),)


def test_the_extractor_says_which_passages_gave_no_triple(tmp_path, capsys):
    title_only = "only the title: no capitalised, quoted or content span besides it"
    out = ["-o", str(tmp_path / "i.hippo")]
    rows = [("Ed Wood", "Ed Wood directed Plan 9 in Burbank."), ("Bela", "Bela was born.")]
    code, _, err = _run(capsys, ["index", _corpus(tmp_path / "c.json", rows), *COOC, *out])
    assert code == 0 and f"1 of 2 passages gave no triple: 1 x {title_only} (passage 1)" in err
    rows = [("Bela", "Bela was born."), ("Ed", "Ed was born.")]
    code, _, err = _run(capsys, ["index", _corpus(tmp_path / "c.json", rows), *COOC, *out])
    assert code == 2 and "--extractor cooccurrence found no triple in any of the 2 passages" in err
    assert f"(2 x {title_only} (passage 0, 1)); use an LLM's triples instead" in err


def test_reasons_are_counted_most_common_first_with_their_first_passages():
    why = {0: "a", 1: "b", 2: "a", 3: "a", 5: "a", 7: "b", 9: "c"}
    assert _reasons(why) == "4 x a (passage 0, 2, 3, ...); 2 x b (passage 1, 7); 1 x c (passage 9)"
    assert _reasons({4: "z", 2: "y"}) == "1 x y (passage 2); 1 x z (passage 4)"  # ties: by reason


def test_an_empty_corpus_is_refused(tmp_path, capsys):
    corpus = tmp_path / "c.json"
    corpus.write_text("[]")
    code, _, err = _run(capsys, ["index", str(corpus), *COOC, "-o", str(tmp_path / "i.hippo")])
    assert code == 2 and "the corpus has no passage" in err


def test_a_bad_encoder_url_is_named_before_any_work(tmp_path, capsys):
    corpus = _corpus(tmp_path / "c.json", PASSAGES)
    code, _, err = _run(capsys, ["index", corpus, *COOC, "-o", str(tmp_path / "i"), "--encoder", "ftp://x"])
    assert code == 2 and "--encoder: base_url must be an http(s) URL, got 'ftp://x'" in err


# --- no command writes over one of its inputs ---------------------------------------------------------


def test_one_document_is_a_corpus(tmp_path, capsys):
    """A Markdown file given as the corpus is split as a folder's file would be, each part with the
    file's name in its id; the output may not replace it."""
    doc = tmp_path / "pump.md"
    doc.write_text("# Pump\n\n## Install\nMount the Acme pump.\n\n## Repair\nReplace the Acme seal.\n")
    out = str(tmp_path / "i.hippo")
    code, text, _ = _run(capsys, ["index", str(doc), *COOC, "--max-chars", "30", "-o", out, "--json"])
    assert code == 0 and json.loads(text)["stats"]["n_passages"] == 2
    assert list(load_index(out).passage_ids) == ["pump.md#pump/install", "pump.md#pump/repair"]
    code, _, err = _run(capsys, ["index", str(doc), *COOC, "-o", str(doc), "--force"])
    assert code == 2 and "is the corpus this command reads" in err


def test_no_command_writes_over_one_of_its_inputs(d, capsys):
    c1, c2, idx = str(d / "c1.json"), str(d / "c2.json"), str(d / "i.hippo")
    openie = _openie(d / "o.json", PASSAGES[:2])
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    cases = [
        (["index", c1, *COOC, "-o", c1], "is the corpus this command reads"),
        (["index", c1, "--openie", openie, "-o", openie], "is the OpenIE file this command reads"),
        (["add", idx, "--corpus", c2, *COOC, "-o", c2], "is the corpus this command reads"),
        (["add", idx, "--corpus", c2, "--openie", openie, "-o", openie], "is the OpenIE file this command"),
        (["add", idx, "--corpus", c2, *COOC, "-o", c2, "--force"], "is the corpus this command reads"),
        (["delete", c1, "0"], "exists and is not a pathfinding index"),
        (["delete", idx, "0", "-o", c1, "--force"], "exists and is not a pathfinding index"),
    ]
    for argv, message in cases:
        code, _, err = _run(capsys, argv)
        assert code == 2 and message in err, (argv, err)
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before


# --- add and delete: read, change and write under one lock -------------------------------------------


def _spy_on_load(monkeypatch):
    """Record, at each read of an index, whether its writer lock was held."""
    seen = []

    def spy(path, **kw):
        seen.append(lock_is_held(path))
        return load(path, **kw)

    load = persistence.load_index
    monkeypatch.setattr(persistence, "load_index", spy)
    return seen


def test_add_reads_the_index_only_once_it_holds_the_lock(d, capsys, monkeypatch):
    """Read before the lock, the index could gain another writer's passages before this add writes
    its own copy over them."""
    seen = _spy_on_load(monkeypatch)
    code, _, _ = _run(capsys, ["add", str(d / "i.hippo"), "--corpus", str(d / "c2.json"), *COOC])
    assert code == 0 and seen == [True] and not lock_is_held(d / "i.hippo")


def test_delete_reads_the_index_only_once_it_holds_the_lock(d, capsys, monkeypatch):
    seen = _spy_on_load(monkeypatch)
    assert _run(capsys, ["delete", str(d / "i.hippo"), "0"])[0] == 0
    assert seen == [True] and not lock_is_held(d / "i.hippo")


def test_a_busy_index_is_left_as_it_was(d, capsys, hold_lock):
    idx = d / "i.hippo"
    before = idx.read_bytes()
    hold_lock(idx)
    for argv in (["add", str(idx), "--corpus", str(d / "c2.json"), *COOC], ["delete", str(idx), "0"]):
        code, _, err = _run(capsys, [*argv, "--wait", "0"])
        assert code != 0 and "gave up after waiting 0 s (--wait SECONDS waits longer" in err
    assert idx.read_bytes() == before


def test_add_appends_the_new_passages_and_numbers_them_after_the_old(d, capsys):
    idx = str(d / "i.hippo")
    code, out, _ = _run(capsys, ["add", idx, "--corpus", str(d / "c2.json"), *COOC, "--json"])
    res = json.loads(out)
    assert code == 0 and res["added_ids"] == ["2", "3"] and res["stats"]["n_passages"] == 4
    assert res["duplicates_skipped"] == 0 and res["index"] == idx
    assert load_index(idx).passages == [f"{t}\n{x}" for t, x in PASSAGES]
    assert (d / "i.hippo.query-cache").exists()
    code, out, err = _run(capsys, ["add", idx, "--corpus", str(d / "c1.json"), *COOC])
    assert code == 0 and out.startswith("added 0 passages: ")
    assert "c1.json: 2 of 2 passages are already in i.hippo" in err  # said, and skipped
    assert load_index(idx).n_passages == 4


def test_add_and_delete_write_to_o_and_leave_the_input(d, capsys):
    idx, other = d / "i.hippo", d / "other.hippo"
    before = idx.read_bytes()
    assert _run(capsys, ["add", str(idx), "--corpus", str(d / "c2.json"), *COOC, "-o", str(other)])[0] == 0
    assert idx.read_bytes() == before and load_index(other).n_passages == 4
    assert (d / "other.hippo.query-cache").exists()
    code, out, _ = _run(capsys, ["delete", str(other), "1", "3", "-o", str(d / "two.hippo"), "--json"])
    res = json.loads(out)
    assert code == 0 and res["deleted_ids"] == ["1", "3"]
    assert load_index(d / "two.hippo").passages == [f"{t}\n{x}" for t, x in (PASSAGES[0], PASSAGES[2])]
    assert load_index(other).n_passages == 4


def test_delete_of_an_id_out_of_range_changes_nothing(d, capsys):
    before = (d / "i.hippo").read_bytes()
    code, _, err = _run(capsys, ["delete", str(d / "i.hippo"), "2"])
    assert code == 2 and "no passage has the id '2' (2 passages" in err
    assert (d / "i.hippo").read_bytes() == before
