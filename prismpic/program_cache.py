"""Traced programs reused across runs: a jitted function's lowered program (``jax.export``) in the user cache.

JAX's persistent compilation cache (``user_cache``) skips XLA's compile, but every new process still traces the
Python function and lowers it to StableHLO before it can look the executable up. For the ledger's large programs
(a bank's radius solve, the transient channel, a ring's specs) that is 0.3–2 CPU-s each. ``reuse(f)`` returns a
function that, inside ``enabled()`` (the CLI turns it on for the length of a command), serializes ``f``'s program
the first time (``jax.export``) and deserializes it in later runs; its compile is then a persistent-cache hit.
The results are those of the same program: the exported module is the one ``jax.jit`` lowers (a test compares).

The key (``program_key``): the function (module, qualified name, bytecode), the values it closes over and its
defaults (``describe``: numbers, strings, arrays by content, prismpic and library functions by name and closure,
dataclasses and named tuples by fields), the arguments' tree structure, types, shapes and dtypes, the sources of
the prismpic modules the function and what it closes over can run, and prismpic's data (``user_cache.source_key``
of those modules: an edit elsewhere keeps the entry), the versions of Python and of the libraries traced code runs
(``LIBRARIES``) and whether JAX computes in float64. A value it cannot describe (a function from outside those
packages, an object without fields) means no reuse for that call: the function runs as usual (``skipped()`` says
why). Module state changed at run time (a test's monkeypatch) is not in the key, which is why reuse is off outside
``enabled()``. Under a trace (the caller's jit, grad or vmap) the function also runs as usual: an exported program
carries no derivatives. JAX keeps no traced program across processes; ``jax.export`` gives the serialization,
this module the key.
JAX and NumPy are imported where they are used, so that ``enabled()`` costs the CLI nothing before a command
needs them.

Entries are ``<cache>/programs/<function>-<source key>-<digest>.jaxexport``; writing one removes the same
function's entries made from other sources (``user_cache.is_entry`` names what is an entry; nothing else is
touched).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib.metadata
import sys
import types
from pathlib import Path

from prismpic import source_digest, user_cache

LIBRARIES = ("jax", "jaxlib", "numpy", "scipy", "diffrax", "equinox", "sax", "flatbuffers")
# functions from these packages are keyed by name (their code is fixed by the versions above and by prismpic's
# sources); a function from anywhere else is not describable
KNOWN_PACKAGES = ("prismpic", "jax", "jaxlib", "numpy", "scipy", "diffrax", "equinox", "sax", "builtins",
                  "math", "operator", "functools")
_ACTIVE = [0]  # how many ``enabled()`` blocks are open (a CLI command runs its work in another thread)
_PROGRAMS: dict[str, object] = {}  # key -> jitted call of the deserialized program, or None (not exportable)
_REGISTERED: set = set()  # pytree classes registered with jax.export's serialization
_SKIPPED: dict[str, str] = {}  # function -> why its program was not reused (this process)


class Unkeyable(Exception):
    """A value ``describe`` cannot turn into a key: the call runs without reuse."""


@contextlib.contextmanager
def enabled():
    """Reuse exported programs inside this block (the CLI wraps each command in it)."""
    _ACTIVE[0] += 1
    try:
        yield
    finally:
        _ACTIVE[0] -= 1


def forget() -> None:
    """Drop the programs read in this process (the next call reads its file again, as a new process would)."""
    _PROGRAMS.clear()
    _SKIPPED.clear()


def skipped() -> dict[str, str]:
    """{function: why its program was not reused} for the calls of this process inside ``enabled()``."""
    return dict(_SKIPPED)


def is_enabled() -> bool:
    """Whether ``reuse`` reads and writes the cache now (inside ``enabled()`` and the user cache is on)."""
    return _ACTIVE[0] > 0 and user_cache.ready_root() is not None


def _code(code: types.CodeType) -> str:
    consts = ",".join(_code(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts)
    raw = code.co_code + consts.encode() + ",".join(code.co_names).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def _describe_function(obj, depth: int) -> str:
    import numpy as np

    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] not in KNOWN_PACKAGES:
        raise Unkeyable(f"function {obj!r} from {module!r}")
    name = f"fn:{module}.{getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}"
    if isinstance(obj, types.FunctionType):
        cells = tuple(c.cell_contents for c in obj.__closure__ or ())
        return (f"{name}:{_code(obj.__code__)}:{describe(cells, depth + 1)}:{describe(obj.__defaults__, depth + 1)}"
                f":{describe(obj.__kwdefaults__, depth + 1)}")
    wrapped = getattr(obj, "__wrapped__", None)  # jax.jit, functools.wraps
    if wrapped is not None:
        return f"wrapped:{describe(wrapped, depth + 1)}"
    if isinstance(obj, (types.BuiltinFunctionType, np.ufunc)):
        return name
    raise Unkeyable(f"callable {obj!r}")


def describe(obj, depth: int = 0) -> str:
    """A text that changes whenever ``obj`` could change a traced program that closes over it (see the module
    docstring); raises ``Unkeyable`` for what it cannot describe."""
    if depth > 24:  # a ring fit's solver: its residual three closures down, each a function, its cells, a value
        raise Unkeyable("nested too deep")
    import jax
    import numpy as np

    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, np.generic)):
        return f"{type(obj).__name__}:{obj!r}"
    if isinstance(obj, jax.core.Tracer):
        raise Unkeyable("a traced value")
    if isinstance(obj, (np.ndarray, jax.Array)):
        a = np.ascontiguousarray(np.asarray(obj))
        return f"array:{a.dtype.str}:{a.shape}:{hashlib.sha256(a.tobytes()).hexdigest()[:16]}"
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a named tuple
        return f"{type(obj).__module__}.{type(obj).__qualname__}{describe(tuple(obj), depth + 1)}"
    if isinstance(obj, (tuple, list)):
        return f"{type(obj).__name__}(" + ",".join(describe(o, depth + 1) for o in obj) + ")"
    if isinstance(obj, (dict, types.MappingProxyType)):
        items = sorted((describe(k, depth + 1), describe(v, depth + 1)) for k, v in obj.items())
        return "dict(" + ",".join(f"{k}={v}" for k, v in items) + ")"
    if isinstance(obj, (set, frozenset)):
        return "set(" + ",".join(sorted(describe(o, depth + 1) for o in obj)) + ")"
    if isinstance(obj, functools.partial):
        return f"partial({describe(obj.func, depth + 1)},{describe(obj.args, depth + 1)}," \
               f"{describe(obj.keywords, depth + 1)})"
    if type(obj) is object:  # a sentinel (jax.vmap keeps one for "no axis name"): no data
        return "sentinel"
    if isinstance(obj, type):
        return f"type:{obj.__module__}.{obj.__qualname__}"
    if isinstance(obj, types.ModuleType):
        return f"module:{obj.__name__}"
    if dataclasses.is_dataclass(obj):
        fields = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
        return f"{type(obj).__module__}.{type(obj).__qualname__}{describe(fields, depth + 1)}"
    if callable(obj):
        return _describe_function(obj, depth)
    raise Unkeyable(f"{type(obj).__qualname__} value")


@functools.cache
def _environment() -> str:
    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name}={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name}=none")
    return f"{sys.version}|{'|'.join(versions)}"


def program_key(fn, args: tuple) -> str:
    """The cache key of ``fn(*args)``'s program (module docstring); raises ``Unkeyable``."""
    import jax
    import numpy as np

    leaves, tree = jax.tree_util.tree_flatten(args)
    shapes = []
    for x in leaves:
        if isinstance(x, jax.core.Tracer):
            raise Unkeyable("a traced argument")
        dtype = x.dtype if hasattr(x, "dtype") else np.result_type(x)
        shapes.append(f"{type(x).__name__}:{np.shape(x)}:{np.dtype(dtype).str}")
    described = describe(fn)
    text = "|".join((described, str(tree), ";".join(shapes), _environment(),
                     f"float={jax.dtypes.canonicalize_dtype(np.float64)}"))  # float64 on or off
    modules = sorted(source_digest.imported().modules_named(f"{described} {getattr(fn, '__module__', '')}."))
    function = hashlib.sha256(f"{_name(fn)}|{modules}".encode()).hexdigest()[:12]
    return (f"{function}-{user_cache.source_key(modules=modules)}-"
            f"{hashlib.sha256(text.encode()).hexdigest()[:32]}")


