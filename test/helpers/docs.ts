import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** README.md and every guide under docs/: what a newcomer reads and copies. */
export const DOC_FILES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

export const readDoc = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The fenced blocks of one language in reading order, without the indentation of a block inside a list item. */
export function codeBlocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp(`^( *)\`\`\`${lang}\\n([\\s\\S]*?)^\\1\`\`\``, 'gm'))].map(([, indent, body]) =>
    body.replace(new RegExp(`^ {0,${indent.length}}`, 'gm'), ''),
  );
}

/**
 * Puts real values where the text shows placeholders (`bus_...`, `<clientId>`, `CLIENT_SECRET`...), as a reader
 * would. A list of values is used in turn, one per occurrence (two `mtr_...` in one example are two metrics).
 */
export function fillPlaceholders(text: string, values: Record<string, string | string[]>): string {
  const keys = Object.keys(values).sort((a, b) => b.length - a.length);
  const used = new Map<string, number>();
  const pattern = new RegExp(keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return text.replace(pattern, (key) => {
    const value = values[key];
    if (typeof value === 'string') return value;
    const n = used.get(key) ?? 0;
    used.set(key, n + 1);
    return value[n % value.length];
  });
}
