"""The pytest layer of policy evals (the ``sessioneval-policy`` entry point is ``hooks``)."""
