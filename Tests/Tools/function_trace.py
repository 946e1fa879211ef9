#!/usr/bin/env python3
"""Runs a program under ptrace with a one-shot breakpoint on the first byte of
every function of its own binary, and writes the name of each function that
ran, in the order they first ran (for text_order.py). A breakpoint is removed
when it is hit, so the program runs at full speed once its code is warm.

    function_trace.py --out FILE -- PROGRAM ARGS...

SIGTERM and SIGINT sent to this script go to the program. x86_64 and aarch64
(the register holding the program counter is all that differs).
"""
import ctypes
import os
import platform
import signal
import struct
import subprocess
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]

PTRACE_TRACEME, PTRACE_PEEKTEXT, PTRACE_POKETEXT, PTRACE_CONT = 0, 1, 4, 7
PTRACE_GETREGSET, PTRACE_SETREGSET, PTRACE_SETOPTIONS = 0x4204, 0x4205, 0x4200
PTRACE_O_TRACECLONE, PTRACE_O_EXITKILL, PTRACE_EVENT_CLONE = 0x8, 0x100000, 3
NT_PRSTATUS, WALL = 1, 0x40000000
ARM = platform.machine() == "aarch64"
# The breakpoint instruction and where the program counter is in NT_PRSTATUS.
TRAP = b"\x00\x00\x20\xd4" if ARM else b"\xcc"
PC_INDEX = 32 if ARM else 16  # aarch64: x0..x30, sp, pc; x86_64: user_regs_struct's rip
REWIND = 0 if ARM else 1      # x86_64 reports the address after int3


class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def ptrace(request, pid, addr=0, data=0):
    ctypes.set_errno(0)
    r = libc.ptrace(request, pid, ctypes.c_void_p(addr), ctypes.c_void_p(data))
    if r == -1 and ctypes.get_errno():
        raise OSError(ctypes.get_errno(), f"ptrace({request}) on {pid}")
    return r


def peek(pid, addr):
    return struct.pack("<q", ptrace(PTRACE_PEEKTEXT, pid, addr))


def poke(pid, addr, word):
    ptrace(PTRACE_POKETEXT, pid, addr, struct.unpack("<q", word)[0])


def write_bytes(pid, addr, data):
    word = bytearray(peek(pid, addr))
    word[:len(data)] = data
    poke(pid, addr, bytes(word))


def regs(pid):
    buf = (ctypes.c_uint64 * 64)()
    iov = IOVec(ctypes.cast(buf, ctypes.c_void_p), ctypes.sizeof(buf))
    ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, ctypes.addressof(iov))
    return buf, iov


def functions(binary):
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    names = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW":
            names.setdefault(int(f[0], 16), f[2])
    return names


def main():
    args = sys.argv[1:]
    if len(args) < 4 or args[0] != "--out" or args[2] != "--":
        sys.exit(__doc__)
    out, program = args[1], args[3:]
    binary = os.path.realpath(program[0])
    names = functions(binary)
    child = os.fork()
    if child == 0:
        ptrace(PTRACE_TRACEME, 0)
        os.execv(program[0], program)
    _, status = os.waitpid(child, WALL)  # stopped at exec: the binary is mapped, nothing of it has run
    ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)
    base = next(int(l.split("-")[0], 16) for l in open(f"/proc/{child}/maps")
                if l.split()[-1] == binary and int(l.split()[2], 16) == 0)
    original = {}
    for addr in sorted(names):
        where = base + addr
        original[where] = peek(child, where)[:len(TRAP)]
        write_bytes(child, where, TRAP)
    ran, hit = [], set()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, _f: os.kill(child, s))
    ptrace(PTRACE_CONT, child, 0, 0)
    while True:
        try:
            pid, status = os.waitpid(-1, WALL)
        except InterruptedError:
            continue
        except ChildProcessError:
            break
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            if pid == child:
                break
            continue
        if not os.WIFSTOPPED(status):
            continue
        sig, deliver = os.WSTOPSIG(status), 0
        if sig == signal.SIGTRAP and status >> 16 == PTRACE_EVENT_CLONE:
            pass
        elif sig == signal.SIGTRAP:
            buf, iov = regs(pid)
            where = buf[PC_INDEX] - REWIND
            if where in original:
                if where not in hit:
                    hit.add(where)
                    ran.append(names[where - base])
                    write_bytes(pid, where, original[where])
                buf[PC_INDEX] = where
                ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, ctypes.addressof(iov))
            else:
                deliver = sig
        elif sig != signal.SIGSTOP:
            deliver = sig
        try:
            ptrace(PTRACE_CONT, pid, 0, deliver)
        except OSError:
            pass  # the thread is gone
    with open(out, "w") as f:
        f.write("\n".join(ran) + "\n")
    code = os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) or os.WIFSIGNALED(status) else 0
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
