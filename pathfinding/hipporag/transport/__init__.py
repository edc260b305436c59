"""What the chat and embeddings clients share: JSON over HTTP with bounded retries, answers on disk.

* :mod:`~pathfinding.hipporag.transport.http` -- one POST with a deadline, retried with backoff;
* :mod:`~pathfinding.hipporag.transport.cache` -- an endpoint's answers kept on disk, keyed by request.

Its names are imported from their modules, or the user-facing ones from :mod:`pathfinding.hipporag`.
"""
