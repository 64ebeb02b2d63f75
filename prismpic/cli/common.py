"""What every command shares: the Typer app, consoles, the one error path, progress bars, option checks.

The error path (``cli_errors``): every command checks all its options and files before it starts
work (``check_out_file``, ``check_out_dir``, ``check_in_file``, ``parse_settings`` +
``check_settings``); a ``ValueError`` (library checks, option checks) or any ``OSError`` becomes one
line on stderr naming the option or file, the value and what is expected, and exit code 2. SIGTERM
and SIGHUP raise ``Terminated`` (a ``KeyboardInterrupt``) in the command, so the atomic writers
remove their temporaries as on Ctrl-C; the exit code is then 128 + the signal number (a signal whose
exception Python swallows, in a garbage-collector callback, is sent again). Anything else
is a bug: one line saying so, exit code 1. ``prismpic --debug COMMAND`` prints the traceback too.
Echoed values are printed literally (no Rich markup or emoji codes).
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import os
import signal
import sys
import threading
import traceback
import typing
from pathlib import Path

import typer
import typer.core
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn


def empty_argument(argv: list[str]) -> str | None:
    """The message for the first empty (or blank) value in ``argv`` (``--out ""``, ``--out=``), else None: an
    empty path would silently mean the current folder, an empty number or name is never meant."""
    for i, arg in enumerate(argv):
        option, eq, value = arg.partition("=")
        if arg.startswith("--") and eq and not value.strip():
            return f"{option} is given an empty value; give a value"
        if not arg.strip():
            before = argv[i - 1] if i and argv[i - 1].startswith("-") else None
            return (f"{before} = {arg!r} is empty; give a value" if before
                    else f"argument {i + 1} is empty ({arg!r}); give a value")
    return None


class CommandGroup(typer.core.TyperGroup):
    """The ``prismpic`` group: refuses empty argument values before any command parses them (one line, exit 2)."""

    def main(self, args=None, *rest, **kwargs):
        argv = list(sys.argv[1:] if args is None else args)
        message = empty_argument(argv)
        if message is not None:
            say(f"error: {message}", stderr=True)
            sys.exit(2)
        return super().main(argv, *rest, **kwargs)


# rich_markup_mode=None: usage errors are click's plain "Error: ..." line (a Rich panel wraps and boxes them)
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None, cls=CommandGroup,
                  help="Physics-level modeling of TFLN photonic chips.")
console = Console(emoji=False)
err_console = Console(stderr=True, emoji=False, highlight=False)
STATE = {"debug": False}
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")


VERSION_OF = ("gdsfactory", "sax", "jax", "klayout")  # the libraries whose versions shape the results


def version_line() -> str:
    """``prismpic X (gdsfactory Y, sax Z, ...)``: prismpic's version and the installed versions of its physics stack,
    read from the package metadata (nothing is imported)."""
    from importlib import metadata

    import prismpic

    def installed(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    return f"prismpic {prismpic.__version__} (" + ", ".join(f"{n} {installed(n)}" for n in VERSION_OF) + ")"


def _print_version(value: bool) -> None:
    if value:
        say(version_line())
        raise typer.Exit(0)


@app.callback()
def _global_options(
    debug: typing.Annotated[bool, typer.Option("--debug", help="print the Python traceback of an error")] = False,
    version: typing.Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                                 help="print the version of prismpic and its libraries, and exit")]
    = False,
):
    """Physics-level modeling of TFLN photonic chips."""
    STATE["debug"] = debug or os.environ.get("PRISMPIC_DEBUG", "") not in ("", "0")


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: unwinds like Ctrl-C, so that partial outputs are removed. (Raised without
    arguments in the command's thread, where ``PyThreadState_SetAsyncExc`` delivers it: the number comes from
    ``STATE``.)"""

    def __init__(self, signum: int | None = None):
        signum = STATE.get("signum", signal.SIGTERM) if signum is None else signum
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame):
    STATE["signum"] = signum
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def _unraisable(hook_args, previous=sys.unraisablehook):
    """Ctrl-C or a Terminated raised where Python swallows exceptions (a garbage-collector callback, ``__del__``)
    is delivered again, so that it unwinds the command instead of vanishing."""
    exc = hook_args.exc_value
    if isinstance(exc, KeyboardInterrupt):  # deliver it again in 10 ms, from another thread (delivered from here,
        # it would be raised at once, still inside the swallowing callback)
        thread = threading.current_thread()
        if thread is threading.main_thread():
            threading.Timer(0.01, os.kill, (os.getpid(), getattr(exc, "signum", signal.SIGINT))).start()
        else:  # the command's worker thread (``_run_interruptible``): the signal was already handled
            threading.Timer(0.01, _interrupt, (thread, type(exc))).start()
        return
    previous(hook_args)


