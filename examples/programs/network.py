# pass: the network namespace has only loopback; the outside is unreachable
import socket, threading
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen()
port = srv.getsockname()[1]
threading.Thread(target=lambda: srv.accept()[0].sendall(b"pong"), daemon=True).start()
print("loopback:", socket.create_connection(("127.0.0.1", port)).recv(4).decode())
s = socket.socket(); s.settimeout(1)
print("outside connect errno:", s.connect_ex(("1.1.1.1", 80)))
