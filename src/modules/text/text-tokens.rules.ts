import { foldText } from '../../shared/keywords.js';

/** A word of a text, folded (its `form`), and where a punctuation mark ended the clause before it. */
export interface Token {
  form: string;
  /** Written in Arabic script (Urdu) rather than Latin letters. */
  urdu: boolean;
  /** A mark (. , ! ? ۔ ، ؟ ; : or a line break) stands between this word and the one before. */
  afterBreak: boolean;
}

const WORD_OR_BREAK = /([\p{L}\p{N}]+(?:'[\p{L}]+)*)|([.!?;:,\n\u060c\u061b\u061f\u06d4]+)/gu;
const ARABIC = /[\u0600-\u06ff]/u;

/** The words of a text in order, folded as keyword rules fold them (src/shared/keywords.ts). */
export function tokenise(text: string): Token[] {
  const folded = foldText(text.replace(/[\u2018\u2019`]/g, "'"));
  const tokens: Token[] = [];
  let pendingBreak = false;
  for (const match of folded.matchAll(WORD_OR_BREAK)) {
    if (match[2]) {
      pendingBreak = true;
      continue;
    }
    const form = match[1].endsWith("'s") ? match[1].slice(0, -2) : match[1];
    tokens.push({ form, urdu: ARABIC.test(form), afterBreak: pendingBreak });
    pendingBreak = false;
  }
  return tokens;
}
