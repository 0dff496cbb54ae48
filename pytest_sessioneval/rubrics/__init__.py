"""Pre-registered rubrics shipped with the package: rubric-v1 and its text."""

from .rubric_v1 import RUBRIC_V1

__all__ = ["RUBRIC_V1"]
