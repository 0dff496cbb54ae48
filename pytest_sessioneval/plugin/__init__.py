"""The pytest layer: the only code of the package that imports pytest.

``hooks`` is the module pytest loads (the ``sessioneval`` entry point); the other
modules each hold one concern of the layer.
"""
