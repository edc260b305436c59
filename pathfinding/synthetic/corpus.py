"""A deterministic synthetic corpus with triples, for indexing at scales no released corpus reaches.

The released corpora stop short of the 100,000 passages the scaling fit needs, and repeating real
passages would stop the phrase set from growing, hiding exactly the super-linear steps being
measured (synonymy, linking).

What makes it realistic enough for that measurement:

* **Names.** People ("Marlo Kavendor"), places ("Trelby County", "Oster River"), organisations
  ("University of Dunmore", "Kavendor Football Club"), works ("The Silent Harbour") are composed
  from syllables and word lists, so the character n-gram vocabulary is large and Zipf-like.
* **Near-duplicate surface forms.** Each entity has a few variants, used on some mentions:
  misspellings (a dropped, doubled or swapped letter), initials ("M. Kavendor"), the surname
  alone, an acronym ("KFC"), a dropped or added article. Each variant is its own phrase node, and
  most are within cosine 0.8 of their canonical form, so synonymy edges exist (the rate is
  reported by :func:`corpus_stats` and compared with MuSiQue's by :mod:`pathfinding.bench.scale`).
* **Shape of a passage.** Like a Wikipedia paragraph, passage j is about one entity (its title)
  and holds ``~triples_per_passage`` triples linking it to popular entities (Zipf-chosen, so hubs
  exist), dates, numbers, descriptors and minor entities that appear only there.
* **Questions.** Two-hop bridge questions ("What is the birthplace of the director of The Silent
  Harbour?") whose two gold passages are joined by the bridge entity, with capitalised names in the
  text so the offline extractor finds them.

Everything is drawn from one ``rng``; the same seed gives byte-identical output.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from pathfinding._validation import check_float, check_int

__all__ = ["SyntheticCorpus", "SyntheticQuestion", "corpus_stats", "synthetic_corpus"]

_ONSETS = ("b bl br c ch cl cr d dr f fl fr g gl gr h j k kn kr l m n p ph pl pr qu r s sc sh sk sl sm sn sp "
           "st str sw t th tr tw v w wh y z").split()
_VOWELS = "a e i o u a e i o u ai au ea ee ei ie oa oo ou ue y".split()
_CODAS = [""] * 3 + "n r l s th nd rt m ck ll x ft sk mp nt ng ss tch lk rn z v gh".split()
_FIRST_ENDINGS = ["", "", "a", "o", "ie", "an", "el", "ine", "us", "ette", "ard", "ia", "en"]
_SURNAME_ENDINGS = "son ford ley man ton berg ez ini ov wick ski stein ovic er ham dottir ura".split()
_SURNAME_ENDINGS += [""] * 4
_PLACE_KINDS = ["County", "River", "Lake", "Island", "Valley", "Bay", "Province", "District", ""]
_ORG_PATTERNS = [
    "University of {}", "{} University", "{} Football Club", "{} Records", "Bank of {}",
    "{} Institute of Technology", "{} Broadcasting Company", "{} National Party",
]
_WORK_ADJ = "Silent Broken Golden Last Hidden Red Long Winter Dark Lost Quiet Burning Savage Crystal".split()
_WORK_NOUN = "Harbour Road Garden Empire Night Letter Kingdom Storm Mirror Voyage Promise Song".split()
_MONTHS = "January February March April May June July August September October November December".split()
_NATIONS = "american british french german italian canadian australian spanish swedish irish".split()
_ROLES = {
    "person": "film director|politician|footballer|novelist|singer|painter|actor|composer".split("|"),
    "place": "town|village|city|municipality|region|river|island".split("|"),
    "org": "company|university|football club|record label|political party|broadcaster".split("|"),
    "work": "drama film|comedy film|novel|album|television series|opera|song".split("|"),
}
_KINDS = ["person", "place", "org", "work"]
_KIND_WEIGHTS = [0.45, 0.25, 0.15, 0.15]
_RELATIONS = {
    "person": ["born in", "died in", "educated at", "member of", "spouse of", "directed", "wrote",
               "founded", "played for", "won award"],
    "place": ["located in", "capital of", "borders", "named after", "part of"],
    "org": ["headquartered in", "founded by", "part of", "owned by", "established in"],
    "work": ["directed by", "written by", "released in", "produced by", "set in"],
}
_QUESTION_REL = {"born in": "birthplace", "located in": "location", "headquartered in": "headquarters",
                 "directed by": "director", "founded by": "founder", "written by": "author",
                 "member of": "party", "educated at": "alma mater", "part of": "parent",
                 "capital of": "country", "set in": "setting", "owned by": "owner"}


@dataclass(frozen=True)
class SyntheticQuestion:
    """A two-hop question: ``entities`` are its named entities, ``gold`` its two passage ids."""

    question: str
    entities: tuple[str, ...]
    gold: tuple[int, int]


@dataclass(frozen=True)
class SyntheticCorpus:
    """Passages with their triples, and questions over them.

    Attributes
    ----------
    titles : list of str
    passages : list of str
        ``title + "\\n" + text``, the text rendering the passage's triples as sentences.
    triples : list of list of (str, str, str)
        Triples of each passage, as an OpenIE step would return them (surface forms, not ids).
    questions : list of SyntheticQuestion
    seed : int
    """

    titles: list[str]
    passages: list[str]
    triples: list[list[tuple[str, str, str]]]
    questions: list[SyntheticQuestion]
    seed: int

    def __len__(self) -> int:
        return len(self.passages)


def _syllable(rng) -> str:
    return _ONSETS[rng.randrange(len(_ONSETS))] + _VOWELS[rng.randrange(len(_VOWELS))] + _CODAS[
        rng.randrange(len(_CODAS))
    ]


def _word(rng, endings) -> str:
    w = "".join(_syllable(rng) for _ in range(1 + rng.randrange(3))) + endings[rng.randrange(len(endings))]
    return w.capitalize()


def _misspell(rng, name: str) -> str:
    """One edit inside a word of at least five letters (drop, double, swap, vowel change)."""
    words = name.split()
    long = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    if not long:
        return name
    i = long[rng.randrange(len(long))]
    w = words[i]
    k = 1 + rng.randrange(len(w) - 2)
    op = rng.randrange(4)
    if op == 0:
        w = w[:k] + w[k + 1 :]
    elif op == 1:
        w = w[:k] + w[k] + w[k:]
    elif op == 2:
        w = w[:k] + w[k + 1] + w[k] + w[k + 2 :]
    else:
        w = w[:k] + "aeiou"[rng.randrange(5)] + w[k + 1 :]
    words[i] = w
    return " ".join(words)


def _variants(rng, kind: str, name: str) -> list[str]:
    """Other surface forms of one entity (possibly none)."""
    out = []
    words = name.split()
    if rng.random() < 0.6:
        out.append(_misspell(rng, name))
    if kind == "person" and len(words) >= 2:
        if rng.random() < 0.5:
            out.append(words[0][0] + ". " + " ".join(words[1:]))
        if rng.random() < 0.3:
            out.append(words[-1])
    if kind == "org" and rng.random() < 0.5:
        out.append("".join(w[0] for w in words if w[0].isupper()))
    if kind == "work" and rng.random() < 0.4:
        out.append(name[4:] if name.startswith("The ") else "The " + name)
    if kind == "place" and len(words) == 2 and rng.random() < 0.3:
        out.append(words[0])
    return [v for v in dict.fromkeys(out) if v != name]


def _entity(rng, kind: str, places: list[str]) -> str:
    if kind == "person":
        parts = [_word(rng, _FIRST_ENDINGS)]
        if rng.random() < 0.15:
            parts.append(_word(rng, _FIRST_ENDINGS))
        parts.append(_word(rng, _SURNAME_ENDINGS))
        return " ".join(parts)
    if kind == "place":
        k = _PLACE_KINDS[rng.randrange(len(_PLACE_KINDS))]
        return (_word(rng, _SURNAME_ENDINGS) + " " + k).strip()
    if kind == "org":
        base = places[rng.randrange(len(places))].split()[0] if places and rng.random() < 0.5 else _word(
            rng, _SURNAME_ENDINGS
        )
        return _ORG_PATTERNS[rng.randrange(len(_ORG_PATTERNS))].format(base)
    adj, noun = _WORK_ADJ[rng.randrange(len(_WORK_ADJ))], _WORK_NOUN[rng.randrange(len(_WORK_NOUN))]
    tail = "" if rng.random() < 0.5 else " of " + _word(rng, _SURNAME_ENDINGS)
    return f"The {adj} {noun}{tail}"


def _date(rng) -> str:
    year = rng.randrange(1700, 2024)
    r = rng.random()
    if r < 0.4:
        return str(year)
    if r < 0.7:
        return f"{_MONTHS[rng.randrange(12)]} {year}"
    return f"{rng.randrange(1, 29)} {_MONTHS[rng.randrange(12)]} {year}"


_BAR_STEP = 10_000


def _bar(n_passages: int, progress):
    import sys

    from tqdm.auto import tqdm

    disable = (None if n_passages >= 100_000 else True) if progress is None else not progress
    return tqdm(total=n_passages, desc="corpus", unit="passage", file=sys.stderr, leave=False,
                disable=disable)


def synthetic_corpus(
    n_passages: int,
    *,
    triples_per_passage: float = 9.0,
    variant_rate: float = 0.15,
    popular_share: float = 0.25,
    n_questions: int = 100,
    rng=0,
    progress=None,
) -> SyntheticCorpus:
    """Generate ``n_passages`` passages with triples, and two-hop questions over them.

    Parameters
    ----------
    n_passages : int
        At least 2.
    triples_per_passage : float, default 9.0
        Mean triples per passage (MuSiQue's released OpenIE has 9.1).
    variant_rate : float, default 0.15
        Probability that a mention uses one of the entity's variant surface forms.
    popular_share : float, default 0.25
        Share of a passage's objects that are entities chosen by a Zipf law over all entities
        (hubs, and the bridges of multi-hop questions); the rest are new minor entities, dates,
        numbers and descriptors.
    n_questions : int, default 100
    rng : int or numpy.random.Generator, default 0
    progress : bool or None, default None
        tqdm bar on stderr over the passages; None shows it on a terminal from 100,000 passages.

    Returns
    -------
    SyntheticCorpus

    Examples
    --------
    >>> c = synthetic_corpus(50, rng=1)
    >>> len(c), len(c.questions) > 0
    (50, True)
    >>> c.triples[0][0][0] == c.titles[0]  # a passage opens with its title entity, as written
    True
    >>> synthetic_corpus(50, rng=1).passages == c.passages
    True
    """
    n_passages = check_int("n_passages", n_passages, low=2)
    triples_per_passage = check_float("triples_per_passage", triples_per_passage, low=1.0, high=100.0)
    variant_rate = check_float("variant_rate", variant_rate, low=0.0, high=1.0)
    popular_share = check_float("popular_share", popular_share, low=0.0, high=1.0)
    n_questions = check_int("n_questions", n_questions, low=0)
    seed = int(rng) if isinstance(rng, int | np.integer) else -1
    gen = np.random.default_rng(rng)
    # Scalar draws dominate (millions at 100,000 passages): a stdlib generator seeded from ``gen``
    # is about ten times faster per draw than numpy's and just as deterministic.
    rng = random.Random(int(gen.integers(2**63)))

    names: list[str] = []
    ent_kind: list[str] = []
    variants: list[list[str]] = []
    seen: set[str] = set()
    places: list[str] = []

    def new_entity() -> int:
        kind = rng.choices(_KINDS, _KIND_WEIGHTS)[0]
        for _ in range(20):
            name = _entity(rng, kind, places)
            if name not in seen:
                break
        seen.add(name)
        names.append(name)
        ent_kind.append(kind)
        variants.append(_variants(rng, kind, name))
        if kind == "place":
            places.append(name)
        return len(names) - 1

    def surface(e: int) -> str:
        if variants[e] and rng.random() < variant_rate:
            return variants[e][rng.randrange(len(variants[e]))]
        return names[e]

    # One topic entity per passage; hubs are drawn among them with a Zipf law on a random order.
    topic = [new_entity() for _ in range(n_passages)]
    zipf_rank = gen.permutation(n_passages)
    weights = 1.0 / (1.0 + np.arange(n_passages)) ** 0.9
    hubs = zipf_rank[np.minimum(np.searchsorted(np.cumsum(weights) / weights.sum(), gen.random(
        int(n_passages * (triples_per_passage + 1)))), n_passages - 1)].tolist()
    n_trip = (gen.poisson(triples_per_passage - 1, size=n_passages) + 1).tolist()
    minor = popular_share + (1 - popular_share) * 0.5
    dated = minor + (1 - popular_share) * 0.25

    titles, passages, triples = [], [], []
    bridges: list[tuple[int, str, int]] = []  # (passage, relation, entity with its own passage)
    bar = _bar(n_passages, progress)
    for j in range(n_passages):
        if j % _BAR_STEP == _BAR_STEP - 1:
            bar.update(_BAR_STEP)
        t = topic[j]
        kind = ent_kind[t]
        rels = _RELATIONS[kind]
        subj = names[t]
        doc = []
        for _ in range(n_trip[j]):
            rel = rels[rng.randrange(len(rels))]
            r = rng.random()
            if r < popular_share:
                o = topic[hubs.pop()] if hubs else topic[rng.randrange(n_passages)]
                if o == t:
                    continue
                bridges.append((j, rel, o))
                obj = surface(o)
            elif r < minor:
                obj = names[new_entity()]
            elif r < dated:
                obj, rel = _date(rng), "born on" if kind == "person" else "established in"
            elif kind == "place" and r < dated + 0.1:
                obj, rel = f"{rng.randrange(2, 5000) * 10:,}".replace(",", " "), "has population"
            else:
                obj, rel = f"{rng.choice(_NATIONS)} {rng.choice(_ROLES[kind])}", "is"
            doc.append((subj if not doc or rng.random() < 0.8 else surface(t), rel, obj))
        titles.append(names[t])
        text = " ".join(f"{s} {r} {o}." for s, r, o in doc)
        passages.append(names[t] + "\n" + text)
        triples.append(doc)

    bar.close()
    owner = {e: j for j, e in enumerate(topic)}
    questions = []
    for b in gen.permutation(len(bridges)).tolist():
        if len(questions) >= n_questions:
            break
        j, rel1, e = bridges[b]
        k = owner[e]
        second = [r for s, r, o in triples[k] if r in _QUESTION_REL]
        if rel1 not in _QUESTION_REL or not second or k == j:
            continue
        rel2 = second[rng.randrange(len(second))]
        q = f"What is the {_QUESTION_REL[rel2]} of the {_QUESTION_REL[rel1]} of {titles[j]}?"
        questions.append(SyntheticQuestion(q, (titles[j],), (j, k)))
    return SyntheticCorpus(titles, passages, triples, questions, seed)


def corpus_stats(corpus: SyntheticCorpus) -> dict:
    """Passages, triples per passage and distinct surface forms per passage of a corpus.

    Examples
    --------
    >>> s = corpus_stats(synthetic_corpus(200, rng=0))
    >>> s["n_passages"], s["triples_per_passage"] > 5
    (200, True)
    """
    phrases = {p for doc in corpus.triples for s, _, o in doc for p in (s, o)}
    n_trip = sum(len(d) for d in corpus.triples)
    return {
        "n_passages": len(corpus),
        "triples_per_passage": n_trip / len(corpus),
        "surface_forms_per_passage": len(phrases) / len(corpus),
        "n_questions": len(corpus.questions),
    }
