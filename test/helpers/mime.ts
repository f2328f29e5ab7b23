/**
 * A small MIME reader for the tests (RFC 5322, 2045-2047): headers unfolded and their encoded words decoded, the
 * parts of multipart bodies split out and each decoded from quoted-printable or base64 (UTF-8). Enough to read what
 * the service sends as a mail client would, rather than matching strings in the raw message.
 */
export interface MimePart {
  headers: Record<string, string>;
  /** `text/plain` etc., lower case, without parameters. */
  type: string;
  params: Record<string, string>;
  /** The decoded body of a leaf part. */
  body: string;
  parts: MimePart[];
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / =?UTF-8?B?...?=), whitespace between two of them dropped. */
export function decodeWords(value: string): string {
  return value.replace(/(\?=)\s+(=\?)/g, '$1$2').replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, enc: string, text: string) => {
    if (enc.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
    const bytes = text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => `%${h}`);
    return decodeURIComponent(bytes.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  });
}

function headerParams(value: string): { value: string; params: Record<string, string> } {
  const [first, ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0)
      params[p.slice(0, eq).trim().toLowerCase()] = p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
  }
  return { value: first.trim().toLowerCase(), params };
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable': {
      const soft = body.replace(/=\r?\n/g, '');
      const bytes: number[] = [];
      for (let i = 0; i < soft.length; i++) {
        if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
          bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
          i += 2;
        } else bytes.push(...Buffer.from(soft[i], 'utf8'));
      }
      return Buffer.from(bytes).toString('utf8');
    }
    default:
      return body;
  }
}

export function parseMime(raw: string): MimePart {
  const split = raw.search(/\r?\n\r?\n/);
  const head = (split < 0 ? raw : raw.slice(0, split)).replace(/\r?\n[ \t]+/g, ' ');
  const rest = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  const { value: type, params } = headerParams(headers['content-type'] ?? 'text/plain');
  if (type.startsWith('multipart/') && params.boundary) {
    const chunks = rest.split(`--${params.boundary}`);
    const parts = chunks
      .slice(1)
      .filter((c) => !c.startsWith('--'))
      .map((c) => parseMime(c.replace(/^\r?\n/, '').replace(/\r?\n$/, '')));
    return { headers, type, params, body: '', parts };
  }
  return { headers, type, params, body: decodeBody(rest, headers['content-transfer-encoding'] ?? '7bit'), parts: [] };
}

/** Every leaf part, depth first. */
export function leaves(part: MimePart): MimePart[] {
  return part.parts.length ? part.parts.flatMap(leaves) : [part];
}

/** `"Display Name" <address>` or `Name <address>` or a bare address. */
export function parseAddress(value: string): { name: string; address: string } {
  const m = /^\s*(?:"((?:[^"\\]|\\.)*)"|([^<]*?))\s*<([^>]+)>\s*$/.exec(value);
  if (!m) return { name: '', address: value.trim() };
  return { name: (m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1').trim(), address: m[3].trim() };
}
