"""Free TCP ports for the tests of listen=."""
import socket


def free_pair():
    """A port P with P and P+1 both free on 127.0.0.1 (the kernel's choice)."""
    for _ in range(50):
        a = socket.socket()
        a.bind(("127.0.0.1", 0))
        p = a.getsockname()[1]
        b = socket.socket()
        try:
            b.bind(("127.0.0.1", p + 1))
            return p, (a, b)
        except OSError:
            pass
        finally:
            b.close()
            a.close()
    raise RuntimeError("no two free ports in a row")
