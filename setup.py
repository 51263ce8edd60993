"""Only the optional C extension lives here; everything else is in pyproject.toml.

The extension is optional: where it cannot be compiled, installation goes on
and savecraft uses its pure Python/numpy paths (slower, same results).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "savecraft._speedups",
            ["src/savecraft/_speedups.c"],
            optional=True,
            extra_compile_args=["-O3"],
        )
    ]
)