def say(text: str, *, stderr: bool = False) -> None:
    """Print ``text`` literally (no markup, no emoji codes): for anything holding user input."""
    (err_console if stderr else console).print(text, markup=False, emoji=False, highlight=False, soft_wrap=True)


def _option_of(path: str, kwargs: dict) -> str | None:
    """The option whose path is ``path`` or whose hidden temporaries sit beside it (``.NAME.*``)."""
    p = Path(path)
    for key, val in kwargs.items():
        if isinstance(val, Path) and (p == val or (p.parent == val.parent and p.name.startswith(f".{val.name}."))
                                      or val in p.parents):
            return "--" + key.rstrip("_").replace("_", "-")
    return None


def _os_message(e: OSError, kwargs: dict) -> str:
    fname = getattr(e, "filename", None)
    reason = e.strerror or str(e)
    if fname is None:
        return f"{reason}"
    opt = _option_of(str(fname), kwargs)
    return f"{opt + ' = ' if opt else ''}{str(fname)!r}: {reason}"


STOP_GRACE_S = 0.5  # after a signal, how long the command may take to unwind before it is stopped at once


def _interrupt(thread: threading.Thread, exc: type[BaseException]) -> None:
    """Raise ``exc`` in ``thread`` at its next Python bytecode (CPython's ``PyThreadState_SetAsyncExc``)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc))


def _stop_now(code: int, message: str) -> typing.NoReturn:
    """The command is stuck in native code (an XLA compile): remove its temporaries, end the worker processes it
    started (a Dask LocalCluster), print the one line and exit at once."""
    import multiprocessing

    _abandon_temporaries()
    for child in multiprocessing.active_children():
        child.terminate()
    say(f"error: {message}", stderr=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _run_interruptible(fn, args, kwargs):
    """``fn(*args, **kwargs)`` in a worker thread while the main thread waits for signals: a signal is passed to
    the worker as an exception (the usual unwinding removes the temporaries); if the worker does not finish
    within ``STOP_GRACE_S`` (it is inside a compile, where Python runs no bytecode), the process stops at once
    (``_stop_now``), so SIGINT/SIGTERM/SIGHUP act within about a second."""
    box: dict = {}
    done = threading.Event()  # waited on instead of Thread.join, which an interrupt leaves thinking the worker
    # ended (CPython 3.11: _wait_for_tstate_lock marks the thread stopped when an exception interrupts it)

    def target():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001  (handed to the main thread, which maps it)
            box["error"] = e
        finally:
            done.set()

    worker = threading.Thread(target=target, name="prismpic-command", daemon=True)
    try:  # the signal may arrive as soon as the worker runs, before this thread is back from start()
        worker.start()
        while not done.wait(0.05):
            pass
    except KeyboardInterrupt as e:
        if worker.ident is None:  # the worker never started: nothing of the command to stop
            raise
        signum = getattr(e, "signum", signal.SIGINT)
        for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):  # one stop is enough
            if sig is not None:
                signal.signal(sig, signal.SIG_IGN)
        _interrupt(worker, Terminated if isinstance(e, Terminated) else KeyboardInterrupt)
        if not done.wait(STOP_GRACE_S):
            _stop_now(128 + signum, _stopped_message(signum))
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _abandon_temporaries(whole_process: bool = True) -> None:
    """After a stop has unwound the command: remove any temporary it still holds. The stop is raised in the
    command at an arbitrary bytecode, which may fall between a temporary's creation and the ``try`` that would
    have removed it (an ``atomic_dir`` body not yet entered); the registry knows it (``temporaries.register``).
    The registry is the process's: only a command that owns the process (run from the main thread, where the
    signals are handled) clears it; a command run from another thread leaves other threads' writes alone."""
    from prismpic import temporaries

    if whole_process:
        temporaries.abandon_live()


def _stopped_message(signum: int) -> str:
    if signum == signal.SIGINT:
        return "interrupted; outputs not written (temporary files removed)"
    return f"terminated by signal {signum}; outputs not written (temporary files removed)"


