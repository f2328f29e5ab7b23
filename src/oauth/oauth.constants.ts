/** Lifetimes (docs/oauth.md, "Lifetimes"). */
export const ACCESS_TOKEN_TTL_S = 60 * 60;
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 60 * 60;
export const AUTHORIZATION_CODE_TTL_S = 5 * 60;
export const SESSION_TTL_S = 12 * 60 * 60;
export const JWT_ALG = 'RS512';
export const ACCESS_TOKEN_TYP = 'at+jwt';
