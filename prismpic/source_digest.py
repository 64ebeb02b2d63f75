"""Digests of the imported prismpic's sources for the user cache's keys: the modules one piece of code can run.

A traced program (``program_cache``) or a computed array depends on the prismpic modules its code can call: the
modules it is defined in and every prismpic module those import, directly or not (``closure``). Keyed on those
files (and the package's data) alone, it stays valid across an edit elsewhere (a test, the CLI, the report's
layout); keyed on the whole package, a CI run with a kept cache traced every program again after any commit
(the report's shared run: 169 s after a one-line change against 79 s warm, measured 2026-12-06).

The import graph is read from the sources' text, erring on the side of more: every ``import prismpic.…`` and
``from prismpic.… import …`` anywhere in a file (inside functions too), and every string literal that names a
prismpic module, or a package by a prefix ending in a dot (``importlib.import_module(f"prismpic.components.
{name}")`` takes the whole package). Importing a module, or a package by name, runs the packages' ``__init__``
files: they count with the imports at their top level (``prismpic.get_pdk`` and ``prismpic.PDK`` import the
gdsfactory PDK when called; no traced program calls them). The package's data files (``.json``, ``.npz``,
``.yaml``: the mode tables) are in every key.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

DATA_SUFFIXES = (".json", ".npz", ".yaml")
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(prismpic[\w.]*)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+(prismpic[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_LITERAL = re.compile(r"[\"'](prismpic(?:\.\w+)*)(\.?)(?=[\"'{])")
_NAME = re.compile(r"prismpic(?:\.\w+)+")


@dataclass
class Sources:
    """One prismpic source tree: its modules, its files' content digests and its data files, with the import graph
    read from the files as they are asked for (``read``)."""

    root: Path
    version: str
    files: dict[str, str]  # module -> path relative to root
    digests: dict[str, str]  # relative path -> sha256 of the contents
    data: list[str]  # relative paths of the data files
    _imports: dict = field(default_factory=dict, repr=False)
    _closures: dict = field(default_factory=dict, repr=False)

    @classmethod
    def read(cls, root: Path, version: str) -> Sources:
        """The tree under ``root`` (a folder named for the package, like ``prismpic/``) of the given version."""
        files, digests, data = {}, {}, []
        for path in sorted(Path(root).rglob("*")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            if path.suffix == ".py":
                parts = ("prismpic", *path.relative_to(root).with_suffix("").parts)
                files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = rel
            elif path.suffix in DATA_SUFFIXES:
                data.append(rel)
            else:
                continue
            digests[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        return cls(Path(root), version, files, digests, data)

    def owner(self, name: str) -> str | None:
        """The longest prefix of the dotted ``name`` that is a module here (None: none is)."""
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            if ".".join(parts[:n]) in self.files:
                return ".".join(parts[:n])
        return None

    def subtree(self, package: str) -> set[str]:
        return {m for m in self.files if m == package or m.startswith(package + ".")}

    def imports(self, module: str, top_level: bool = False) -> tuple[frozenset[str], frozenset[str]]:
        """(modules ``module`` uses, packages whose ``__init__`` importing it runs; module docstring).
        ``top_level``: only the imports at the file's top level (a package's ``__init__`` run on the way to one of
        its modules: the functions it defines import only when called)."""
        if (module, top_level) in self._imports:
            return self._imports[module, top_level]
        text = (self.root / self.files[module]).read_text(encoding="utf-8")
        if top_level:
            text = "\n".join(line for line in text.splitlines() if line[:1] not in (" ", "\t"))
        used: set[str] = set()
        run = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}  # its packages
        for base in _IMPORT.findall(text) + [base for base, _ in _FROM.findall(text)]:
            owner = self.owner(base) or "prismpic"
            (run if self.files[owner].endswith("__init__.py") else used).add(owner)
        for base, names in _FROM.findall(text):
            for name in names.strip("()").replace("\n", ",").split(","):
                word = name.split("#")[0].split(" as ")[0].strip()
                if word and f"{base}.{word}" in self.files:
                    used.add(f"{base}.{word}")
        for name, dot in ([] if top_level else _LITERAL.findall(text)):
            # a module's or package's exact name ("prismpic.lyp" is a file's, the bare "prismpic" a package list's)
            if name in self.files and (dot or name != "prismpic"):
                used |= self.subtree(name) if dot or self.files[name].endswith("__init__.py") else {name}
        for m in list(used):  # importing a module runs its packages
            run |= {".".join(m.split(".")[:n]) for n in range(1, m.count(".") + 1)}
        self._imports[module, top_level] = (frozenset(used - {module}), frozenset(run - used - {module}))
        return self._imports[module, top_level]

    def closure(self, modules) -> frozenset[str]:
        """``modules`` and every prismpic module they import, directly or not, with the packages those run."""
        modules = frozenset(modules)
        if modules not in self._closures:
            used, run, todo = set(), set(), [(m, False) for m in modules]
            while todo:
                m, top = todo.pop()
                if m in used or (top and m in run):
                    continue
                (run if top else used).add(m)
                more_used, more_run = self.imports(m, top)
                todo += [(u, False) for u in more_used] + [(r, True) for r in more_run]
            self._closures[modules] = frozenset(used | run)
        return self._closures[modules]

    def key(self, modules) -> str:
        """A digest of the version, the data files and the sources of ``closure(modules)``: what code from
        ``modules`` can run (24 hex digits). Unknown module names raise a ``ValueError``."""
        unknown = sorted(m for m in modules if m not in self.files)
        if unknown:
            raise ValueError(f"modules = {unknown} are not modules of {self.root}")
        h = hashlib.sha256(self.version.encode())
        for rel in sorted({self.files[m] for m in self.closure(modules)} | set(self.data)):
            h.update(f"{rel}:{self.digests[rel]}\n".encode())
        return h.hexdigest()[:24]

    def modules_named(self, text: str) -> frozenset[str]:
        """The modules that the dotted names in ``text`` (``prismpic.pdk.dispersion.neff``, a type's
        ``prismpic.pdk.ridge_stack.RidgeStack``) belong to."""
        return frozenset(m for m in map(self.owner, _NAME.findall(text)) if m is not None)


@functools.cache
def imported() -> Sources:
    """The imported prismpic's sources, read once per process (the code a process runs is the code it imported)."""
    import prismpic

    return Sources.read(Path(prismpic.__file__).parent, prismpic.__version__)


@functools.cache
def modules_key(modules: frozenset[str]) -> str:
    """``imported().key(modules)``."""
    return imported().key(modules)
