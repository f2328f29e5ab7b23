/** Lifetimes (docs/oauth.md, "Lifetimes"). */
export const ACCESS_TOKEN_TTL_S = 60 * 60;
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 60 * 60;
export const AUTHORIZATION_CODE_TTL_S = 5 * 60;
export const SESSION_TTL_S = 12 * 60 * 60;
export const JWT_ALG = 'RS512';
export const ACCESS_TOKEN_TYP = 'at+jwt';

/** Failed sign-ins are counted per window of this length (sign_in_throttle), and its rows purged after it. */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** Wrong passwords within the window: per (e-mail, address) and per address before that address is refused. */
export const MAX_FAILURES = { emailAndAddress: 5, address: 50 } as const;
