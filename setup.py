"""Build of the one C extension, netpol.loading._kyaml (libyaml events → Python values; see its header).

Everything else is in pyproject.toml. The extension needs a C compiler, Python's headers and libyaml's
(Debian: gcc, python3-dev, libyaml-dev); without them it is skipped and netpol.loading.yamlread reads
YAML with its Python path: the same values, about 3× slower.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "netpol.loading._kyaml",
            sources=["netpol/loading/_kyaml.c"],
            libraries=["yaml"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