def cli_errors(fn):
    """The one error path of every command (see the module docstring)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        previous = {}
        hook = sys.unraisablehook
        in_main = threading.current_thread() is threading.main_thread()
        if in_main:
            for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
                if sig is not None:
                    previous[sig] = signal.signal(sig, _raise_terminated)
            sys.unraisablehook = functools.partial(_unraisable, previous=hook)
        from prismpic import program_cache, user_cache

        user_cache.enable_compilation_cache()  # compiled programs reused across runs (prismpic/user_cache.py)
        try:
            with program_cache.enabled():  # and traced ones (prismpic/program_cache.py)
                return _run_interruptible(fn, args, kwargs) if in_main else fn(*args, **kwargs)
        except typer.Exit:
            raise
        except ValueError as e:  # library and option checks (also fileio.OutputError)
            _fail(str(e), 2)
        except OSError as e:  # a file the checks could not foresee (permissions changed, disk full, ...)
            _fail(_os_message(e, kwargs), 2)
        except Terminated as e:
            _abandon_temporaries(in_main)
            _fail(_stopped_message(e.signum), 128 + e.signum)
        except KeyboardInterrupt:
            _abandon_temporaries(in_main)
            _fail(_stopped_message(signal.SIGINT), 130)
        except Exception as e:  # noqa: BLE001  (a bug, not bad input: say so in one line)
            _fail(f"internal error ({type(e).__name__}: {e}); this is a bug in prismpic — rerun with "
                  "--debug for the traceback and report it", 1)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            sys.unraisablehook = hook

    return wrapper


def _fail(message: str, code: int):
    if STATE["debug"]:
        err_console.print(traceback.format_exc(), markup=False, emoji=False, highlight=False)
    say(f"error: {' '.join(message.splitlines())}", stderr=True)  # one line (values otherwise as they are)
    raise typer.Exit(code) from None


def progress_bar() -> Progress:
    """A Rich progress bar on stderr."""
    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )


# ---------------------------------------------------------------------------- options
def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_settings(items: list[str] | None, option: str = "--set", *, fn=None, platform: str | None = None,
                   exclude: tuple[str, ...] = ()) -> dict:
    """Parse ``key=value`` pairs (values as JSON where possible, else strings); ValueError naming ``option``.

    A platform preset (``platform``, from ``--platform``, or ``platform=NAME`` among the pairs) adds its values
    for ``fn``'s parameters (``pdk.platforms.preset_settings``) except those in ``exclude``; the pairs win.
    Without ``fn`` the command takes no preset and ``platform=`` is refused."""
    out = {}
    for item in items or []:
        k, sep, v = item.partition("=")
        k = k.strip()
        if not sep or not k.isidentifier():
            raise ValueError(f"{option} {item!r} must look like key=value (key a parameter name)")
        if k in out:
            raise ValueError(f"{option} {k} is given twice")
        out[k] = _parse_value(v.strip())
    named = out.pop("platform", None)
    if named is None and platform is None:
        return out
    if fn is None:
        raise ValueError(f"{option} platform = {named!r}: this command takes no platform preset")
    if named is not None and platform is not None and named != platform:
        raise ValueError(f"--platform = {platform!r} and {option} platform = {named!r} disagree; give one")
    from prismpic.pdk.platforms import get_platform, preset_settings

    preset = get_platform(platform, "--platform") if platform is not None else get_platform(named, f"{option} platform")
    return {**{k: v for k, v in preset_settings(preset, fn).items() if k not in exclude}, **out}


def platform_help(what: str) -> str:
    """The help text of a command's ``--platform`` option: the preset names and what ``what`` takes from it."""
    from prismpic.pdk.platforms import platform_names

    return f"stack preset ({', '.join(platform_names())}): {what}; --set values win (also --set platform=NAME)"


def chosen_platform(items: list[str] | None, platform: str | None, option: str = "--set"):
    """The preset a command runs on: ``--platform`` or ``platform=NAME`` among the ``--set`` pairs (they must
    agree), as a ``Platform``; None when neither names one. ValueError naming the option for an unknown name."""
    from prismpic.pdk.platforms import get_platform

    named = [_parse_value(i.partition("=")[2].strip()) for i in items or [] if i.partition("=")[0].strip() == "platform"]
    if named and platform is not None and named[0] != platform:
        raise ValueError(f"--platform = {platform!r} and {option} platform = {named[0]!r} disagree; give one")
    if platform is not None:
        return get_platform(platform, "--platform")
    return get_platform(named[0], f"{option} platform") if named else None


