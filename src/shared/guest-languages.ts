/**
 * The languages the guest pages are written in (src/guest/messages has one file each), with the name an owner
 * choosing a survey's languages reads. A survey may offer any of them; one that names none offers them all.
 */
export const GUEST_LANGUAGES = { en: 'English', ur: 'Urdu (اردو)' } as const;
export type GuestLanguage = keyof typeof GUEST_LANGUAGES;
export const GUEST_LANGUAGE_CODES = Object.keys(GUEST_LANGUAGES) as GuestLanguage[];
