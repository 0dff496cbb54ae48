"""The session-eval record of aiat-llm-eval/1.0: its schema, how one is built, the journal
that keeps them, and re-verification against fresh scoring. Pure, but for the journal's
file locks."""
