"""The package version: the one place it is written.

``pyproject.toml`` reads it (setuptools ``dynamic`` version), the package
exports it as ``cugraph_stream.__version__``, and ``conda/recipe.yaml`` repeats
it in its ``context`` (rattler-build reads no Python), where
``tests/test_packaging.py`` fails CI if the two ever differ.
"""

__version__ = "0.1.0"
