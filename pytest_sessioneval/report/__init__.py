"""What a person reads, rendered from plain data: pass rates with honest intervals and
the self-contained HTML page. Pure: no pytest, no clock."""
