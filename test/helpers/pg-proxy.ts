import net from 'node:net';

/** A statement a client sent, as the proxy saw it on the wire. */
export interface SentStatement {
  /** When it was sent (Date.now()). */
  at: number;
  /** The client connection's number (1, 2, ... in the order they connected). */
  connection: number;
  /** The PostgreSQL backend serving that connection (its BackendKeyData), as NOTIFY's sender is named. */
  backendPid?: number;
  text: string;
  /** Sent inside a transaction block (after BEGIN, before COMMIT or ROLLBACK). */
  inTransaction: boolean;
}

export interface PgProxy {
  /** `url` with its host and port replaced by the proxy's. */
  url: string;
  statements: SentStatement[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

/**
 * A TCP proxy in front of PostgreSQL that records every statement its clients send: a simple query ('Q') or an
 * execution of the extended protocol ('E', with the text of the statement its portal binds). What a process sends is
 * read off the wire, exactly, whatever its driver logs; the server's answers name each connection's backend and
 * whether it is inside a transaction block (ReadyForQuery).
 */
export async function startPgProxy(targetUrl: string): Promise<PgProxy> {
  const target = new URL(targetUrl);
  const statements: SentStatement[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;

  const server = net.createServer((client) => {
    const connection = ++connections;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const state = { backendPid: undefined as number | undefined, status: 'I' };
    const fromClient = clientParser((text) =>
      statements.push({ at: Date.now(), connection, backendPid: state.backendPid, text, inTransaction: state.status !== 'I' }),
    );
    const fromServer = serverParser(state);
    client.on('data', (chunk) => {
      fromClient(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      fromServer(chunk);
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    statements,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Length-prefixed messages out of a byte stream, the first ones (until the startup message) without a type byte. */
function framer(onMessage: (type: string, body: Buffer) => void, untypedFirst: boolean) {
  let buffer = Buffer.alloc(0);
  let untyped = untypedFirst;
  return (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (untyped) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const code = buffer.readInt32BE(4);
        buffer = buffer.subarray(length);
        // An SSL or GSS request is followed by another untyped message; the startup message (or a cancel) ends them.
        if (code !== SSL_REQUEST && code !== GSS_REQUEST) untyped = false;
        if (code === CANCEL_REQUEST) return;
        continue;
      }
      if (buffer.length < 5) return;
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) return;
      onMessage(String.fromCharCode(buffer[0]), buffer.subarray(5, 1 + length));
      buffer = buffer.subarray(1 + length);
    }
  };
}

const cstring = (body: Buffer, from: number): [string, number] => {
  const end = body.indexOf(0, from);
  return [body.toString('utf8', from, end), end + 1];
};

function clientParser(sent: (text: string) => void) {
  const prepared = new Map<string, string>();
  const portals = new Map<string, string>();
  return framer((type, body) => {
    if (type === 'Q') sent(cstring(body, 0)[0]);
    else if (type === 'P') {
      const [name, at] = cstring(body, 0);
      prepared.set(name, cstring(body, at)[0]);
    } else if (type === 'B') {
      const [portal, at] = cstring(body, 0);
      portals.set(portal, prepared.get(cstring(body, at)[0]) ?? '?');
    } else if (type === 'E') sent(portals.get(cstring(body, 0)[0]) ?? '?');
  }, true);
}

function serverParser(state: { backendPid: number | undefined; status: string }) {
  // The server answers an SSL request with one byte before anything else; node-postgres sends none without ssl.
  return framer((type, body) => {
    if (type === 'K') state.backendPid = body.readInt32BE(0);
    else if (type === 'Z') state.status = String.fromCharCode(body[0]);
  }, false);
}