def _is_number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _expected_kind(default, annotation) -> str | None:
    """``"number"``, ``"integer"``, ``"bool"`` or None (anything else) for a parameter, from its annotation
    (a string under ``from __future__ import annotations``) or else its default."""
    if annotation is not inspect.Parameter.empty:
        names = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
        parts = {t.strip() for t in names.replace("Optional[", "").rstrip("]").split("|")} - {"None"}
        parts = {"float" if t in ("FloatLike", "FloatArrayLike") else t for t in parts}  # model_signature aliases
        if parts == {"bool"}:
            return "bool"
        if parts == {"int"}:
            return "integer"
        if parts and parts <= {"float", "int"}:
            return "number"
        if parts:
            return None
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "integer"
    if isinstance(default, float):
        return "number"
    return None


def parameters_of(fn) -> dict[str, inspect.Parameter]:
    """The keyword parameters of ``fn`` (a cell, a SAX model or any function), ``**kwargs`` excluded."""
    sig = inspect.signature(fn)
    return {k: p for k, p in sig.parameters.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


def check_settings(fn, settings: dict, option: str = "--set", *, exclude: tuple[str, ...] = (),
                   what: str | None = None) -> dict:
    """Check ``settings`` against ``fn``'s parameters before any work: known names, numbers where the
    parameter is numeric (an integer where it is an integer, true/false where it is a flag), finite."""
    params = parameters_of(fn)
    valid = sorted(k for k in params if k not in exclude)
    what = what or getattr(fn, "__name__", "the function")
    for k, v in settings.items():
        if k not in valid:
            raise ValueError(f"{option} {k}: {what} has no parameter {k!r}; valid: {valid}")
        p = params[k]
        kind = _expected_kind(p.default, p.annotation)
        if kind == "bool" and not isinstance(v, bool):
            raise ValueError(f"{option} {k} = {v!r} must be true or false")
        if kind in ("number", "integer"):
            if v is None and p.default is None:
                continue
            if not _is_number(v):
                raise ValueError(f"{option} {k} = {v!r} must be a number")
            if not math.isfinite(v):
                raise ValueError(f"{option} {k} = {v!r} must be a finite number")
            if kind == "integer" and not float(v).is_integer():
                raise ValueError(f"{option} {k} = {v!r} must be an integer")
            if kind == "integer":
                settings[k] = int(v)
    return settings


def check_out_file(path: Path, option: str = "--out", *, suffixes: tuple[str, ...] = (),
                   need_bytes: float = 0) -> Path:
    """An output file checked before any work (``fileio.check_output_file``), named by its option."""
    from prismpic.fileio import check_output_file

    return check_output_file(path, option, suffixes=suffixes, need_bytes=need_bytes)


def check_out_dir(path: Path, option: str = "--out", *, need_bytes: float = 0) -> Path:
    """An output folder checked before any work (``fileio.check_output_dir``), named by its option."""
    from prismpic.fileio import check_output_dir

    return check_output_dir(path, option, need_bytes=need_bytes)


def check_out_clear_of_inputs(out: Path, inputs, option: str = "--out") -> None:
    """ValueError when the output folder ``out`` is or contains one of ``inputs`` (``fileio.check_out_clear_of_inputs``)."""
    from prismpic.fileio import check_out_clear_of_inputs as check

    check(out, inputs, option)


def check_in_file(path: Path, option: str) -> Path:
    """An input file that exists, is a file and can be read (ValueError naming ``option`` otherwise)."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"{option} = {str(path)!r} does not exist")
    if not path.is_file():
        raise ValueError(f"{option} = {str(path)!r} is not a file")
    try:
        with path.open("rb"):
            pass
    except OSError as e:
        raise ValueError(f"{option} = {str(path)!r} cannot be read ({e.strerror})") from None
    return path


def check_distinct(**paths: Path | None) -> None:
    """ValueError if two options name the same file (one output would overwrite the other or the input)."""
    seen: dict[Path, str] = {}
    for opt, p in paths.items():
        if p is None:
            continue
        key = Path(os.path.abspath(p))
        name = "--" + opt.rstrip("_").replace("_", "-")
        if key in seen:
            raise ValueError(f"{name} = {str(p)!r} is the same file as {seen[key]}; give different files")
        seen[key] = name


def load_params(path: Path | None) -> dict:
    """A parameter file (e.g. written by ``prismpic calibrate``), checked by ``calibration.load_params``; {} for None."""
    from prismpic.analysis.calibration import load_params as load_checked

    if path is None:
        return {}
    check_in_file(path, "--params")
    return load_checked(path)
