/**
 * What names a theme and what a theme's sentiment may be (issue 52): a business's own theme names, the analytics
 * filters and the feedback list's theme filter all check them here. Plain data, no import: the portal's bundle
 * includes this file (scripts/build-portal.js, PORTAL_SHARED_SOURCES), so its theme lists and the API's checks name
 * the same themes.
 */
export const THEME_NAME = /^[a-z][a-z0-9-]{1,29}$/;
export const THEME_NAME_RULE = '2 to 30 lower-case letters, digits or hyphens, starting with a letter';
export const SENTIMENT_LABELS = ['positive', 'neutral', 'negative'] as const;
export type Sentiment = (typeof SENTIMENT_LABELS)[number];

export const isThemeName = (value: unknown): value is string => typeof value === 'string' && THEME_NAME.test(value);
export const isSentiment = (value: unknown): value is Sentiment => typeof value === 'string' && (SENTIMENT_LABELS as readonly string[]).includes(value);

/** The themes every business's comments are read for (src/modules/text/lexicon holds their words). */
export const BUILT_IN_THEMES = ['food', 'speed', 'staff', 'cleanliness', 'price', 'ambience', 'accuracy', 'delivery'] as const;

/** The ways guests write that a business adds words in: English, Urdu script, Roman Urdu. */
export const THEME_WORD_LANGUAGES = { en: 'English', ur: 'Urdu (اردو)', 'ur-Latn': 'Roman Urdu' } as const;
