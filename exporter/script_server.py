#!/usr/bin/env python3
"""Runs kforge's own Python scripts in forks of one warm interpreter.

A fresh interpreter spends about 3 s importing torch and torch.fx's tracer (sympy) before an
export does any work; an export itself takes a fraction of that. This server imports them once
and answers each request in a fork of itself, so that a run of many exports (the test suite, a
KernelBench level) pays the imports once. kforge uses it where KFORGE_SCRIPT_SERVER names its
socket and the request's interpreter is the server's (evaluation/python_scripts.cpp); anything
else, or a server that cannot be reached, runs the script in a fresh interpreter as before.

Each request runs as the script would from a shell: a new process (a fork of the server, never
the server itself) with the request's environment, working directory and arguments, its
`__main__` the script, stdout and stderr into one pipe, its exit status as Python's. Torch is
imported in the server but never used there (no threads, no CUDA), so every fork starts from the
state a fresh interpreter has after `import torch`.

Protocol (a Unix stream socket; one request per connection): the client sends one JSON line
  {"python": PATH, "script": PATH, "args": [...], "env": {NAME: VALUE}, "cwd": DIR,
   "output_limit": BYTES}
and reads one JSON object until the server closes: {"exit_code": N, "signal": S, "output": TEXT}
or {"refused": WHY} (an interpreter other than the server's, a script outside this folder).
A client that closes its end before the answer (its deadline passed) kills the script's process
group; one that sends no request within a minute is dropped, and holds up no other (each
connection is read in a fork of its own). {"stop": true}, or SIGTERM, ends the server.

Usage: script_server.py --socket PATH --python PATH [--idle-seconds N] [--detach [--optional]]
       script_server.py --socket PATH --stop
  --python: the interpreter path clients name (the server answers only requests naming it, and
            runs as it: started by another, it executes itself again with this one)
  --detach: return once the socket listens, the server running on in its own session
  --optional: with --detach, exit 0 where it cannot listen (the test suite's fixture: its tests
              then run fresh interpreters rather than not at all)
  --stop: stop the server on PATH (nothing to do where none listens)
Exit status: 0 when it stopped (idle, stopped, or detached and listening), 1 when it could not
listen (the reason on stderr).
"""
import argparse
import ctypes
import json
import os
import select
import signal
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PR_SET_PDEATHSIG = 1


