"""Build script only: every setting (name, version, dependencies) comes from settings.ini."""
from configparser import ConfigParser
from pathlib import Path

import setuptools

cfg = ConfigParser(delimiters=["="])
cfg.read(Path(__file__).parent / "settings.ini", encoding="utf-8")
c = cfg["DEFAULT"]

def _reqs(key):
    return c.get(key, "").split()

setuptools.setup(
    name=c["lib_name"],
    version=c["version"],
    description=c["description"],
    long_description=(Path(__file__).parent / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    author=c["author"],
    license="Apache-2.0",
    python_requires=f">={c['min_python']}",
    packages=setuptools.find_packages(include=["dplit", "dplit.*"]),
    include_package_data=True,
    install_requires=_reqs("requirements"),
    extras_require={"dev": _reqs("dev_requirements") + _reqs("data_requirements")
                    + _reqs("distributed_requirements"),
                    "book": _reqs("book_requirements"), "data": _reqs("data_requirements"),
                    "distributed": _reqs("distributed_requirements")},
    entry_points={"console_scripts": c["console_scripts"].split(), "nbdev": ["dplit=dplit._modidx:d"]},
    zip_safe=False,
)
