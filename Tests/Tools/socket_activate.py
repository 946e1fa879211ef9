#!/usr/bin/env python3
"""Starts a command the way systemd socket activation does, for tests.

Binds and listens on a Unix stream socket, passes it as file descriptor 3 and
sets LISTEN_FDS=1 and LISTEN_PID to the command's pid (the same process: this
script execs the command), like systemd does for a .socket unit.

Usage: socket_activate.py SOCKET_PATH COMMAND [ARGS...]
"""
import os
import socket
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, command = sys.argv[1], sys.argv[2:]
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o660)
    s.listen(64)
    fd = s.fileno()
    if fd != 3:
        os.dup2(fd, 3)
        s.close()
    os.set_inheritable(3, True)
    env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()), LISTEN_FDNAMES="moonrunnerd.socket")
    os.execve(command[0], command, env)


if __name__ == "__main__":
    main()
