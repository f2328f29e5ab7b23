import { REPLY_CODE_ROOM } from './inbound-sms.rules.js';

/** The longest SMS providers take (carriers cut it into parts). */
export const SMS_LIMIT = 1_600;

/** An e-mail reply's longest body; an SMS reply's leaves room for the line with its thread's reply code. */
export const MAX_MESSAGE_BODY = { email: 5_000, sms: SMS_LIMIT - REPLY_CODE_ROOM } as const;