def _export(jitted, args: tuple, path: Path):
    from jax import export

    from prismpic.fileio import write_atomic

    exp = export.export(jitted)(*args)
    data = exp.serialize()
    function, sources = path.name.split("-")[:2]
    # the program folder's own entries: ``user_cache.entries`` would also stat every JAX entry (12,000 files in a
    # test run's cache: 0.3 s an export)
    held = sorted(path.parent.iterdir()) if path.parent.is_dir() and not path.parent.is_symlink() else []
    stale = [p for p in held if user_cache.is_entry(p, path.parents[1])
             and (p.name.count("-") < 2 or p.name.startswith(f"{function}-") and p.name.split("-")[1] != sources)]
    for old in stale:  # this function's programs traced from other sources, and entries of the older naming
        old.unlink(missing_ok=True)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    write_atomic(path, lambda fh: fh.write(data), binary=True)
    return exp


def _register(pytree_types: tuple) -> None:
    """Register named tuples, and dataclasses registered with ``jax.tree_util.register_dataclass`` (their static
    fields, the tree's auxiliary data, written as a Python literal), with ``jax.export``'s serialization."""
    import ast

    from jax import export

    for cls in pytree_types:
        if cls in _REGISTERED:
            continue
        name = f"{cls.__module__}.{cls.__qualname__}"
        if hasattr(cls, "_fields"):
            export.register_namedtuple_serialization(cls, serialized_name=name)
        else:
            export.register_pytree_node_serialization(
                cls, serialized_name=name, serialize_auxdata=lambda aux: repr(aux).encode(),
                deserialize_auxdata=lambda data: ast.literal_eval(data.decode()))
        _REGISTERED.add(cls)


