"""What every command-line tool in profiling/ shares, so that each answers bad input the same way:
one line on stderr and a non-zero exit, never a traceback, and never a half-written output.

    exit 2  the command line itself is wrong (argparse's judgement: a missing or unknown option,
            a value of the wrong form or range), as `error: ...`
    exit 1  anything found wrong after that, in a file, its contents or this machine, as
            `error: FILE: what is wrong` (or `error: what is wrong` when no file is involved)

A tool reads and checks all its inputs before it opens any output, and writes each output with
`atomic_output`: into a temporary file beside it, renamed over it only once complete. Interrupted
(Ctrl-C, SIGTERM, SIGHUP), it cleans up as after an error, says so in one line and exits with
128 + the signal's number (130 for Ctrl-C), as a shell reports a program the signal ended.
"""
import argparse
import contextlib
import math
import os
import pathlib
import signal
import subprocess
import sys
import tempfile


class ToolError(Exception):
    """Bad input, said in one line: `ToolError("what is wrong", path)`."""

    def __init__(self, what: str, path=None):
        super().__init__(f"{path}: {what}" if path is not None else what)


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with its usage errors in one line (and exit 2) like every other error."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def positive_number(text: str) -> float:
    """An argparse type: a finite number above zero."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"needs a finite number above zero, not '{text}'")
    return value


class Interrupted(BaseException):
    """SIGTERM or SIGHUP, raised where the program is, as Ctrl-C raises KeyboardInterrupt, so that
    whatever it was writing is cleaned up (Python's default for them ends it on the spot)."""

    def __init__(self, signal_number: int):
        super().__init__(signal.Signals(signal_number).name)
        self.signal_number = signal_number


STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
deferred_signal = None  # while run_child starts a child: the signal that came meanwhile (0: none yet)


def interrupt(signal_number: int):
    raise KeyboardInterrupt if signal_number == signal.SIGINT else Interrupted(signal_number)


def on_stopping_signal(signal_number, _frame):
    global deferred_signal
    if deferred_signal is not None:  # a child is being started: raised once run_child holds it
        deferred_signal = deferred_signal or signal_number
        return
    interrupt(signal_number)


def stop_cleanly_on_signals() -> None:
    """From now on SIGINT raises KeyboardInterrupt and SIGTERM and SIGHUP raise Interrupted (a
    signal this process was started ignoring stays ignored)."""
    for s in STOPPING_SIGNALS:
        if signal.getsignal(s) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(s, on_stopping_signal)


def run_child(command: list, **options) -> subprocess.CompletedProcess:
    """subprocess.run (with Popen's `options`), the child in a process group of its own with
    whatever it starts (a build's compilers, ctest's test programs, a profiled benchmark): when
    this program is interrupted, even while the child starts, the whole group is stopped with it
    and none of it is left running."""
    global deferred_signal
    deferred_signal = 0
    try:
        child = subprocess.Popen(command, start_new_session=True, **options)
    except BaseException:
        deferred_signal = None
        raise
    with child:
        try:
            pending, deferred_signal = deferred_signal, None
            if pending:
                interrupt(pending)
            out, err = child.communicate()
        except BaseException as error:
            stop_group(child, error.signal_number if isinstance(error, Interrupted) else signal.SIGINT)
            raise
    return subprocess.CompletedProcess(command, child.returncode, out, err)


def stop_group(child: subprocess.Popen, signal_number: int) -> None:
    """Sends the child's process group the signal, gives it 10 s to end, then kills what remains."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal_number)
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)  # the child, if still there, and any of its own that outlived it
    child.wait()


def interruption(error: BaseException) -> tuple[str, int]:
    """The name of the signal behind a KeyboardInterrupt or Interrupted, and the exit status it gives."""
    number = error.signal_number if isinstance(error, Interrupted) else signal.SIGINT
    return signal.Signals(number).name, 128 + number


def run(main) -> None:
    """Runs a tool's main() and exits with its status; bad input ends as one line and status 1, an
    interruption as one line and 128 + the signal's number."""
    stop_cleanly_on_signals()
    try:
        status = main()
    except ToolError as error:
        sys.exit(f"error: {error}")
    except OSError as error:  # a file or folder the system refused: its name and the reason
        where = f"{error.filename}: " if error.filename is not None else ""
        sys.exit(f"error: {where}{error.strerror or error}")
    except (KeyboardInterrupt, Interrupted) as error:
        name, status = interruption(error)
        print(f"error: interrupted by {name}", file=sys.stderr)
        sys.exit(status)
    sys.exit(status)


def read_text(path, what: str) -> str:
    """The text of an input file that must not be empty; `what` names what it should hold."""
    path = pathlib.Path(path)
    if path.is_dir():
        raise ToolError(f"is a folder, not {what}", path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ToolError(f"no such file (expected {what})", path) from None
    except UnicodeDecodeError:
        raise ToolError(f"not text, so not {what}", path) from None
    if not text.strip():
        raise ToolError(f"is empty, not {what}", path)
    return text


def check_output_file(path) -> None:
    """Fails unless `path` can be written: its folder exists and is writable, and it is no folder
    itself. Call it before the work."""
    path = pathlib.Path(path)
    if path.is_dir():
        raise ToolError("is a folder: give a file name", path)
    folder = path.parent
    if not folder.is_dir():
        raise ToolError("no such folder to write into" if not folder.exists() else "is not a folder", folder)
    if not os.access(folder, os.W_OK):
        raise ToolError("this user cannot write into it", folder)


def output_folder(path) -> pathlib.Path:
    """Creates (if needed) a folder for outputs, failing in one line when it cannot."""
    path = pathlib.Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ToolError("is a file, not a folder for the outputs", path) from None
    except OSError as error:
        raise ToolError(f"cannot create this folder ({error.strerror})", path) from None
    if not os.access(path, os.W_OK):
        raise ToolError("this user cannot write into this folder", path)
    return path


@contextlib.contextmanager
def atomic_output(path, binary: bool = False):
    """`with atomic_output(path) as f: f.write(...)`: `path` appears (or is replaced) only once
    the block has finished; if it fails, `path` is left as it was and nothing else remains."""
    path = pathlib.Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb" if binary else "w", **({} if binary else {"newline": ""})) as f:
            yield f
        # mkstemp makes the file private; give it the mode the file had, or a new file's
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~current_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