def die_with_parent():
    """The calling process gets SIGKILL when the process that forked it ends."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def run_script(request, write_fd):
    """In the fork that becomes the script: its environment, folder, arguments and streams, then
    the script as __main__. Never returns."""
    code = 1
    try:
        os.setpgid(0, 0)
        die_with_parent()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(write_fd, 1)
        os.dup2(write_fd, 2)
        os.close(write_fd)
        os.environ.clear()
        os.environ.update(request.get("env", {}))
        os.chdir(request.get("cwd") or "/")
        script = request["script"]
        sys.argv = [script] + [str(a) for a in request.get("args", [])]
        # As an interpreter started with the request's environment would: the script's folder,
        # then the caller's PYTHONPATH, then the rest (torch's thread settings, read at import,
        # stay the server's).
        extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[0:1] = [os.path.dirname(script)] + [os.path.abspath(p) for p in extra]
        import runpy

        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:  # as an interpreter reports an uncaught exception: traceback, exit 1
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code & 0xFF)


def refusal(request, python):
    if request.get("python") != python:
        return f"this server runs {python}, not {request.get('python')}"
    script = os.path.realpath(str(request.get("script", "")))
    if os.path.dirname(script) != os.path.realpath(HERE) or not script.endswith(".py"):
        return f"{request.get('script')} is not one of kforge's scripts ({HERE})"
    return None


def read_request(conn):
    """The request line; a client that sends none within a minute gets no answer."""
    conn.settimeout(60)
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    conn.settimeout(None)
    return json.loads(data.decode("utf-8"))


def answer(conn, request, python):
    """In a fork of the server, one connection: the script in a fork of this one, its output
    collected up to the limit, its status sent back; the script's group killed if the client
    goes away first."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    why = refusal(request, python)
    if why:
        conn.sendall(json.dumps({"refused": why}).encode())
        return
    limit = int(request.get("output_limit", 1 << 20))
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        conn.close()
        os.close(read_fd)
        run_script(request, write_fd)
    os.close(write_fd)
    output, dropped = bytearray(), 0
    client_open = True
    while True:
        ready, _, _ = select.select([read_fd, conn], [], [])
        if conn in ready and not conn.recv(1):
            client_open = False
            break
        if read_fd in ready:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            room = max(0, limit - len(output))
            output += chunk[:room]
            dropped += len(chunk) - min(room, len(chunk))
    if not client_open:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    if not client_open:
        return
    text = output.decode("utf-8", "replace")
    if dropped:
        text += f"\n[kforge: {dropped} more bytes of output dropped]\n"
    reply = {"exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1,
             "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0, "output": text}
    conn.sendall(json.dumps(reply).encode())


class Stopped(Exception):
    pass


def stopped(signum, frame):
    raise Stopped()


def handle(conn, python, server):
    """In a fork of the server (pid `server`), one connection: its request read here, so that a
    client that sends nothing holds up no other."""
    try:
        request = read_request(conn)
    except (ValueError, OSError):
        return
    if request.get("stop"):
        if os.getppid() == server:
            os.kill(server, signal.SIGTERM)
        return
    answer(conn, request, python)


def serve(listener, python, idle_seconds):
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the answering forks are reaped by the kernel
    signal.signal(signal.SIGTERM, stopped)
    listener.settimeout(idle_seconds)
    server = os.getpid()
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                return
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                listener.close()
                code = 0
                try:
                    handle(conn, python, server)
                except BaseException:
                    code = 1
                finally:
                    os._exit(code)
            conn.close()
    except Stopped:
        return


def stop(path):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(path)
        client.sendall(b'{"stop": true}\n')
    except OSError:
        pass  # no server there: nothing to stop
    finally:
        client.close()
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True, help="the Unix socket to listen on")
    parser.add_argument("--python", help="the interpreter path clients name")
    parser.add_argument("--idle-seconds", type=float, default=600, help="stop after this long without a request")
    parser.add_argument("--detach", action="store_true", help="return once listening")
    parser.add_argument("--stop", action="store_true", help="stop the server on --socket")
    parser.add_argument("--optional", action="store_true",
                        help="with --detach: exit 0 where it cannot listen (clients then run fresh interpreters)")
    opts = parser.parse_args()
    path = os.path.abspath(opts.socket)
    if opts.stop:
        return stop(path)
    if not opts.python:
        parser.error("--python is required to serve")
    if os.path.realpath(sys.executable) != os.path.realpath(opts.python):
        # Started by another interpreter (a `python3` on PATH without torch): serve as --python.
        try:
            os.execv(opts.python, [opts.python, os.path.abspath(__file__)] + sys.argv[1:])
        except OSError as e:
            print(f"script server: cannot run {opts.python}: {e}", file=sys.stderr)
            return 1
    if len(path.encode()) > 107:
        print(f"script server: {path} is too long for a Unix socket (107 bytes at most)", file=sys.stderr)
        return 0 if opts.optional else 1

    ready_r, ready_w = os.pipe()
    if opts.detach and os.fork() != 0:
        os.close(ready_w)
        said = os.read(ready_r, 4096).decode()
        if said != "ok":
            print(said or "script server: it ended before it listened", file=sys.stderr)
            if opts.optional:
                print("script server: none started; clients run fresh interpreters", file=sys.stderr)
                return 0
            return 1
        return 0
    os.close(ready_r)

    def report(text):
        if opts.detach:
            os.write(ready_w, text.encode())
            os.close(ready_w)
        elif text != "ok":
            print(text, file=sys.stderr)

    if opts.detach:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
    try:
        import torch  # noqa: F401  (what every export imports; never used here)
        import torch.fx.experimental.proxy_tensor  # noqa: F401  (make_fx, and sympy under it)
    except ImportError as e:
        report(f"script server: {opts.python} cannot import torch: {e}")
        return 1
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.exists(path):
            os.unlink(path)
        listener.bind(path)
        os.chmod(path, 0o600)
        ours = os.stat(path).st_ino
        listener.listen(64)
    except OSError as e:
        report(f"script server: cannot listen on {path}: {e}")
        return 1
    report("ok")
    try:
        serve(listener, opts.python, opts.idle_seconds)
    finally:
        listener.close()
        try:
            if os.stat(path).st_ino == ours:  # not a newer server's socket on the same path
                os.unlink(path)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