def _name(fn) -> str:
    """The function's module and qualified name; a ``functools.partial`` is named by its function (its arguments
    are in the key's digest): a repr would carry a memory address, a new entry name every run."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{getattr(fn, '__module__', None) or type(fn).__module__}.{qualname}"


def _program(jitted, key: str, args: tuple, pytree_types: tuple = ()):
    """The jitted call of the cached program of ``key`` (read, or exported and written), None when it cannot be
    exported (a host callback, an output type JAX cannot serialize)."""
    import jax
    from jax import export

    if key in _PROGRAMS:
        return _PROGRAMS[key]
    try:
        _register(pytree_types)
    except Exception as e:  # noqa: BLE001  (a JAX without this registry)
        _SKIPPED[_name(jitted)] = f"not registered: {type(e).__name__}: {e}"
        _PROGRAMS[key] = None
        return None
    path = user_cache.ready_root() / user_cache.PROGRAM_FOLDER / f"{key}{user_cache.PROGRAM_SUFFIX}"
    exp = None
    try:
        exp = export.deserialize(bytearray(path.read_bytes()))
    except Exception:  # noqa: BLE001  (absent, unreadable, from another JAX: a cache miss, exported anew)
        pass
    if exp is None:
        try:
            exp = _export(jitted, args, path)
        except Exception as e:  # noqa: BLE001  (a host callback, an unregistered output type: run as usual)
            _SKIPPED[_name(jitted)] = f"not exported: {type(e).__name__}: {str(e)[:200]}"
    if exp is not None:
        _lapack_ready()
    _PROGRAMS[key] = None if exp is None else jax.jit(exp.call)
    return _PROGRAMS[key]


@functools.cache
def _lapack_ready() -> None:
    """Load the LAPACK kernels of XLA:CPU's linear-algebra calls. JAX loads them when it first lowers a ``solve``,
    ``cholesky``…; a deserialized program that calls them in a process that has lowered none crashes (a segfault on
    the next transfer; jax-ml/jax#29610, reproduced with JAX 0.9.2 on a 6 × 6 ``jnp.linalg.solve``)."""
    import numpy as np

    try:
        from jaxlib import lapack

        lapack.prepare_lapack_call("getrf", np.float64)
    except (ImportError, AttributeError):  # a jaxlib that loads them otherwise
        pass


def reuse(fn=None, *, pytree_types: tuple = ()):
    """``fn`` (jitted if it is not) whose program is reused across runs while ``is_enabled()`` (module
    docstring). ``fn`` takes arrays, pytrees of arrays and numbers; what it closes over is part of the key.
    ``pytree_types``: the named tuples and registered dataclasses in its inputs or outputs (``_register``).
    Usable as a decorator, with or without arguments."""
    if fn is None:
        return functools.partial(reuse, pytree_types=pytree_types)
    import jax

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)

    @functools.wraps(fn)
    def call(*args):
        if not is_enabled() or any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(args)):
            return jitted(*args)  # off, or inside the caller's trace (no derivatives in an exported program)
        try:
            key = program_key(fn, args)
        except Unkeyable as e:
            _SKIPPED[_name(fn)] = f"no key: {e}"
            return jitted(*args)
        program = _program(jitted, key, args, pytree_types)
        return jitted(*args) if program is None else program(*args)

    return call
