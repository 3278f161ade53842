"""Raw HTTP/1.1 over one TCP connection, for the tests that must send what
no HTTP client library would (pipelined requests, a body before reading,
garbage): `exchange` sends the bytes and reads until the server closes."""
import socket


def exchange(port, request, shutdown=False, timeout=None):
    """Sends `request` (bytes) to 127.0.0.1:port, optionally half-closes the
    connection, and returns every byte the server sends until it closes."""
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=timeout)
    try:
        s.sendall(request)
        if shutdown:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            b = s.recv(1 << 20)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)
    finally:
        s.close()
