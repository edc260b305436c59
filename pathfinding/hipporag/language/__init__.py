"""How text becomes words and names: tokens and normal forms, stop words and capitalised spans,
the corpus's casing model, and a question read through it.

* :mod:`~pathfinding.hipporag.language.text` -- tokens, sentences, Unicode normal forms, node keys;
* :mod:`~pathfinding.hipporag.language.names` -- stop words and the spans a writer capitalised;
* :mod:`~pathfinding.hipporag.language.casing` -- how the corpus writes each name, counted at build time;
* :mod:`~pathfinding.hipporag.language.reading` -- a question's names read back in the corpus's form.

Its names are imported from their modules, or the user-facing ones from :mod:`pathfinding.hipporag`.
"""
