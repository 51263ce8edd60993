"""Only the optional C extensions live here; everything else is in pyproject.toml.

One extension module per domain (savecraft/_native/*.c). Each is optional:
where one cannot be compiled, installation goes on, and savecraft.compiled
then runs none of them (a partial build would be a silent mix) but its pure
Python/numpy paths (slower, same results).
"""

from setuptools import Extension, setup

DOMAINS = ("records", "rle", "bytewise")

setup(
    ext_modules=[
        Extension(
            f"savecraft._native.{name}",
            [f"src/savecraft/_native/{name}.c"],
            depends=["src/savecraft/_native/version.h"],
            optional=True,
            extra_compile_args=["-O3"],
        )
        for name in DOMAINS
    ]
)
