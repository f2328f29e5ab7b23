/**
 * What names a theme and what a theme's sentiment may be (issue 52): a business's own theme names, the analytics
 * filters and the feedback list's theme filter all check them here.
 */
export const THEME_NAME = /^[a-z][a-z0-9-]{1,29}$/;
export const THEME_NAME_RULE = '2 to 30 lower-case letters, digits or hyphens, starting with a letter';
export const SENTIMENT_LABELS = ['positive', 'neutral', 'negative'] as const;
export type Sentiment = (typeof SENTIMENT_LABELS)[number];

export const isThemeName = (value: unknown): value is string => typeof value === 'string' && THEME_NAME.test(value);
export const isSentiment = (value: unknown): value is Sentiment => typeof value === 'string' && (SENTIMENT_LABELS as readonly string[]).includes(value);
