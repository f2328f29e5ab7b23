import { SMTPServer } from 'smtp-server';
import { createInbox } from './inbox.js';
import { startTestServer, type TestServer } from './server.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message: headers and body. */
  raw: string;
  subject: string;
  headers: Record<string, string>;
  body: string;
}

export interface MailBox {
  /** smtp://127.0.0.1:<port> */
  url: string;
  readonly mails: ReceivedMail[];
  waitFor(match?: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** Headers of a raw message, unfolded, names lower-cased. */
function parse(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  // Quoted-printable soft breaks and escapes, enough for the plain-text bodies sent here.
  let body = raw.slice(split + 4);
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
    body = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return { headers, body };
}

/** A real SMTP server on 127.0.0.1 (the smtp-server package) that keeps every message it accepts. */
export async function startMailBox(): Promise<MailBox> {
  const inbox = createInbox<ReceivedMail>('mail');
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const { headers, body } = parse(raw);
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: headers.subject ?? '',
          headers,
          body,
        };
        inbox.add(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails: inbox.items,
    waitFor: inbox.waitFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * This file's server mailing through an SMTP receiver of its own (SMTP_URL), with its workers (which send the mail):
 * the receiver starts before the server and closes after it. `ready` receives both before the first test; `options`
 * are startTestServer's.
 */
export function useMailingServer(
  ready: (started: { server: TestServer; mail: MailBox }) => unknown,
  options: Parameters<typeof startTestServer>[0] = {},
): void {
  let mail: MailBox | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    mail = await startMailBox();
    server = await startTestServer({ workers: true, ...options, env: { SMTP_URL: mail.url, ...options.env } });
    await ready({ server, mail });
  });
  // As useTestServer's: a stop may wait for requests still being handled.
  afterAll(async () => {
    await server?.stop();
    await mail?.close();
  }, 60_000);
}
