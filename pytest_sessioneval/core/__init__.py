"""The pure scoring core: sessions and events in, verdicts out.

No pytest, no clock, no I/O beyond reading its inputs (``io`` opens every input file).
"""
