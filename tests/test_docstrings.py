"""Every public name of dplit is documented (issue 23): for every module and every name in its
`__all__`, a callable has a docstring, and when its signature takes parameters (a class: those of
its `__init__`, documented on the public class itself) the docstring has a numpy ``Parameters``
section naming each of them (``self``, ``*args`` and ``**kwargs`` excepted).

The check parses the docstring independently of how it was written: a section is a title line
followed by a line of dashes; a parameter is documented when a line of the Parameters section
starts with its name (``name : type`` or ``name1, name2 : type``). Run as a script, it prints the
counts per module (public names, names lacking a documented Parameters section).
"""
import importlib
import inspect
import pkgutil
import re

import pytest

import dplit



def modules() -> list:
    "Names of dplit's modules (the package itself as '__init__'), in a stable order."
    return ["__init__"] + sorted(i.name for i in pkgutil.iter_modules(dplit.__path__)
                                 if not i.name.startswith("_") or i.name == "__main__")


def _module(name: str):
    return dplit if name == "__init__" else importlib.import_module(f"dplit.{name}")


def sections(doc: str) -> dict:
    "Map each numpy section title of `doc` to its lines (a title line underlined by dashes)."
    lines = inspect.cleandoc(doc).splitlines()
    out, title = {}, None
    for i, line in enumerate(lines):
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if line.strip() and nxt and set(nxt) == {"-"} and len(nxt) >= 3:
            title = line.strip()
            out[title] = []
        elif title is not None and not (set(line.strip()) == {"-"} and out[title] == []):
            out[title].append(line)
    return out


def documented_params(doc: str) -> set:
    "Names documented in the Parameters section: lines at the section's indentation."
    lines = sections(doc).get("Parameters", [])
    names = set()
    for line in lines:
        if line and not line[0].isspace():
            head = line.split(" : ")[0] if " : " in line else line.strip()
            names |= {n.strip().lstrip("*") for n in head.split(",")}
    return names


def signature_params(obj) -> list:
    "The parameters a user passes (no self, *args, **kwargs); None if the signature is unknown."
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [p.name for p in sig.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self"]


def problem(obj) -> str | None:
    "Why `obj`'s documentation falls short, or None if it does not."
    doc = vars(obj).get("__doc__") if inspect.isclass(obj) else inspect.getdoc(obj)
    if inspect.isclass(obj) and not doc:
        return "the class has no docstring of its own"
    if not doc or not doc.strip():
        return "no docstring"
    params = signature_params(obj)
    if not params:
        return None
    if "Parameters" not in sections(doc):
        return f"no numpy Parameters section (parameters {params})"
    missing = [p for p in params if p not in documented_params(doc)]
    return f"Parameters section lacks {missing}" if missing else None


def public(name: str) -> list:
    "(name, object) for the callables in the module's __all__, in order."
    mod = _module(name)
    return [(n, getattr(mod, n)) for n in getattr(mod, "__all__", [])
            if callable(getattr(mod, n))]


def reexported(module: str, name: str, obj) -> bool:
    "Whether `obj` is public in another dplit module that defines it (checked there)."
    home = getattr(obj, "__module__", "") or ""
    return (home.startswith("dplit.") and home != _module(module).__name__
            and name in getattr(_module(home[6:]), "__all__", ()))


def report(name: str) -> dict:
    "The name -> problem map of the module's public callables (empty when all are documented)."
    return {n: p for n, o in public(name)
            if not reexported(name, n, o) and (p := problem(o)) is not None}


def _param(name):
    return pytest.param(name, id=name)


@pytest.mark.parametrize("name", [_param(m) for m in modules()])
def test_public_callables_have_numpy_parameters(name):
    bad = report(name)
    assert not bad, "\n".join(f"dplit.{name}.{n}: {p}" for n, p in bad.items())


def undescribed_constants(name: str) -> list:
    """Public non-callables of the module whose assignment has no comment: neither on its line
    nor on the line above (nbdev's `# %%` cell markers do not count)."""
    mod = _module(name)
    try:
        lines = inspect.getsource(mod).splitlines()
    except (OSError, TypeError):
        return []
    return uncommented(lines, [n for n in getattr(mod, "__all__", [])
                               if not callable(getattr(mod, n))])


def uncommented(lines: list, names: list) -> list:
    "The `names` whose module-level assignment in `lines` has no comment on or above its line."
    bad = []
    for n in names:
        at = [i for i, line in enumerate(lines) if re.match(rf"{n}\s*(:[^=]*)?=", line)]
        ok = any("#" in lines[i] or (i and lines[i - 1].startswith("#")
                                     and not lines[i - 1].startswith("# %%")) for i in at)
        if not ok:
            bad.append(n)
    return bad


@pytest.mark.parametrize("name", [_param(m) for m in modules()])
def test_public_constants_are_described(name):
    "A public constant (no docstring of its own) has a comment saying what it is."
    assert not undescribed_constants(name), undescribed_constants(name)


def test_the_checker_rejects_what_it_should():
    "The parser is an independent truth: it must fail an undocumented or half-documented function."
    def none(a, b=1):
        pass

    def half(a, b=1):
        """Sum.

        Parameters
        ----------
        a : float
            The first.

        Returns
        -------
        float
        """

    def full(a, b=1, *args, **kw):
        """Sum.

        Parameters
        ----------
        a, b : float
            The two.
        """

    def prose(a):
        "Mentions a in prose only."
    assert problem(none) == "no docstring"
    assert problem(half) == "Parameters section lacks ['b']"
    assert problem(full) is None
    assert "no numpy Parameters" in problem(prose)

    class Base:
        """Base.

        Parameters
        ----------
        x : int
        """
        def __init__(self, x):
            self.x = x

    class Child(Base):
        pass
    assert problem(Base) is None
    assert problem(Child) == "the class has no docstring of its own"


def test_the_constant_check_rejects_what_it_should():
    "A bare assignment or one under a cell marker is undescribed; a comment on or above it is not."
    src = ["# %% cell", "A = 1", "B: int = 2  # what B is", "# what C is", "C = (3,", "     4)",
           "D = 5", "D_LIMIT = 6  # not D"]
    assert uncommented(src, ["A", "B", "C", "D"]) == ["A", "D"]


def test_defined_names_are_checked_in_their_own_module():
    "The front door re-exports names; each is checked in the module that defines it."
    for n in dplit.__all__:
        obj = getattr(dplit, n)
        assert obj.__module__ != "dplit" and n in _module(obj.__module__[6:]).__all__, n


if __name__ == "__main__":
    total = lacking = 0
    for m in modules():
        mod = _module(m)
        names = [n for n in getattr(mod, "__all__", []) if not reexported(m, n, getattr(mod, n))]
        bad = report(m)
        total, lacking = total + len(names), lacking + len(bad)
        print(f"{m:16s} public {len(names):4d}  lacking {len(bad):4d}  "
              f"constants undescribed {len(undescribed_constants(m))}")
    print(f"{'total':16s} public {total:4d}  lacking {lacking:4d}")
